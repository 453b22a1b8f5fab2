// Flush: sealed spool segments → Hive-partitioned, zstd Parquet parts (DESIGN §6).
//
// Per segment: DuckDB reads the NDJSON into a temp table, writes partitioned Parquet into a staging
// directory, then, under the lake lease, the parts are renamed into place and the segment is
// recorded in the control database (with per-account program counts) before the spool file is
// deleted. Part names are derived from the segment name, so redoing a half-done flush overwrites
// the same files: a crash at any step loses nothing acknowledged and duplicates nothing.

import { existsSync, readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { ControlDb } from "../control";
import { addProgramCounts, isSegmentCommitted, recordSegment } from "../control";
import { cutTornTail, liveOwner, recoverActiveSegments, sealedSegmentFiles, segmentNameOf } from "../ingest/spool";
import type { Logger } from "../shared/logger";
import { sqlString, type Duck } from "./duckdb";
import type { DataPaths } from "./paths";
import { publishStaged, stagePartitioned } from "./publish";
import { duckdbColumnsStruct, ENVELOPE_COLUMNS } from "./schema";

export type FlushDeps = {
  paths: DataPaths;
  duck: Duck;
  control: ControlDb;
  logger: Logger;
  clock: () => number;
  /** Test hook: called after the parts are renamed in, before the segment is recorded (simulates a crash there). */
  beforeCommit?: (segment: string) => void;
};
export type FlushResult = { segments: number; rows: number };

/** The NDJSON spool line carries the envelope in its camelCase API names; the lake uses snake_case. */
const SPOOL_LINE_COLUMNS: Record<string, string> = {
  attempt_id: "attemptId", account_id: "accountId", received_at: "receivedAt", sig: "sig", blockhash: "blockhash",
  last_valid_block_height: "lastValidBlockHeight", sent_at: "sentAt", rpc_hash: "rpcHash", rpc_label: "rpcLabel",
  wallet_adapter: "walletAdapter", kind: "kind", preflight_error: "preflightError", simulation_logs: "simulationLogs",
  payer: "payer", sdk_version: "sdkVersion", cu_limit: "cuLimit", cu_price_micro_lamports: "cuPriceMicroLamports",
  max_retries: "maxRetries", skip_preflight: "skipPreflight", send_path: "sendPath", nonce: "nonce",
};

const spoolReadColumns = duckdbColumnsStruct([
  ...ENVELOPE_COLUMNS.filter((c) => c.name !== "spool_segment").map((c) => ({ ...c, name: SPOOL_LINE_COLUMNS[c.name] })),
  { name: "program", type: "VARCHAR", doc: "" },
]);

/** Flushes every sealed segment of every node (and orphaned active ones of dead processes). */
export async function flushSpool(deps: FlushDeps): Promise<FlushResult> {
  const result: FlushResult = { segments: 0, rows: 0 };
  if (!existsSync(deps.paths.spoolRoot)) return result;
  for (const node of readdirSync(deps.paths.spoolRoot).sort()) {
    const dir = join(deps.paths.spoolRoot, node);
    if (!statSync(dir).isDirectory()) continue;
    if (liveOwner(dir) === null) recoverActiveSegments(dir, deps.logger);
    for (const file of sealedSegmentFiles(dir)) {
      result.rows += await flushSegment(deps, file);
      result.segments++;
    }
  }
  return result;
}

async function flushSegment(deps: FlushDeps, file: string): Promise<number> {
  const segment = segmentNameOf(file);
  if (isSegmentCommitted(deps.control, segment)) {
    unlinkSync(file); // committed before a crash; only the delete was missing
    return 0;
  }
  if (cutTornTail(file) === 0) {
    unlinkSync(file);
    return 0;
  }
  // One pass: NDJSON → partitioned Parquet in staging. Counts are then read back from the staged
  // Parquet (a columnar read, far cheaper than parsing the JSON twice).
  const selectList = ENVELOPE_COLUMNS.map((c) =>
    c.name === "spool_segment" ? `${sqlString(segment)} AS spool_segment` : `${SPOOL_LINE_COLUMNS[c.name]} AS ${c.name}`,
  ).join(", ");
  const { staging, parts } = await stagePartitioned(
    deps.duck,
    deps.paths,
    segment,
    `SELECT ${selectList}, program, strftime(make_timestamp(receivedAt * 1000), '%Y-%m-%d') AS day
     FROM read_json(${sqlString(file)}, format = 'newline_delimited', columns = ${spoolReadColumns})`,
    ["program", "day"],
  );
  const counts = (
    await deps.duck.all<{ account_id: string; program: string; attempts: number; last_seen: number }>(
      `SELECT account_id, program, count(*) AS attempts, max(received_at) AS last_seen
       FROM read_parquet(${sqlString(join(staging, "**", "*.parquet"))}, hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})
       GROUP BY ALL`,
    )
  ).map((row) => ({ accountId: row.account_id, program: row.program, attempts: row.attempts, lastSeen: row.last_seen }));

  const rows = counts.reduce((sum, c) => sum + c.attempts, 0);
  const days = [...new Set(parts.map((p) => p.day!))].sort();
  await publishStaged(
    deps.control,
    deps.paths,
    "envelopes",
    segment,
    parts,
    () =>
      deps.control.transaction(() => {
        recordSegment(deps.control, segment, rows, days, deps.clock());
        addProgramCounts(deps.control, counts);
      }).immediate(),
    deps.beforeCommit ? () => deps.beforeCommit!(segment) : undefined,
  );
  unlinkSync(file);
  rmSync(staging, { recursive: true, force: true });
  deps.logger.debug("flushed segment", { segment, rows, parts: parts.length });
  return rows;
}
