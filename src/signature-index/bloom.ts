// A blocked Bloom filter for the signature index's runs (run-file.ts): each key sets 7 bits inside
// one 64-byte block, so asking a run whether it may hold a signature costs one 64-byte read,
// whatever the run's size. 10 bits per key: about 1% false positives (docs/scaling.md, "Finding a
// signature").

export const BLOOM_BLOCK_BYTES = 64;
const BLOCK_BITS = BLOOM_BLOCK_BYTES * 8;
const BITS_PER_KEY = 10;
const PROBES = 7;

/** Blocks a filter for `keys` entries has (at least one). */
export function bloomBlocks(keys: number): number {
  return Math.max(1, Math.ceil((keys * BITS_PER_KEY) / BLOCK_BITS));
}

/** The two hashes a key's bits come from (what a writer keeps per key until it sizes the filter). */
export function bloomHashes(key: string): [h1: number, h2: number] {
  return [Bun.hash.xxHash32(key, 0x7a11), Bun.hash.xxHash32(key, 0x51d3) | 1];
}

/** The block a key with first hash `h1` lives in. */
const blockOf = (h1: number, blocks: number) => h1 % blocks;

/** The block a key lives in and the two hashes its bits come from. */
function probe(key: string, blocks: number): { block: number; h1: number; h2: number } {
  const [h1, h2] = bloomHashes(key);
  return { block: blockOf(h1, blocks), h1, h2 };
}

function bitOf(h1: number, h2: number, i: number): number {
  return ((h1 >>> 9) + i * h2) >>> 0;
}

/**
 * A filter holding every key, from the keys' bloomHashes flattened (h1, h2, h1, h2, …): `bloomBlocks(keys)` blocks of
 * BLOOM_BLOCK_BYTES.
 */
export function buildBloomFromHashes(hashes: ArrayLike<number>, blocks: number): Uint8Array {
  const bytes = new Uint8Array(blocks * BLOOM_BLOCK_BYTES);
  for (let k = 0; k < hashes.length; k += 2) {
    const h1 = hashes[k];
    const h2 = hashes[k + 1];
    const base = blockOf(h1, blocks) * BLOOM_BLOCK_BYTES;
    for (let i = 0; i < PROBES; i++) {
      const bit = bitOf(h1, h2, i) % BLOCK_BITS;
      bytes[base + (bit >>> 3)] |= 1 << (bit & 7);
    }
  }
  return bytes;
}

/** Which block of a filter of `blocks` blocks decides about `key`. */
export function bloomBlockOf(key: string, blocks: number): number {
  return probe(key, blocks).block;
}

/** Whether the filter block (the one bloomBlockOf named) may hold `key`: false means certainly not. */
export function bloomBlockMayHold(block: Uint8Array, key: string, blocks: number): boolean {
  const { h1, h2 } = probe(key, blocks);
  for (let i = 0; i < PROBES; i++) {
    const bit = bitOf(h1, h2, i) % BLOCK_BITS;
    if ((block[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}
