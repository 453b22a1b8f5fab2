// Benchmark: the Landing Score job on the synthetic lake of TXRAY_BENCH_ENVELOPES envelopes
// (default 10,000,000; the same cached lake as bench/tables.ts) against, in the same run, one full
// DuckDB scan of the lake: every row of every envelope and resolution part, reading the columns
// the job reads (the job itself only reads the window's partitions). Snapshots go to a temp dir.
// Last line: { envelopes, date, jobSeconds, scanSeconds, ratio, windowScanSeconds, listed, sampledSends,
// maxAccountShare, cappedAccounts } (target ratio ≤ 3).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastCompleteDay, runLandingScore } from "../src/analytics/landing-score";
import type { Context } from "../src/context";
import { openDuck } from "../src/lake/duckdb";
import { BENCH_END_MS, benchEnvelopes, benchLake } from "./tables";

const HIVE = "hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}";

/** One read of the columns the job uses, over the given day range of both datasets (all days by default). */
async function scanSeconds(ctx: Context, days?: { from: string; to: string }): Promise<number> {
  const duck = await openDuck();
  const where = days ? `WHERE day BETWEEN '${days.from}' AND '${days.to}'` : "";
  const started = performance.now();
  await duck.all(`SELECT count(*), sum(length(attempt_id)), max(account_id), max(program), sum(epoch_ms(received_at)), max(rpc_label), max(kind)
    FROM read_parquet('${ctx.paths.lake}/envelopes/**/*.parquet', ${HIVE}) ${where}`);
  await duck.all(`SELECT count(*), sum(length(attempt_id)), max(outcome), sum(epoch_ms(resolved_at)), max(program)
    FROM read_parquet('${ctx.paths.lake}/resolutions/**/*.parquet', ${HIVE}) ${where}`);
  const seconds = (performance.now() - started) / 1000;
  duck.close();
  return seconds;
}

const envelopes = benchEnvelopes();
const { ctx } = await benchLake(envelopes);
const snapshots = mkdtempSync(join(tmpdir(), "txray-bench-snapshots-"));
(ctx.config as { snapshotsDir: string }).snapshotsDir = snapshots;
// BENCH_MAX_ACCOUNT_SHARE=0.5 measures the capped path (the generator's two accounts per program are near 50/50).
const maxShare = Number(process.env.BENCH_MAX_ACCOUNT_SHARE ?? 1);
(ctx.config as { LANDING_SCORE_MAX_ACCOUNT_SHARE: number }).LANDING_SCORE_MAX_ACCOUNT_SHARE = maxShare;
const date = lastCompleteDay(BENCH_END_MS);
try {
  const scan = await scanSeconds(ctx);
  console.error(`full scan: ${scan.toFixed(2)} s`);
  const started = performance.now();
  const result = await runLandingScore(ctx, { date });
  const job = (performance.now() - started) / 1000;
  console.error(JSON.stringify(result));
  const windowScan = await scanSeconds(ctx, { from: "2025-11-14", to: "2025-11-21" });
  const round = (x: number) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      envelopes,
      date,
      jobSeconds: round(job),
      scanSeconds: round(scan),
      ratio: round(job / scan),
      windowScanSeconds: round(windowScan),
      listed: result.listed,
      sampledSends: result.sampledSends,
      maxAccountShare: maxShare,
      cappedAccounts: result.cappedAccounts,
    }),
  );
} finally {
  ctx.close();
  rmSync(snapshots, { recursive: true, force: true });
}
