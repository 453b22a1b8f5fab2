// Flush: sealed spool segments → Hive-partitioned, zstd Parquet parts (DESIGN §6).
//
// Per pass: DuckDB reads the sealed NDJSON segments and writes partitioned Parquet into a staging
// directory; then, under the lake lease, the parts are renamed into place and the segments are
// recorded in the control database (with per-account program counts) before the spool files are
// deleted. Part names are derived from the first segment's name, so redoing a half-done flush
// overwrites the same files: a crash at any step loses nothing acknowledged and duplicates nothing.

import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { ControlDb } from "../control";
import { addProgramCounts, isSegmentCommitted, recordSegment } from "../control";
import { cutTornTail, liveOwner, recoverActiveSegments, sealedSegmentFiles, segmentNameOf } from "../ingest/spool";
import type { Logger } from "../shared/logger";
import { sqlString, type Duck } from "./duckdb";
import type { DataPaths } from "./paths";
import { publishStaged, stagePartitioned } from "./publish";
import { duckdbColumnsStruct, ENVELOPE_COLUMNS } from "./schema";
import { SPOOL_COLUMNS, SPOOL_TEXT_COLUMNS } from "../ingest/spool-line";

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

/** Version 1 spool segments (NDJSON, camelCase API names), still read after an upgrade. */
const LEGACY_LINE_COLUMNS: Record<string, string> = {
  attempt_id: "attemptId", account_id: "accountId", received_at: "receivedAt", sig: "sig", blockhash: "blockhash",
  last_valid_block_height: "lastValidBlockHeight", sent_at: "sentAt", rpc_hash: "rpcHash", rpc_label: "rpcLabel",
  wallet_adapter: "walletAdapter", kind: "kind", preflight_error: "preflightError", simulation_logs: "simulationLogs",
  payer: "payer", sdk_version: "sdkVersion", cu_limit: "cuLimit", cu_price_micro_lamports: "cuPriceMicroLamports",
  max_retries: "maxRetries", skip_preflight: "skipPreflight", send_path: "sendPath", nonce: "nonce",
};

const columnType = (name: string) => (name === "program" ? "VARCHAR" : ENVELOPE_COLUMNS.find((c) => c.name === name)!.type);
/** Every spool column is read as text where the line may hold an encoded value, else in its lake type. */
const spoolCsvColumns =
  "{" + SPOOL_COLUMNS.map((name) => `${name}: '${SPOOL_TEXT_COLUMNS.has(name) || name === "simulation_logs" ? "VARCHAR" : columnType(name)}'`).join(", ") + "}";
const SEGMENT_OF_FILENAME = `regexp_extract(filename, '([^/]+)\\.sealed$', 1) AS spool_segment`;
/** `day`: the UTC date of the receive time (Unix ms). */
const dayOfReceipt = (column: string) => `strftime(make_timestamp(${column} * 1000), '%Y-%m-%d') AS day`;

/** The lake column from its spool encoding (src/ingest/spool-line.ts): JSON only where the writer used it. */
function decodedColumn(name: string): string {
  if (name === "spool_segment") return SEGMENT_OF_FILENAME;
  if (name === "simulation_logs") return `CASE WHEN simulation_logs = '[]' THEN []::VARCHAR[] ELSE from_json(simulation_logs, '["VARCHAR"]') END AS simulation_logs`;
  if (SPOOL_TEXT_COLUMNS.has(name)) return `CASE WHEN starts_with(${name}, '"') THEN json_extract_string(${name}, '$') ELSE ${name} END AS ${name}`;
  return name;
}

/** Rows of the lake's envelope columns plus `program` and `day`, from sealed segments of both spool formats. */
export function spoolRowsSql(files: { tsv: string[]; ndjson: string[] }): string {
  const selects: string[] = [];
  if (files.tsv.length > 0) {
    selects.push(
      `SELECT ${ENVELOPE_COLUMNS.map((c) => decodedColumn(c.name)).join(", ")}, program, ${dayOfReceipt("received_at")}
       FROM read_csv([${files.tsv.map(sqlString).join(", ")}], delim = '\t', quote = '', escape = '', nullstr = '\\N', header = false,
         auto_detect = false, max_line_size = ${MAX_LINE_BYTES}, columns = ${spoolCsvColumns}, filename = true)`,
    );
  }
  if (files.ndjson.length > 0) {
    const legacyColumns = duckdbColumnsStruct([
      ...ENVELOPE_COLUMNS.filter((c) => c.name !== "spool_segment").map((c) => ({ ...c, name: LEGACY_LINE_COLUMNS[c.name] })),
      { name: "program", type: "VARCHAR", doc: "" },
    ]);
    selects.push(
      `SELECT ${ENVELOPE_COLUMNS.map((c) => (c.name === "spool_segment" ? SEGMENT_OF_FILENAME : `${LEGACY_LINE_COLUMNS[c.name]} AS ${c.name}`)).join(", ")},
         program, ${dayOfReceipt("receivedAt")}
       FROM read_json([${files.ndjson.map(sqlString).join(", ")}], format = 'newline_delimited', columns = ${legacyColumns}, filename = true)`,
    );
  }
  return selects.join("\nUNION ALL\n");
}

/**
 * Flush's parts are small and compaction rewrites them into 122,880-row groups; with 20 partitions
 * DuckDB wrote 30,000-row groups 20–40% faster than 122,880-row ones (measured, bench/README.md).
 */
const FLUSH_ROW_GROUP_ROWS = 30_000;

/** A spool line's largest size: 200 log lines of 2,048 characters, JSON-escaped at worst 6 bytes each, and the rest. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Most NDJSON bytes flushed in one DuckDB pass (bounds memory; larger backlogs take several passes). */
const MAX_BATCH_BYTES = 1024 * 1024 * 1024;

/**
 * Flushes every sealed segment of every node (and orphaned active ones of dead processes). The
 * sealed segments of a node are written together in one pass: DuckDB's partitioned writer pays a
 * fixed cost per output file, so one file per partition per pass instead of one per segment is
 * most of flush's speed.
 */
export async function flushSpool(deps: FlushDeps): Promise<FlushResult> {
  const result: FlushResult = { segments: 0, rows: 0 };
  if (!existsSync(deps.paths.spoolRoot)) return result;
  for (const node of readdirSync(deps.paths.spoolRoot).sort()) {
    const dir = join(deps.paths.spoolRoot, node);
    if (!statSync(dir).isDirectory()) continue;
    if (liveOwner(dir) === null) recoverActiveSegments(dir, deps.logger);
    let batch: string[] = [];
    let batchBytes = 0;
    for (const file of sealedSegmentFiles(dir)) {
      result.segments++;
      if (isSegmentCommitted(deps.control, segmentNameOf(file))) {
        unlinkSync(file); // committed before a crash; only the delete was missing
        continue;
      }
      const size = cutTornTail(file);
      if (size === 0) {
        unlinkSync(file);
        continue;
      }
      if (batch.length > 0 && batchBytes + size > MAX_BATCH_BYTES) {
        result.rows += await flushBatch(deps, batch);
        batch = [];
        batchBytes = 0;
      }
      batch.push(file);
      batchBytes += size;
    }
    if (batch.length > 0) result.rows += await flushBatch(deps, batch);
  }
  return result;
}

/**
 * One pass over sealed segments (in name order). Parts are named after the first segment: a batch
 * redone after a crash starts with the same (still uncommitted) segment and holds all the segments
 * the interrupted one held, so it replaces every part that one left.
 */
async function flushBatch(deps: FlushDeps, files: string[]): Promise<number> {
  const segments = files.map(segmentNameOf);
  const batch = segments[0];
  // One pass: NDJSON → partitioned Parquet in staging. Counts are then read back from the staged
  // Parquet (a columnar read, far cheaper than parsing the JSON twice).
  const formats = { tsv: [] as string[], ndjson: [] as string[] };
  for (const file of files) (isLegacySegment(file) ? formats.ndjson : formats.tsv).push(file);
  const { staging, parts } = await stagePartitioned(
    deps.duck,
    deps.paths,
    batch,
    spoolRowsSql(formats),
    ["program", "day"],
    FLUSH_ROW_GROUP_ROWS,
  );
  const groups = await deps.duck.all<{ spool_segment: string; day: string; account_id: string; program: string; attempts: number; last_seen: number }>(
    `SELECT spool_segment, day, account_id, program, count(*) AS attempts, max(received_at) AS last_seen
     FROM read_parquet(${sqlString(join(staging, "**", "*.parquet"))}, hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})
     GROUP BY ALL`,
  );
  const counts = new Map<string, { accountId: string; program: string; attempts: number; lastSeen: number }>();
  const perSegment = new Map<string, { rows: number; days: Set<string> }>(segments.map((segment) => [segment, { rows: 0, days: new Set<string>() }]));
  for (const group of groups) {
    const key = `${group.account_id}\n${group.program}`;
    const count = counts.get(key) ?? { accountId: group.account_id, program: group.program, attempts: 0, lastSeen: 0 };
    count.attempts += group.attempts;
    count.lastSeen = Math.max(count.lastSeen, group.last_seen);
    counts.set(key, count);
    const segment = perSegment.get(group.spool_segment);
    if (!segment) throw new Error(`flush read a row of an unexpected segment ${group.spool_segment}`);
    segment.rows += group.attempts;
    segment.days.add(group.day);
  }

  await publishStaged(
    deps.control,
    deps.paths,
    "envelopes",
    batch,
    parts,
    () =>
      deps.control.transaction(() => {
        const now = deps.clock();
        for (const [segment, { rows, days }] of perSegment) recordSegment(deps.control, segment, rows, [...days].sort(), now);
        addProgramCounts(deps.control, [...counts.values()]);
      }).immediate(),
    deps.beforeCommit ? () => deps.beforeCommit!(batch) : undefined,
  );
  for (const file of files) unlinkSync(file);
  rmSync(staging, { recursive: true, force: true });
  const rows = [...perSegment.values()].reduce((sum, s) => sum + s.rows, 0);
  deps.logger.debug("flushed segments", { segments: segments.length, rows, parts: parts.length });
  return rows;
}

/** Version 1 segments hold JSON objects; version 2 lines never start with `{` (they start with the account id). */
function isLegacySegment(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const first = Buffer.alloc(1);
    return readSync(fd, first, 0, 1, 0) === 1 && first[0] === 0x7b;
  } finally {
    closeSync(fd);
  }
}
