// Intake: each newly committed spool segment's envelopes are read from the lake once and queued in
// the control DB's pending_attempts (sends wait for the chain; preflight failures resolve on the
// next step from their own logs). A segment is read from the parts its flush wrote (control
// migration 6), or, once compaction has merged those, from its days' partitions by spool_segment.
// Segments are taken in chunks of about INTAKE_CHUNK_ROWS envelopes, each chunk read, queued and
// marked in one commit, with a pause for the event loop between chunks, and at most about
// INTAKE_MAX_ROWS per run: a backlog of millions of envelopes (a server that fell behind) is taken
// over several runs instead of being held in memory at once while ingest waits.

import { join } from "node:path";
import { queueAttempts, segmentsAwaitingIntake, type AwaitingSegment, type EnvelopeColumns } from "../../control";
import type { Context } from "../../context";
import { isPartGone, readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { yieldToEventLoop } from "./pause";

const INTAKE_CHUNK_ROWS = 50_000;
const INTAKE_MAX_ROWS = 200_000;

const NO_ROWS = { attempt_id: [] } as unknown as EnvelopeColumns;

export type IntakeLimits = { maxSegments?: number; maxRows?: number; chunkRows?: number };

/**
 * `more`: segments are still waiting after this intake (it reached its caps). `chunksReadByDay`:
 * chunks whose flushed parts were gone (compacted) or unrecorded, read from their days instead.
 */
export async function intakeNewSegments(ctx: Context, limits: IntakeLimits = {}): Promise<{ segments: number; attempts: number; more: boolean; chunksReadByDay: number }> {
  const maxRows = limits.maxRows ?? INTAKE_MAX_ROWS;
  const chunkRows = limits.chunkRows ?? INTAKE_CHUNK_ROWS;
  const maxSegments = limits.maxSegments ?? 200;
  const waiting = segmentsAwaitingIntake(ctx.control, maxSegments);
  const taken = { segments: 0, attempts: 0, more: false, chunksReadByDay: 0 };
  let next = 0;
  while (next < waiting.length && taken.attempts < maxRows) {
    const chunk = [waiting[next++]];
    let rows = chunk[0].rows;
    while (next < waiting.length && rows + waiting[next].rows <= chunkRows) {
      rows += waiting[next].rows;
      chunk.push(waiting[next++]);
    }
    if (taken.segments > 0) await yieldToEventLoop();
    const read = await intakeSegments(ctx, chunk);
    taken.attempts += read.rows;
    if (read.byDay) taken.chunksReadByDay++;
    taken.segments += chunk.length;
  }
  taken.more = next < waiting.length || waiting.length === maxSegments;
  return taken;
}

async function intakeSegments(ctx: Context, segments: AwaitingSegment[]): Promise<{ rows: number; byDay: boolean }> {
  const days = [...new Set(segments.flatMap((s) => s.days))];
  // Segments without rows (no days) have nothing to read.
  const fromParts = days.length === 0 ? NO_ROWS : await readFlushedParts(ctx, segments);
  const c = fromParts ?? (await readDays(ctx, segments, days));
  // Due from the moment it is taken in: first in, first looked up, and the resolver's lag (how long
  // the oldest due look-up has waited, /v1/status) counts from here.
  queueAttempts(ctx.control, c, segments.map((s) => s.segment), ctx.clock());
  return { rows: c.attempt_id.length, byDay: fromParts === null };
}

const ENVELOPE_COLUMNS = `attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer,
  cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs`;
const HIVE = "hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}";
const segmentFilter = (segments: AwaitingSegment[]) => `spool_segment IN (${segments.map((s) => sqlString(s.segment)).join(", ")})`;
/** Flush batches are segment names (node id, time, hex); anything else would not be a safe glob. */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * The segments' rows from the parts their flush wrote (part-<flush batch>-*.parquet in each day's
 * partitions): a read of those files only, however many parts the day holds. Null (read the days
 * instead) for segments flushed before the batch was recorded, or when compaction has merged some
 * of those parts already (fewer rows than flushed, or no file left to match).
 */
async function readFlushedParts(ctx: Context, segments: AwaitingSegment[]): Promise<EnvelopeColumns | null> {
  const globs = new Set<string>();
  for (const s of segments) {
    if (s.flushBatch === null || !PLAIN_NAME.test(s.flushBatch)) return null;
    for (const day of s.days) globs.add(join(ctx.paths.dataset("envelopes"), "program=*", `day=${day}`, `part-${s.flushBatch}-*.parquet`));
  }
  const expected = segments.reduce((sum, s) => sum + s.rows, 0);
  try {
    const sql = `SELECT ${ENVELOPE_COLUMNS} FROM read_parquet([${[...globs].map(sqlString).join(", ")}], ${HIVE}) WHERE ${segmentFilter(segments)}`;
    const columns = await readAgainAfterSwap(() => ctx.duck.columns<EnvelopeColumns>(sql));
    return columns.attempt_id.length === expected ? columns : null;
  } catch (error) {
    if (isPartGone(error)) return null;
    throw error;
  }
}

/** The segments' rows wherever they are in their days' partitions (compacted or not). */
async function readDays(ctx: Context, segments: AwaitingSegment[], days: string[]): Promise<EnvelopeColumns> {
  const sql = `SELECT ${ENVELOPE_COLUMNS} FROM read_parquet(${sqlString(ctx.paths.datasetGlob("envelopes"))}, ${HIVE})
     WHERE day IN (${days.map(sqlString).join(", ")}) AND ${segmentFilter(segments)}`;
  return await readAgainAfterSwap(() => ctx.duck.columns<EnvelopeColumns>(sql));
}
