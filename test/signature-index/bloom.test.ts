// The Bloom filter of a run (src/signature-index/bloom.ts): filled as keys come, it never says "not"
// for a key it holds, even past the count it was sized for, and answers "may hold" for about 1% of
// the keys it does not hold.
import { expect, test } from "bun:test";
import { BLOOM_BLOCK_BYTES, BloomFilter, bloomBlockMayHold, bloomBlockOf } from "../../src/signature-index/bloom";

function mayHold(filter: BloomFilter, key: string): boolean {
  const at = bloomBlockOf(key, filter.blocks) * BLOOM_BLOCK_BYTES;
  return bloomBlockMayHold(filter.bytes.subarray(at, at + BLOOM_BLOCK_BYTES), key, filter.blocks);
}

test("every key added is held; about 1% of others may be", () => {
  const filter = new BloomFilter(20_000);
  for (let i = 0; i < 20_000; i++) filter.add(`held-${i}`);
  for (let i = 0; i < 20_000; i++) expect(mayHold(filter, `held-${i}`)).toBe(true);
  let falsePositives = 0;
  for (let i = 0; i < 20_000; i++) if (mayHold(filter, `other-${i}`)) falsePositives++;
  expect(falsePositives / 20_000).toBeLessThan(0.02);
  expect(falsePositives).toBeGreaterThan(0); // a filter that held everything would pass the first check
});

test("more keys than it was sized for are still all held", () => {
  const filter = new BloomFilter(100);
  for (let i = 0; i < 1_000; i++) filter.add(`held-${i}`);
  for (let i = 0; i < 1_000; i++) expect(mayHold(filter, `held-${i}`)).toBe(true);
});

test("a filter for no keys has one block", () => {
  expect(new BloomFilter(0).bytes.length).toBe(BLOOM_BLOCK_BYTES);
});
