// The indexed classifier (classifyDrops) against the per-attempt filters it replaced: every class,
// confidence and evidence row identical on generated runs that reach every drop class.
import { describe, expect, test } from "bun:test";
import { classifyDrop } from "../../../src/chain/resolve";
import { classifyDrops } from "../../../src/chain/resolve/drops";
import { generateRun, referenceClassifyDrop } from "./drops-reference";

describe("classifyDrops (indexed) = the per-attempt reference", () => {
  for (const [drops, neighbours, seed] of [
    [3000, 6000, 1],
    [2000, 1500, 2],
    [500, 12_000, 3],
    [200, 8000, 6],
  ] as const) {
    test(`${drops} drops among ${neighbours} neighbours (seed ${seed})`, () => {
      const run = generateRun(drops, neighbours, seed);
      const indexed = classifyDrops(run.items, run.neighbours);
      const reference = run.items.map((item) =>
        referenceClassifyDrop(item.attempt, {
          heightAtExpiry: item.heightAtExpiry,
          heightAtSend: item.heightAtSend,
          neighbours: run.neighbours,
        }),
      );
      expect(indexed).toEqual(reference);
      // The comparison covers the classes: where drops are a minority of the sends, every class the
      // chain-side evidence can give (unknown is not classifyDrop's); where most sends dropped, the
      // rate-based classes cannot stand out, and the others must still occur.
      const classes = [...new Set(reference.map((d) => d.dropClass))].sort();
      if (neighbours > 4 * drops)
        expect(classes).toEqual([
          "expired_blockhash",
          "network_congestion",
          "priority_fee_too_low",
          "rpc_not_forwarding",
          "stale_blockhash_at_send",
          "superseded_by_retry",
        ]);
      else
        expect(classes).toEqual([
          "expired_blockhash",
          "priority_fee_too_low",
          "stale_blockhash_at_send",
          "superseded_by_retry",
        ]);
    });
  }

  test("the one-attempt entry point gives the same answers", () => {
    const run = generateRun(300, 2000, 4);
    for (const item of run.items) {
      const context = {
        heightAtExpiry: item.heightAtExpiry,
        heightAtSend: item.heightAtSend,
        neighbours: run.neighbours,
      };
      expect(classifyDrop(item.attempt, context)).toEqual(referenceClassifyDrop(item.attempt, context));
    }
  });

  test("prices too far apart for the rank table (and fractional ones) rank as the reference does", () => {
    for (const scale of [(p: number) => p * 1_000_003, (p: number) => p + 0.5]) {
      const run = generateRun(400, 4000, 7);
      const scaled = (p: number | null) => (p === null ? null : scale(p));
      for (const item of run.items) item.attempt.cuPriceMicroLamports = scaled(item.attempt.cuPriceMicroLamports);
      for (const n of run.neighbours) n.cuPriceMicroLamports = scaled(n.cuPriceMicroLamports);
      const reference = run.items.map((item) =>
        referenceClassifyDrop(item.attempt, {
          heightAtExpiry: item.heightAtExpiry,
          heightAtSend: item.heightAtSend,
          neighbours: run.neighbours,
        }),
      );
      expect(classifyDrops(run.items, run.neighbours)).toEqual(reference);
      expect(reference.some((d) => d.dropClass === "priority_fee_too_low")).toBe(true);
    }
  });

  test("no neighbours, and no drops", () => {
    const run = generateRun(50, 0, 5);
    expect(classifyDrops(run.items, [])).toEqual(
      run.items.map((item) => referenceClassifyDrop(item.attempt, { ...item, neighbours: [] })),
    );
    expect(classifyDrops([], run.neighbours)).toEqual([]);
  });
});
