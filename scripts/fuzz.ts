// `bun run fuzz [--inputs N] [--seed S]`: long fuzz runs over every route (scripts/fuzz/). Builds a
// throw-away world in a temp directory, serves it on a loopback port, sends N hostile requests and
// prints progress lines, then one JSON line last: {inputs, fiveXX, crashes, dropped, badShape, ...}.
// Exit 0 only when nothing failed.

import { parseArgs } from "node:util";
import { createFuzzHarness, runFuzz } from "./fuzz/harness";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { inputs: { type: "string" }, seed: { type: "string" } },
  strict: true,
});
const inputs = Number(values.inputs ?? 100_000);
const seed = Number(values.seed ?? Date.now() % 1_000_000);
if (!Number.isInteger(inputs) || inputs < 1 || !Number.isInteger(seed)) {
  console.error("usage: bun run fuzz [--inputs N] [--seed S]");
  process.exit(2);
}

const started = performance.now();
const harness = await createFuzzHarness({ seed });
for (const { route, note } of harness.skipped) console.error(`skipped ${route}: ${note}`);
const stats = await runFuzz(harness, {
  seed,
  inputs,
  onProgress: (s) =>
    console.error(
      `${s.inputs} inputs, ${s.fiveXX} 5xx, ${s.crashes} crashes, ${s.dropped} dropped, ${s.badShape} bad shape (${Math.round((performance.now() - started) / 1000)} s)`,
    ),
});
await harness.close();
for (const finding of stats.findings.slice(0, 10)) console.error(JSON.stringify(finding));
const { findings, ...figures } = stats;
console.log(
  JSON.stringify({
    ...figures,
    seed,
    findings: findings.length,
    seconds: Math.round((performance.now() - started) / 1000),
  }),
);
process.exit(stats.fiveXX + stats.crashes + stats.dropped + stats.badShape === 0 ? 0 : 1);
