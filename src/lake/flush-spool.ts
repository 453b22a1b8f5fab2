// Flush: sealed spool segments → Hive-partitioned, zstd Parquet parts (docs/architecture.md, "Durability").
//
// Per pass: the native writer (src/lake/native; DuckDB when it is unavailable or declines the
// pass) reads the sealed segments and writes partitioned Parquet into a staging directory; then,
// under the lake lease, the parts are renamed into place and the segments are recorded in the
// control database (with per-account program counts) before the spool files are deleted. Part
// names are derived from the first segment's name, so redoing a half-done flush overwrites the same
// files: a crash at any step loses nothing acknowledged and duplicates nothing.
// Before a segment is read its checksums are verified (src/spool/frames.ts): a segment with a
// torn or corrupted batch is read through a copy in staging holding only its verified batches (the
// spool file itself is never rewritten, so a redo after a crash makes the same copy).
// A segment whose rows DuckDB cannot read (a batch that passed its checksum but does not parse, or a
// legacy segment without checksums) is set aside whole into the node's quarantine directory,
// recorded and logged, and the other segments of its pass are flushed: it never blocks flush
// (docs/lake.md, "Quarantined segments").

import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ControlDb } from "../control";
import {
  addProgramCounts,
  addSpoolIntegrity,
  isSegmentCommitted,
  recordQuarantinedSegment,
  recordSegment,
  withLease,
} from "../control";
import { ENVELOPE_FIELDS } from "../shared/envelope-fields";
import { fault } from "../shared/fault";
import type { Logger } from "../shared/logger";
import { checkStop } from "../shared/stop";
import {
  checkFrames,
  cutTornTail,
  type FrameCheck,
  hasFrames,
  liveOwner,
  moveToQuarantine,
  quarantinedPathOf,
  recoverActiveSegments,
  removeSegment,
  SPOOL_COLUMNS,
  SPOOL_TEXT_COLUMNS,
  sealedSegmentFiles,
  segmentLineCount,
  segmentNameOf,
  writeVerifiedCopy,
} from "../spool";
import { type Duck, sqlString } from "./duckdb";
import type { NativeFlushWriter, StagedGroup } from "./native";
import type { DataPaths } from "./paths";
import { publishStaged, type StagedPart, stagePartitioned } from "./publish";
import {
  duckdbColumnsStruct,
  ENVELOPE_COLUMNS,
  INSTANT,
  inputType,
  instantSql,
  readLakeSql,
  storedSql,
} from "./schema";
import { sweepStaging } from "./staging";

export type FlushDeps = {
  paths: DataPaths;
  duck: Duck;
  control: ControlDb;
  logger: Logger;
  clock: () => number;
  /** The native Parquet writer (src/lake/native); absent or null: DuckDB writes every pass. */
  flushWriter?: NativeFlushWriter | null;
  /** Test hook: called after the parts are renamed in, before the segment is recorded (simulates a crash there). */
  beforeCommit?: (segment: string) => void;
  /** Graceful shutdown: stop between passes (a pass already begun is finished). */
  signal?: AbortSignal;
};
/**
 * corruptFrames / tornBytes: present when flush skipped damaged or torn batches (src/spool/frames.ts);
 * quarantined: segments set aside because their rows cannot be read.
 */
export type FlushResult = {
  segments: number;
  rows: number;
  corruptFrames?: number;
  tornBytes?: number;
  quarantined?: number;
};
/**
 * A segment of a pass: the spool file (deleted once committed) and the file flush reads (a verified copy when it needed
 * one).
 */
type SegmentInput = { file: string; read: string; check: FrameCheck | null };

/** Version 1 spool segments (NDJSON, camelCase API names), still read after an upgrade. */
const LEGACY_LINE_COLUMNS: Record<string, string> = {
  attempt_id: "attemptId",
  account_id: "accountId",
  received_at: "receivedAt",
  ...Object.fromEntries(ENVELOPE_FIELDS.map(({ name, lake }) => [lake.column, name])),
};

const columnType = (name: string) =>
  name === "program" ? "VARCHAR" : inputType(ENVELOPE_COLUMNS.find((c) => c.name === name)!);
/** Every spool column is read as text where the line may hold an encoded value, else in its lake type. */
const spoolCsvColumns =
  "{" +
  SPOOL_COLUMNS.map(
    (name) => `${name}: '${SPOOL_TEXT_COLUMNS.has(name) || name === "simulation_logs" ? "VARCHAR" : columnType(name)}'`,
  ).join(", ") +
  "}";
const SEGMENT_OF_FILENAME = `regexp_extract(filename, '([^/]+)\\.sealed$', 1) AS spool_segment`;
/** `day`: the UTC date of the receive time (Unix ms). */
const dayOfReceipt = (column: string) => `strftime(make_timestamp(${column} * 1000), '%Y-%m-%d') AS day`;

/** The lake column from its spool encoding (src/spool/line-format.ts): JSON only where the writer used it. */
function decodedColumn(name: string): string {
  if (name === "spool_segment") return SEGMENT_OF_FILENAME;
  if (name === "simulation_logs")
    return `CASE WHEN simulation_logs = '[]' THEN []::VARCHAR[] ELSE from_json(simulation_logs, '["VARCHAR"]') END AS simulation_logs`;
  if (SPOOL_TEXT_COLUMNS.has(name))
    return `CASE WHEN starts_with(${name}, '"') THEN json_extract_string(${name}, '$') ELSE ${name} END AS ${name}`;
  const column = ENVELOPE_COLUMNS.find((c) => c.name === name)!;
  return column.type === INSTANT ? `${instantSql(name)} AS ${name}` : name;
}

/** Rows of the lake's envelope columns plus `program` and `day`, from sealed segments of both spool formats. */
export function spoolRowsSql(files: { tsv: string[]; ndjson: string[] }): string {
  const selects: string[] = [];
  if (files.tsv.length > 0) {
    selects.push(
      `SELECT ${ENVELOPE_COLUMNS.map((c) => decodedColumn(c.name)).join(", ")}, program, ${dayOfReceipt("received_at")}
       FROM read_csv([${files.tsv.map(sqlString).join(", ")}], delim = '\t', quote = '', escape = '', nullstr = '\\N', header = false,
         auto_detect = false, max_line_size = ${MAX_LINE_BYTES}, columns = ${spoolCsvColumns}, null_padding = true, filename = true)`,
    );
  }
  if (files.ndjson.length > 0) {
    const legacyColumns = duckdbColumnsStruct([
      ...ENVELOPE_COLUMNS.filter((c) => c.name !== "spool_segment").map((c) => ({
        ...c,
        name: LEGACY_LINE_COLUMNS[c.name],
      })),
      { name: "program", type: "VARCHAR", doc: "" },
    ]);
    selects.push(
      `SELECT ${ENVELOPE_COLUMNS.map((c) => (c.name === "spool_segment" ? SEGMENT_OF_FILENAME : `${storedSql(c, LEGACY_LINE_COLUMNS[c.name])} AS ${c.name}`)).join(", ")},
         program, ${dayOfReceipt("receivedAt")}
       FROM read_json([${files.ndjson.map(sqlString).join(", ")}], format = 'newline_delimited', columns = ${legacyColumns}, filename = true)`,
    );
  }
  return selects.join("\nUNION ALL\n");
}

/**
 * Flush's parts are small and compaction rewrites them into 122,880-row groups; with 20 partitions
 * DuckDB writes 30,000-row groups 20–40% faster than 122,880-row ones (measured with bench flush).
 */
const FLUSH_ROW_GROUP_ROWS = 30_000;

/** A spool line's largest size: 200 log lines of 2,048 characters, JSON-escaped at worst 6 bytes each, and the rest. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/**
 * Most spool bytes flushed in one pass (bounds memory; larger backlogs take several passes).
 * DuckDB streams; the native writer maps the segments and holds a pass's compressed pages (about
 * 0.27 byte per spool byte) until it writes them.
 */
const MAX_BATCH_BYTES = 1024 * 1024 * 1024;
const NATIVE_MAX_BATCH_BYTES = 512 * 1024 * 1024;

/**
 * Flushes every sealed segment of every node (and orphaned active ones of dead processes). The
 * sealed segments of a node are written together in one pass: DuckDB's partitioned writer pays a
 * fixed cost per output file, so one file per partition per pass instead of one per segment is
 * most of flush's speed.
 */
export async function flushSpool(deps: FlushDeps): Promise<FlushResult> {
  const result: FlushResult = { segments: 0, rows: 0 };
  sweepStaging(deps.paths, "flush"); // what a killed pass left (its redo stages everything again)
  if (!existsSync(deps.paths.spoolRoot)) return result;
  const maxBatchBytes = deps.flushWriter ? NATIVE_MAX_BATCH_BYTES : MAX_BATCH_BYTES;
  for (const node of readdirSync(deps.paths.spoolRoot).sort()) {
    const dir = join(deps.paths.spoolRoot, node);
    if (!statSync(dir).isDirectory()) continue;
    if (liveOwner(dir) === null) recoverActiveSegments(dir, deps.logger);
    let batch: SegmentInput[] = [];
    let batchBytes = 0;
    for (const file of sealedSegmentFiles(dir)) {
      result.segments++;
      if (isSegmentCommitted(deps.control, segmentNameOf(file))) {
        removeSegment(file); // committed before a crash; only the delete was missing
        continue;
      }
      const input = verifiedInput(deps, file);
      const size = input.read === file ? statSync(file).size : statSync(input.read).size;
      if (input.check?.corruptFrames) result.corruptFrames = (result.corruptFrames ?? 0) + input.check.corruptFrames;
      if (input.check?.tornBytes) result.tornBytes = (result.tornBytes ?? 0) + input.check.tornBytes;
      if (size === 0 && !input.check) {
        removeSegment(file);
        continue;
      }
      if (batch.length > 0 && batchBytes + size > maxBatchBytes) {
        checkStop(deps.signal);
        result.rows += await flushOrSetAside(deps, batch, result);
        batch = [];
        batchBytes = 0;
      }
      batch.push(input);
      batchBytes += size;
    }
    checkStop(deps.signal);
    if (batch.length > 0) result.rows += await flushOrSetAside(deps, batch, result);
  }
  return result;
}

/**
 * A segment ready to read: a legacy one with its torn last line cut; a checksummed one as it is
 * when every batch verifies, else through a copy of its verified batches (logged and counted).
 */
function verifiedInput(deps: FlushDeps, file: string): SegmentInput {
  if (!hasFrames(file)) {
    cutTornTail(file);
    return { file, read: file, check: null };
  }
  const check = checkFrames(file);
  if (check.intact) return { file, read: file, check: null };
  const segment = segmentNameOf(file);
  const copy = writeVerifiedCopy(file, check, join(deps.paths.staging, `verified-${segment}`), segment);
  const log = check.corruptFrames > 0 ? deps.logger.error : deps.logger.info;
  log(
    check.corruptFrames > 0
      ? "spool segment has corrupted batches; they are skipped"
      : "spool segment has a torn last batch (never acknowledged); it is skipped",
    {
      segment,
      corruptFrames: check.corruptFrames,
      corruptBytes: check.corruptBytes,
      tornBytes: check.tornBytes,
      keptBytes: copy.bytes,
    },
  );
  return { file, read: copy.file, check };
}

/**
 * A pass, and when DuckDB cannot read its rows: each segment is read alone (every column converted,
 * nothing written); those that fail are set aside and the pass is redone without them. A failure no
 * single segment reproduces (a full disk, a DuckDB fault) is thrown as it is: the pass is retried on
 * the next run with nothing set aside.
 */
async function flushOrSetAside(deps: FlushDeps, inputs: SegmentInput[], result: FlushResult): Promise<number> {
  try {
    return await flushBatch(deps, inputs);
  } catch (error) {
    if (!isUnreadableInput(error)) throw error;
    rmSync(join(deps.paths.staging, segmentNameOf(inputs[0].file)), { recursive: true, force: true });
    const unreadable: { input: SegmentInput; reason: string }[] = [];
    for (const input of inputs) {
      const reason = await readProblem(deps, input);
      if (reason !== null) unreadable.push({ input, reason });
    }
    if (unreadable.length === 0) throw error;
    for (const { input, reason } of unreadable) await setAside(deps, input, reason);
    result.quarantined = (result.quarantined ?? 0) + unreadable.length;
    const rest = inputs.filter((input) => !unreadable.some((bad) => bad.input === input));
    return rest.length > 0 ? await flushOrSetAside(deps, rest, result) : 0;
  }
}

/**
 * DuckDB's errors about the input itself (a value that does not convert, a malformed line), as opposed to I/O or
 * resources.
 */
function isUnreadableInput(error: unknown): boolean {
  return /^(Conversion Error|Invalid Input Error)\b/.test(error instanceof Error ? error.message : String(error));
}

/** Why DuckDB cannot read this segment's rows (the error's first line), or null when it can. */
async function readProblem(deps: FlushDeps, input: SegmentInput): Promise<string | null> {
  if (statSync(input.read).size === 0) return null;
  const formats = isLegacySegment(input.read) ? { tsv: [], ndjson: [input.read] } : { tsv: [input.read], ndjson: [] };
  try {
    // hash(t) takes every column of the row: without it DuckDB skips converting the columns a count does not need.
    await deps.duck.all(`SELECT count(*) AS n, max(hash(t)) AS h FROM (${spoolRowsSql(formats)}) t`);
    return null;
  } catch (error) {
    if (!isUnreadableInput(error)) throw error;
    return (error as Error).message.split("\n")[0].slice(0, 300);
  }
}

/**
 * Sets a segment aside: recorded in the control database, then moved with its sidecar into the
 * node's quarantine directory, both under the lake lease (a backup sees it in the spool or in
 * quarantine, never counted in neither), and logged with its path and envelope count.
 */
async function setAside(deps: FlushDeps, input: SegmentInput, reason: string): Promise<void> {
  const segment = segmentNameOf(input.file);
  const entry = {
    segment,
    at: deps.clock(),
    path: quarantinedPathOf(input.file),
    envelopes: segmentLineCount(input.file),
    bytes: statSync(input.file).size,
    reason,
  };
  await withLease(deps.control, "lake", () => {
    recordQuarantinedSegment(deps.control, entry);
    moveToQuarantine(input.file);
  });
  if (input.read !== input.file) rmSync(dirname(input.read), { recursive: true, force: true });
  deps.logger.error("spool segment cannot be read; it is set aside (quarantined) and not retried", entry);
}

/**
 * One pass over sealed segments (in name order). Parts are named after the first segment: a batch
 * redone after a crash starts with the same (still uncommitted) segment and holds all the segments
 * the interrupted one held, so it replaces every part that one left.
 */
async function flushBatch(deps: FlushDeps, inputs: SegmentInput[]): Promise<number> {
  const files = inputs.map((input) => input.read).filter((file) => statSync(file).size > 0);
  const segments = inputs.map((input) => segmentNameOf(input.file));
  const batch = segments[0];
  // One pass: spool → partitioned Parquet in staging, by the native writer when it takes the
  // pass, else by DuckDB; either also says how many rows each (segment, day, account, program) had.
  const formats = { tsv: [] as string[], ndjson: [] as string[] };
  for (const file of files) (isLegacySegment(file) ? formats.ndjson : formats.tsv).push(file);
  const { staging, parts, groups } =
    files.length === 0
      ? { staging: join(deps.paths.staging, batch), parts: [], groups: [] }
      : (formats.ndjson.length === 0 && (await nativeStage(deps, files, batch))) ||
        (await duckdbStage(deps, formats, batch));
  fault("flush:after-stage");
  const counts = new Map<string, { accountId: string; program: string; attempts: number; lastSeen: number }>();
  const perSegment = new Map<string, { rows: number; days: Set<string> }>(
    segments.map((segment) => [segment, { rows: 0, days: new Set<string>() }]),
  );
  for (const group of groups) {
    const key = `${group.accountId}\n${group.program}`;
    const count = counts.get(key) ?? { accountId: group.accountId, program: group.program, attempts: 0, lastSeen: 0 };
    count.attempts += group.attempts;
    count.lastSeen = Math.max(count.lastSeen, group.lastSeen);
    counts.set(key, count);
    const segment = perSegment.get(group.segment);
    if (!segment) throw new Error(`flush read a row of an unexpected segment ${group.segment}`);
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
      deps.control
        .transaction(() => {
          const now = deps.clock();
          for (const [segment, { rows, days }] of perSegment)
            recordSegment(deps.control, segment, rows, [...days].sort(), now, batch);
          for (const input of inputs)
            if (input.check) addSpoolIntegrity(deps.control, segmentNameOf(input.file), input.check, now);
          addProgramCounts(deps.control, [...counts.values()]);
        })
        .immediate(),
    () => {
      fault("flush:after-rename");
      deps.beforeCommit?.(batch);
    },
  );
  fault("flush:after-commit");
  // Committed: the segments and the (now empty) staging go, together (a crash here only leaves
  // committed segments, which the next pass deletes).
  for (const input of inputs) removeSegment(input.file);
  await Promise.all([
    rm(staging, { recursive: true, force: true }),
    ...inputs
      .filter((input) => input.read !== input.file)
      .map((input) => rm(dirname(input.read), { recursive: true, force: true })),
  ]);
  const rows = [...perSegment.values()].reduce((sum, s) => sum + s.rows, 0);
  deps.logger.debug("flushed segments", { segments: segments.length, rows, parts: parts.length });
  return rows;
}

type Staged = { staging: string; parts: StagedPart[]; groups: StagedGroup[] };

/**
 * DuckDB writes the pass; the counts are then read back from the staged Parquet (a columnar read, far cheaper than
 * parsing the spool twice).
 */
async function duckdbStage(
  deps: FlushDeps,
  formats: { tsv: string[]; ndjson: string[] },
  batch: string,
): Promise<Staged> {
  const { staging, parts } = await stagePartitioned(
    deps.duck,
    deps.paths,
    batch,
    spoolRowsSql(formats),
    ["program", "day"],
    FLUSH_ROW_GROUP_ROWS,
  );
  const groups = await deps.duck.all<StagedGroup>(
    `SELECT spool_segment AS segment, day, account_id AS "accountId", program, count(*) AS attempts, max(received_at) AS "lastSeen"
     FROM ${readLakeSql("envelopes", sqlString(join(staging, "**", "*.parquet")), "hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}")}
     GROUP BY ALL`,
  );
  return { staging, parts, groups };
}

/** The native writer writes the pass; null when there is none or it declined a line (DuckDB then writes it). */
async function nativeStage(deps: FlushDeps, files: string[], batch: string): Promise<Staged | null> {
  if (!deps.flushWriter) return null;
  const staging = join(deps.paths.staging, batch);
  rmSync(staging, { recursive: true, force: true });
  const written = await deps.flushWriter.write(
    files.map((file) => ({ file, name: segmentNameOf(file) })),
    staging,
    batch,
  );
  if (written === null) deps.logger.info("native flush writer declined a line; DuckDB writes this pass", { batch });
  return written === null ? null : { staging, ...written };
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
