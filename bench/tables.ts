// Benchmark: build the serving tables from a synthetic lake of TXRAY_BENCH_ENVELOPES envelopes
// (default 10,000,000; generated once and cached under $TMPDIR/txray-bench/lake-<n>) and compare
// with one full DuckDB read, in the same run, of every envelope and resolution column the tables
// job uses. Last line: { envelopes, tablesSeconds, scanSeconds, ratio } (target ratio ≤ 8).

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../devkit/generate";
import { buildServingTables } from "../src/analytics/tables/build";
import { loadConfig } from "../src/config";
import { type Context, createContext } from "../src/context";
import { openDuck } from "../src/lake/duckdb";
import { LAKE_VERSION } from "../src/lake/schema";
import { silentLogger } from "../src/shared/logger";

export const BENCH_END_MS = 1_763_700_000_000;

export function benchEnvelopes(): number {
  return Number(process.env.TXRAY_BENCH_ENVELOPES ?? 10_000_000);
}

/** A context over the cached synthetic lake of `envelopes` rows (generating it the first time). */
export async function benchLake(
  envelopes: number,
): Promise<{ ctx: Context; generated: { programs: string[]; seconds: number } }> {
  const dataDir = join(tmpdir(), "txray-bench", `lake-${envelopes}`);
  const marker = join(dataDir, "generated.json");
  // A lake generated under another lake contract is stale.
  const stale = !existsSync(marker) || JSON.parse(readFileSync(marker, "utf8")).lakeVersion !== LAKE_VERSION;
  if (stale) rmSync(dataDir, { recursive: true, force: true });
  const ctx = await createContext(
    loadConfig({ TXRAY_DATA_DIR: dataDir, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" }),
    {
      logger: silentLogger,
      clock: () => BENCH_END_MS,
    },
  );
  if (stale) {
    mkdirSync(dataDir, { recursive: true });
    const programs = Math.max(4, Math.min(50, Math.round(envelopes / 200_000)));
    const result = await generateLake({
      dataDir,
      envelopes,
      programs,
      days: 30,
      endMs: BENCH_END_MS,
      control: ctx.control,
      force: true,
    });
    writeFileSync(
      marker,
      JSON.stringify({ lakeVersion: LAKE_VERSION, programs: result.programs, seconds: result.seconds }),
    );
    console.error(`generated ${envelopes} envelopes in ${result.seconds.toFixed(1)} s`);
  }
  return { ctx, generated: JSON.parse(readFileSync(marker, "utf8")) };
}

/** One full read of the envelope and resolution columns the tables job uses. */
export async function fullScanSeconds(ctx: Context): Promise<number> {
  const duck = await openDuck(":memory:", ctx.duckOptions("bench-scan"));
  const started = performance.now();
  const lake = ctx.paths.lake;
  const hive = "hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}";
  await duck.all(`SELECT count(*), sum(length(attempt_id)), max(account_id), max(program), max(day), sum(epoch_ms(received_at)), sum(epoch_ms(sent_at)),
      sum(length(sig)), max(payer), max(rpc_label), max(rpc_hash), max(wallet_adapter), max(kind)
    FROM read_parquet('${lake}/envelopes/**/*.parquet', ${hive})`);
  await duck.all(`SELECT count(*), sum(length(attempt_id)), max(outcome), max(drop_class), max(instruction), sum(err_code), max(err_name),
      max(failing_program), max(fingerprint), sum(cu_used), sum(cu_requested), bool_or(compute_exceeded), sum(epoch_ms(block_time))
    FROM read_parquet('${lake}/resolutions/**/*.parquet', ${hive})`);
  const seconds = (performance.now() - started) / 1000;
  duck.close();
  return seconds;
}

if (import.meta.main) {
  const envelopes = benchEnvelopes();
  const { ctx } = await benchLake(envelopes);
  rmSync(ctx.paths.tables, { recursive: true, force: true });
  const scanSeconds = await fullScanSeconds(ctx);
  const scanPeakMB = Math.round(process.resourceUsage().maxRSS / 1024);
  const build = await buildServingTables(ctx, { full: true });
  const peakMB = Math.round(process.resourceUsage().maxRSS / 1024);
  console.error(JSON.stringify({ steps: build.steps, attempts: build.attempts, answers: build.answers }));
  ctx.close();
  const round = (x: number) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      envelopes,
      tablesSeconds: round(build.seconds),
      scanSeconds: round(scanSeconds),
      ratio: round(build.seconds / scanSeconds),
      duckdbMemoryLimit: ctx.config.DUCKDB_MEMORY_LIMIT,
      scanPeakRssMB: scanPeakMB,
      peakRssMB: peakMB,
    }),
  );
}
