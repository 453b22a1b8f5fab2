// Intake: each newly committed spool segment's envelopes are read from the lake once, as columns,
// and become the resolver's open attempts (open-attempts.ts; sends wait for the chain, preflight
// failures resolve in the same run from their own logs). A segment is read from the parts its
// flush wrote (control migration 6), or, once compaction has merged those, from its days'
// partitions by spool_segment. The run marks the segments taken, with its time, when it records
// (in the commit of its batch: one row per segment, never per attempt); until then they still await
// intake, so a run that dies reads them again, and `why` finds their attempts in their parts. After
// a crash, segments taken since the last checkpoint are read again too (checkpoint.ts). Segments are taken in chunks of
// about INTAKE_CHUNK_ROWS envelopes with a
// pause for the event loop between chunks, and at most about INTAKE_MAX_ROWS per run: a backlog of
// millions of envelopes (a server that fell behind) is taken over several runs instead of being
// held in memory at once while ingest waits.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
import { type AwaitingSegment, segmentsAwaitingIntake } from "../../control";
import { isPartGone, readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { readLakeSql } from "../../lake/schema";
import { stringInterner } from "../../shared/intern";
import { yieldToEventLoop } from "../../shared/pause";
import type { SpoolColumn } from "../../spool";
import type { Attempt } from "./types";

/** The envelope columns intake reads from the lake (one array per column, a row per index). */
export type EnvelopeColumns = {
  attempt_id: string[];
  account_id: string[];
  program: string[];
  sig: (string | null)[];
  last_valid_block_height: number[];
  sent_at: number[];
  received_at: number[];
  rpc_hash: string[];
  rpc_label: string[];
  payer: string[];
  cu_limit: (number | null)[];
  cu_price_micro_lamports: (number | null)[];
  ix_prefix: (string | null)[];
  nonce: (boolean | null)[];
  nonce_account: (string | null)[];
  nonce_value: (string | null)[];
  kind: string[];
  preflight_error: (string | null)[];
  simulation_logs: (string[] | null)[];
};

const INTAKE_CHUNK_ROWS = 50_000;
/**
 * At most half a run's look-ups (resolve.ts MAX_ATTEMPTS_PER_RUN): a run looks up all it took in, and the open attempts
 * due again.
 */
const INTAKE_MAX_ROWS = 100_000;

const NO_ROWS = { attempt_id: [] } as unknown as EnvelopeColumns;

/**
 * `exclude`: segments a round still being recorded took in (resolve.ts): not marked taken until its commit, and not to
 * be taken twice.
 */
export type IntakeLimits = {
  maxSegments?: number;
  maxRows?: number;
  chunkRows?: number;
  exclude?: ReadonlySet<string>;
};

/**
 * `more`: segments are still waiting after this intake (it reached its caps). `chunksReadByDay`:
 * chunks whose flushed parts were gone (compacted) or unrecorded, read from their days instead.
 */
export async function intakeNewSegments(
  ctx: Context,
  take: (attempts: Attempt[]) => void,
  limits: IntakeLimits = {},
): Promise<{ segments: number; attempts: number; more: boolean; chunksReadByDay: number; names: string[] }> {
  const maxRows = limits.maxRows ?? INTAKE_MAX_ROWS;
  const chunkRows = limits.chunkRows ?? INTAKE_CHUNK_ROWS;
  const maxSegments = limits.maxSegments ?? 200;
  const exclude = limits.exclude ?? new Set<string>();
  const listed = segmentsAwaitingIntake(ctx.control, maxSegments + exclude.size);
  const waiting = exclude.size === 0 ? listed : listed.filter((s) => !exclude.has(s.segment)).slice(0, maxSegments);
  const taken = { segments: 0, attempts: 0, more: false, chunksReadByDay: 0, names: [] as string[] };
  let next = 0;
  while (next < waiting.length && taken.attempts < maxRows) {
    const chunk = [waiting[next++]];
    let rows = chunk[0].rows;
    while (next < waiting.length && rows + waiting[next].rows <= chunkRows) {
      rows += waiting[next].rows;
      chunk.push(waiting[next++]);
    }
    if (taken.segments > 0) await yieldToEventLoop();
    const read = await readSegments(ctx, chunk);
    take(read.attempts);
    taken.names.push(...chunk.map((s) => s.segment));
    taken.attempts += read.attempts.length;
    if (read.byDay) taken.chunksReadByDay++;
    taken.segments += chunk.length;
  }
  taken.more = next < waiting.length || listed.length === maxSegments + exclude.size;
  return taken;
}

/** The segments' envelopes as attempts (a segment without rows has nothing to read). */
export async function readSegments(
  ctx: Context,
  segments: AwaitingSegment[],
): Promise<{ attempts: Attempt[]; byDay: boolean }> {
  const days = [...new Set(segments.flatMap((s) => s.days))];
  const fromParts = days.length === 0 ? NO_ROWS : await readFlushedParts(ctx, segments);
  const c = fromParts ?? (await readDays(ctx, segments, days));
  return { attempts: attemptsOf(c), byDay: fromParts === null };
}

/**
 * The attempt with this signature among segments' envelopes (why, for an envelope flushed but not taken in yet); null
 * when none.
 */
export async function findInSegments(ctx: Context, segments: AwaitingSegment[], sig: string): Promise<Attempt | null> {
  // Only the parts their flush wrote (a few small files): parts already compacted are not looked at,
  // so a look-up never scans a day's partitions (those attempts are taken in within seconds anyway).
  const c = await readFlushedParts(ctx, segments, sig);
  return c === null ? null : (attemptsOf(c)[0] ?? null);
}

/**
 * An envelope read back from a spool line (decodeSpoolLine) as an attempt; null when a field is not what the spool
 * writes.
 */
export function attemptFromSpoolFields(f: Record<SpoolColumn, string | null>): Attempt | null {
  const number = (text: string | null) => (text === null ? null : Number(text));
  const attempt: Attempt = {
    attemptId: f.attempt_id ?? "",
    accountId: f.account_id ?? "",
    program: f.program ?? "",
    sig: f.sig,
    kind: f.kind === "preflight" ? "preflight" : "send",
    lastValidBlockHeight: number(f.last_valid_block_height) ?? 0,
    sentAt: number(f.sent_at) ?? 0,
    receivedAt: number(f.received_at) ?? 0,
    rpcHash: f.rpc_hash ?? "",
    rpcLabel: f.rpc_label ?? "",
    payer: f.payer ?? "",
    cuLimit: number(f.cu_limit),
    cuPriceMicroLamports: number(f.cu_price_micro_lamports),
    ixPrefix: f.ix_prefix,
    nonce: f.nonce === "true",
    nonceAccount: f.nonce === "true" ? f.nonce_account : null,
    nonceValue: f.nonce === "true" && f.nonce_account !== null ? f.blockhash : null,
    preflightError: f.preflight_error,
    simulationLogs: f.kind === "preflight" ? (JSON.parse(f.simulation_logs ?? "[]") as string[]) : null,
  };
  const numbers = [
    attempt.lastValidBlockHeight,
    attempt.sentAt,
    attempt.receivedAt,
    attempt.cuLimit ?? 0,
    attempt.cuPriceMicroLamports ?? 0,
  ];
  return attempt.attemptId && attempt.program && numbers.every(Number.isFinite) ? attempt : null;
}

/** Rows of envelope columns as attempts; the few distinct programs, providers and accounts share one string each. */
function attemptsOf(c: EnvelopeColumns): Attempt[] {
  const shared = stringInterner(Infinity);
  const attempts: Attempt[] = new Array(c.attempt_id.length);
  for (let i = 0; i < attempts.length; i++) {
    const preflight = c.kind[i] === "preflight";
    attempts[i] = {
      attemptId: c.attempt_id[i],
      accountId: shared(c.account_id[i]),
      program: shared(c.program[i]),
      sig: c.sig[i] ?? null,
      kind: preflight ? "preflight" : "send",
      lastValidBlockHeight: Number(c.last_valid_block_height[i]),
      sentAt: Number(c.sent_at[i]),
      receivedAt: Number(c.received_at[i]),
      rpcHash: shared(c.rpc_hash[i]),
      rpcLabel: shared(c.rpc_label[i]),
      payer: c.payer[i],
      cuLimit: c.cu_limit[i] === null ? null : Number(c.cu_limit[i]),
      cuPriceMicroLamports: c.cu_price_micro_lamports[i] === null ? null : Number(c.cu_price_micro_lamports[i]),
      ixPrefix: c.ix_prefix[i] ?? null,
      nonce: c.nonce[i] === true,
      nonceAccount: c.nonce_value[i] ? c.nonce_account[i] : null,
      nonceValue: c.nonce_value[i] ?? null,
      preflightError: preflight ? c.preflight_error[i] : null,
      simulationLogs: preflight ? (c.simulation_logs[i] ?? []) : null,
    };
  }
  return attempts;
}

/**
 * The columns intake reads. A durable-nonce attempt's blockhash is the nonce it was signed against: kept only for those
 * whose nonce account is known. `withNonceAccount` false: for reads of parts that all predate the nonce_account column.
 */
const envelopeColumns = (withNonceAccount: boolean) =>
  `attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer,
  cu_limit, cu_price_micro_lamports, ix_prefix, nonce, ${
    withNonceAccount
      ? "nonce_account, CASE WHEN nonce AND nonce_account IS NOT NULL THEN blockhash END AS nonce_value"
      : "NULL::VARCHAR AS nonce_account, NULL::VARCHAR AS nonce_value"
  }, kind, preflight_error, simulation_logs`;

/**
 * A read of envelope columns; again without nonce_account when none of the files read has it (union_by_name knows only
 * the columns some file has: parts flushed before it was appended).
 */
async function readEnvelopeColumns(ctx: Context, sql: (columns: string) => string): Promise<EnvelopeColumns> {
  try {
    return await readAgainAfterSwap(() => ctx.duck.columns<EnvelopeColumns>(sql(envelopeColumns(true))));
  } catch (error) {
    if (!/"nonce_account" not found/.test(String(error))) throw error;
    return await readAgainAfterSwap(() => ctx.duck.columns<EnvelopeColumns>(sql(envelopeColumns(false))));
  }
}

// union_by_name: parts flushed before a column existed (ix_prefix, lake version 2; nonce_account) lack it.
const HIVE = "hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}, union_by_name = true";
const segmentFilter = (segments: AwaitingSegment[]) =>
  `spool_segment IN (${segments.map((s) => sqlString(s.segment)).join(", ")})`;
/** Flush batches are segment names (node id, time, hex); anything else would not be a safe glob. */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * The segments' rows from the parts their flush wrote (part-<flush batch>-*.parquet in each day's
 * partitions): a read of those files only, however many parts the day holds. Null (read the days
 * instead) for segments flushed before the batch was recorded, or when compaction has merged some
 * of those parts already (fewer rows than flushed, or no file left to match).
 */
async function readFlushedParts(
  ctx: Context,
  segments: AwaitingSegment[],
  sig?: string,
): Promise<EnvelopeColumns | null> {
  const wanted: { day: string; prefix: string }[] = [];
  for (const s of segments) {
    if (s.flushBatch === null || !PLAIN_NAME.test(s.flushBatch)) return null;
    for (const day of s.days) wanted.push({ day, prefix: `part-${s.flushBatch}-` });
  }
  const files = flushedFiles(ctx.paths.dataset("envelopes"), wanted);
  if (files.length === 0) return null;
  const expected = segments.reduce((sum, s) => sum + s.rows, 0);
  try {
    const bySig = sig === undefined ? "" : ` AND sig = ${sqlString(sig)}`;
    // A few hundred files per read: DuckDB holds every file of a read open with its metadata, and a flush
    // naming 30,000 programs wrote a part in each of 30,000 partitions.
    let columns: EnvelopeColumns | null = null;
    for (let i = 0; i < files.length; i += FILES_PER_READ) {
      const group = files.slice(i, i + FILES_PER_READ);
      const read = await readEnvelopeColumns(
        ctx,
        (columns) =>
          `SELECT ${columns} FROM ${readLakeSql("envelopes", `[${group.map(sqlString).join(", ")}]`, HIVE)} WHERE ${segmentFilter(segments)}${bySig}`,
      );
      columns = columns === null ? read : appendColumns(columns, read);
    }
    return sig !== undefined || columns!.attempt_id.length === expected ? columns : null;
  } catch (error) {
    if (isPartGone(error)) return null;
    throw error;
  }
}

/** Files a single read of flushed parts takes at most. */
const FILES_PER_READ = 256;

/** The parts named `<prefix>…parquet` in each wanted day of every program's partitions. */
function flushedFiles(root: string, wanted: { day: string; prefix: string }[]): string[] {
  if (!existsSync(root)) return [];
  const byDay = new Map<string, string[]>();
  for (const { day, prefix } of wanted) byDay.set(day, [...(byDay.get(day) ?? []), prefix]);
  const files: string[] = [];
  for (const program of readdirSync(root)) {
    if (!program.startsWith("program=")) continue;
    for (const [day, prefixes] of byDay) {
      const dir = join(root, program, `day=${day}`);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir))
        if (name.endsWith(".parquet") && prefixes.some((prefix) => name.startsWith(prefix)))
          files.push(join(dir, name));
    }
  }
  return files;
}

function appendColumns(into: EnvelopeColumns, more: EnvelopeColumns): EnvelopeColumns {
  for (const key of Object.keys(into) as (keyof EnvelopeColumns)[])
    (into[key] as unknown[]) = (into[key] as unknown[]).concat(more[key] as unknown[]);
  return into;
}

/** The segments' rows wherever they are in their days' partitions (compacted or not). */
async function readDays(ctx: Context, segments: AwaitingSegment[], days: string[]): Promise<EnvelopeColumns> {
  return await readEnvelopeColumns(
    ctx,
    (
      columns,
    ) => `SELECT ${columns} FROM ${readLakeSql("envelopes", sqlString(ctx.paths.datasetGlob("envelopes")), HIVE)}
     WHERE day IN (${days.map(sqlString).join(", ")}) AND ${segmentFilter(segments)}`,
  );
}
