// Benchmark: a burst larger than one refresh holds. On the refresh bench's cached 5M-attempt lake
// (TXRAY_BENCH_BURST_LAKE; generated and built the first time), TXRAY_BENCH_BURST (default
// 1,200,000: one minute at 20,000/s) attempts received in one minute are appended, then the tables
// job refreshes until nothing is left, under the default DUCKDB_MEMORY_LIMIT. Before refreshes took
// in at most their memory's worth (limitIntake), the one refresh ran out of memory on this lake,
// every retry. Last line: { burstAttempts, refreshes, totalSeconds, maxRefreshSeconds, attemptsPerSecond, peakRssMb,
// ... }.

import { rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../devkit/generate";
import { buildServingTables } from "../src/analytics/tables/build";
import { loadConfig } from "../src/config";
import { cachedLake, contextAt, END_MS, workingCopy } from "./refresh";

const lakeAttempts = Number(process.env.TXRAY_BENCH_BURST_LAKE ?? 5_000_000);
const burst = Number(process.env.TXRAY_BENCH_BURST ?? 1_200_000);
const BURST_MS = 60_000;

const lake = await cachedLake(lakeAttempts);
const work = join(tmpdir(), "txray-bench", `burst-${lakeAttempts}-run`);
workingCopy(lake.dir, work);
try {
  await generateLake({
    dataDir: work,
    envelopes: burst,
    programs: 20,
    days: BURST_MS / 86_400_000,
    seed: 1,
    endMs: END_MS + BURST_MS,
    append: { variant: 1 },
  });
  const ctx = await contextAt(work, END_MS + BURST_MS);
  const load = loadavg()[0];
  const runs: { seconds: number; attempts: number; resolutions: number; deferredRows: number }[] = [];
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const started = performance.now();
  try {
    for (;;) {
      const result = await buildServingTables(ctx);
      runs.push({
        seconds: result.seconds,
        attempts: result.attempts,
        resolutions: result.resolutions,
        deferredRows: result.deferredRows,
      });
      console.error(JSON.stringify({ ...runs.at(-1), steps: result.steps }));
      if (!result.backlog) break;
      if (runs.length > 100) throw new Error("the burst was not taken in after 100 refreshes");
    }
  } finally {
    clearInterval(sampler);
    ctx.close();
  }
  const totalSeconds = (performance.now() - started) / 1000;
  const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
  const attempts = runs.reduce((n, run) => n + run.attempts, 0);
  console.log(
    JSON.stringify({
      lakeAttempts,
      burstAttempts: burst,
      attemptsTakenIn: attempts,
      resolutionsTakenIn: runs.reduce((n, run) => n + run.resolutions, 0),
      refreshes: runs.length,
      totalSeconds: round(totalSeconds),
      maxRefreshSeconds: round(Math.max(...runs.map((run) => run.seconds))),
      attemptsPerSecond: Math.round(attempts / totalSeconds),
      peakRssMb: Math.round(peakRss / 1e6),
      duckdbMemoryLimit: loadConfig({}).DUCKDB_MEMORY_LIMIT,
      loadAverage: round(load),
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
