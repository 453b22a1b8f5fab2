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

/** The two hashes a key's bits come from. */
function bloomHashes(key: string): [h1: number, h2: number] {
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
 * A filter filled as keys come, sized up front for at most `keys` of them: a writer holds its
 * filter's bits (1.25 bytes a key), not every key's hashes until it knows how many there are
 * (16 bytes or more a key, which a merge of millions of entries held in its thread's heap). More
 * keys than it was sized for make it answer "may hold" more often, never "not" for a key it holds.
 */
export class BloomFilter {
  readonly blocks: number;
  readonly bytes: Uint8Array;

  constructor(keys: number) {
    this.blocks = bloomBlocks(keys);
    this.bytes = new Uint8Array(this.blocks * BLOOM_BLOCK_BYTES);
  }

  add(key: string): void {
    const { block, h1, h2 } = probe(key, this.blocks);
    const base = block * BLOOM_BLOCK_BYTES;
    for (let i = 0; i < PROBES; i++) {
      const bit = bitOf(h1, h2, i) % BLOCK_BITS;
      this.bytes[base + (bit >>> 3)] |= 1 << (bit & 7);
    }
  }
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
