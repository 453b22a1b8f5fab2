// Compute units estimated from the success sample (docs/lake.md "The success sample", docs/api.md
// cu-headroom) stay within their documented error of the exact figures. Two generated worlds from
// the same seed: in one every success was decoded (RESOLVE_SAMPLE_RATE = 1: the exact figures), in
// the other one success in 32 (the default). The estimate of p is read from the serving tables'
// quantile sketch, so it is within α = 1% of a value of the sampled distribution (docs/serving.md
// "Quantiles"); some value of the exact distribution within that 1% must rank within
// p ± z·sqrt(p(1−p)/n), n the sampled successes behind it: z = 1.96 (95%) for nearly every
// (program, instruction, window) group, and z = 3.29 (99.9%) for all of them.
// The worlds are seeded, so the outcome is fixed: a biased estimator (weights ignored, failures
// counted 32 times, a sample that is not uniform) fails it by far.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { generateLake } from "../../devkit/generate";
import { cuHeadroom } from "../../src/analytics/queries";
import { SKETCH_RELATIVE_ERROR } from "../../src/analytics/serving/sketch";
import { buildServingTables } from "../../src/analytics/tables/build";
import { testContext } from "../helpers/context";
import { END_MS } from "./support";

type Ctx = Awaited<ReturnType<typeof testContext>>;
const worlds: { exact: Ctx; sampled: Ctx } = {} as never;
let programs: string[] = [];

beforeAll(async () => {
  for (const [name, successSampleRate] of [
    ["exact", 1],
    ["sampled", 1 / 32],
  ] as const) {
    const ctx = await testContext();
    (ctx as { clock: () => number }).clock = () => END_MS;
    const generated = await generateLake({
      dataDir: ctx.config.dataDir,
      envelopes: 120_000,
      programs: 3,
      days: 30,
      seed: 5,
      endMs: END_MS,
      threads: 2,
      successSampleRate,
    });
    programs = generated.programs;
    await buildServingTables(ctx);
    worlds[name] = ctx;
  }
}, 240_000);

afterAll(() => {
  for (const ctx of Object.values(worlds)) {
    ctx.dispose();
  }
});

/** Every decoded compute-unit value of a group in the exact world (each decoded row is one attempt there). */
async function exactValues(program: string, instruction: string, since: number): Promise<number[]> {
  const rows = await worlds.exact.duck.all<{ cu_used: number }>(
    `SELECT r.cu_used FROM read_parquet('${worlds.exact.paths.datasetGlob("envelopes")}', hive_partitioning = true) e
     JOIN read_parquet('${worlds.exact.paths.datasetGlob("resolutions")}', hive_partitioning = true) r USING (attempt_id)
     WHERE e.program = '${program}' AND r.instruction = '${instruction}' AND r.outcome IN ('landed', 'failed_onchain') AND r.cu_used IS NOT NULL
       AND epoch_ms(e.received_at) BETWEEN ${since} AND ${END_MS}`,
  );
  return rows.map((r) => Number(r.cu_used)).sort((a, b) => a - b);
}

/** Sampled successes behind a group's estimate in the sampled world. */
async function sampledSuccesses(program: string, instruction: string, since: number): Promise<number> {
  const [row] = await worlds.sampled.duck.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM read_parquet('${worlds.sampled.paths.datasetGlob("envelopes")}', hive_partitioning = true) e
     JOIN read_parquet('${worlds.sampled.paths.datasetGlob("resolutions")}', hive_partitioning = true) r USING (attempt_id)
     WHERE e.program = '${program}' AND r.instruction = '${instruction}' AND r.sampled AND epoch_ms(e.received_at) BETWEEN ${since} AND ${END_MS}`,
  );
  return Number(row.n);
}

test("p50 and p95 of compute units from the sample stay within the documented rank error of the exact figures", async () => {
  let groups = 0;
  let within95 = 0;
  for (const window of ["7d", "30d"] as const) {
    const since = END_MS - (window === "7d" ? 7 : 30) * 86_400_000;
    for (const program of programs) {
      const exact = await cuHeadroom(worlds.exact, { program, window, accountId: null });
      const sampled = await cuHeadroom(worlds.sampled, { program, window, accountId: null });
      for (const estimate of sampled.instructions) {
        const truth = exact.instructions.find((i) => i.instruction === estimate.instruction)!;
        const values = await exactValues(program, estimate.instruction, since);
        expect(values.length).toBe(truth.samples); // every attempt was decoded in the exact world
        const n = await sampledSuccesses(program, estimate.instruction, since);
        if (n < 30) continue;
        // The sample decodes fewer attempts than the exact world (a thirty-second of the successes, every failure).
        expect(estimate.samples).toBeLessThan(truth.samples);
        for (const [p, value] of [
          [0.5, estimate.cuUsed.p50],
          [0.95, estimate.cuUsed.p95],
        ] as const) {
          groups++;
          // Where the exact values within the sketch's 1% of the estimate (then rounded to a unit) sit in the exact distribution:
          // ranks from below and from above (ties).
          const below = values.filter((v) => v < (value - 0.5) / (1 + SKETCH_RELATIVE_ERROR)).length / values.length;
          const atOrBelow =
            values.filter((v) => v <= (value + 0.5) / (1 - SKETCH_RELATIVE_ERROR)).length / values.length;
          const error = (z: number) => z * Math.sqrt((p * (1 - p)) / n);
          const within = (z: number) => atOrBelow >= p - error(z) && below <= p + error(z);
          expect({ program, instruction: estimate.instruction, window, p, within: within(3.29) }).toEqual({
            program,
            instruction: estimate.instruction,
            window,
            p,
            within: true,
          });
          if (within(1.96)) within95++;
        }
      }
    }
  }
  expect(groups).toBeGreaterThanOrEqual(20);
  expect(within95 / groups).toBeGreaterThanOrEqual(0.9);
}, 240_000);
