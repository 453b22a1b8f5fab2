// The load tools' signatures must be what a real client sends: base58 that decodes to exactly 64
// bytes (ingest rejects anything else), and for the soak as random as real ones, so that nothing
// downstream (the signature index's compression and sort) is measured on easier data than mainnet's.
import { expect, test } from "bun:test";
import { randomSignatures, uniqueSignatures } from "../../../devkit/standin";
import { decodeBase58 } from "../../../src/shared/base58";

test("random signatures decode to 64 bytes, never repeat, and share no prefix beyond chance", () => {
  const signature = randomSignatures();
  const sigs = Array.from({ length: 20_000 }, () => signature());
  for (const sig of sigs) expect(decodeBase58(sig)?.length).toBe(64);
  expect(new Set(sigs).size).toBe(sigs.length);
  // 7-character prefixes of random base58 (58^6 × 4 of them) practically never repeat among 20,000.
  expect(new Set(sigs.map((sig) => sig.slice(0, 7))).size).toBeGreaterThan(sigs.length * 0.99);
  // Every base58 character turns up, about equally often, after the first.
  const counts = new Map<string, number>();
  for (const sig of sigs) for (const ch of sig.slice(1)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  expect(counts.size).toBe(58);
  const expected = (sigs.length * 87) / 58;
  for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.05);
});

test("unique signatures decode to 64 bytes and differ by their counter", () => {
  const signature = uniqueSignatures(64);
  const sigs = Array.from({ length: 5_000 }, (_, n) => signature(n));
  for (const sig of sigs) expect(decodeBase58(sig)?.length).toBe(64);
  expect(new Set(sigs).size).toBe(sigs.length);
  expect(signature(7)).toBe(sigs[7]);
});
