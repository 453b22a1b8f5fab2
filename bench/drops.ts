// `bun run bench drops [--sizes 1000,5000,20000,5000x200000] [--reference-max 20000]`: drop
// classification of one resolve run, N dropped attempts among N resolved neighbours (DxN: D drops
// among N neighbours; the drops are neighbours too, as in a run), before and
// after indexing: the per-attempt filters over the whole neighbour list (the reference kept in
// test/chain/resolve/drops-reference.ts) against classifyDrops. Both sides in the same run on the
// same generated data, answers compared. The reference is quadratic, so it runs only up to
// --reference-max attempts. Last stdout line: one JSON object.
import { parseArgs } from "node:util";
import { classifyDrops } from "../src/chain/resolve/drops";
import { generateRun, referenceClassifyDrop } from "../test/chain/resolve/drops-reference";

const { values } = parseArgs({ args: process.argv.slice(2), options: { sizes: { type: "string" }, "reference-max": { type: "string" } }, strict: true });
const sizes = (values.sizes ?? "1000,5000,20000,5000x200000").split(",").map((size) => {
  const [drops, neighbours] = size.split("x").map(Number);
  return { drops, neighbours: neighbours ?? drops };
});
const referenceMax = Number(values["reference-max"] ?? 20_000);

const results: { drops: number; neighbours: number; referenceMs: number | null; indexedMs: number; speedup: number | null; identical: boolean | null }[] = [];
for (const { drops, neighbours } of sizes) {
  const run = generateRun(drops, neighbours, drops + neighbours);
  let start = performance.now();
  const indexed = classifyDrops(run.items, run.neighbours);
  const indexedMs = performance.now() - start;
  let referenceMs: number | null = null;
  let identical: boolean | null = null;
  if (drops <= referenceMax) {
    start = performance.now();
    const reference = run.items.map((item) => referenceClassifyDrop(item.attempt, { heightAtExpiry: item.heightAtExpiry, heightAtSend: item.heightAtSend, neighbours: run.neighbours }));
    referenceMs = performance.now() - start;
    identical = Bun.deepEquals(indexed, reference, true);
  }
  const row = { drops, neighbours: run.neighbours.length, referenceMs: referenceMs === null ? null : Math.round(referenceMs), indexedMs: Math.round(indexedMs * 10) / 10, speedup: referenceMs === null ? null : Math.round(referenceMs / indexedMs), identical };
  console.error(`drops: ${JSON.stringify(row)}`);
  results.push(row);
}
console.log(JSON.stringify({ bench: "drops", results }));
