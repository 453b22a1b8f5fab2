// Committed spool segments. Flush records a segment here in the same step that makes its rows
// visible in the lake; a segment already recorded is never counted twice (idempotent re-flush after a
// crash). The resolver's intake reads each new segment's rows once and marks it.

import { prunedSegmentRows } from "./pruning";
import type { ControlDb } from "./types";

export function isSegmentCommitted(db: ControlDb, segment: string): boolean {
  return db.query("SELECT 1 FROM lake_segments WHERE segment = ?").get(segment) !== null;
}

/**
 * `flushBatch`: the name the segment's Parquet parts start with (part-<flushBatch>-<i>.parquet) until compaction merges
 * them.
 */
export function recordSegment(
  db: ControlDb,
  segment: string,
  rows: number,
  days: string[],
  now: number,
  flushBatch: string | null = null,
): void {
  db.query("INSERT INTO lake_segments (segment, committed_at, rows, days, flush_batch) VALUES (?, ?, ?, ?, ?)").run(
    segment,
    now,
    rows,
    JSON.stringify(days),
    flushBatch,
  );
}

export type AwaitingSegment = { segment: string; days: string[]; rows: number; flushBatch: string | null };

export function segmentsAwaitingIntake(
  db: ControlDb,
  limit = 500,
  order: "oldest first" | "newest first" = "oldest first",
): AwaitingSegment[] {
  const direction = order === "oldest first" ? "" : " DESC";
  return db
    .query<{ segment: string; days: string; rows: number; flush_batch: string | null }, [number]>(
      `SELECT segment, days, rows, flush_batch FROM lake_segments WHERE intake_at IS NULL ORDER BY committed_at${direction}, segment${direction} LIMIT ?`,
    )
    .all(limit)
    .map((row) => ({
      segment: row.segment,
      days: JSON.parse(row.days) as string[],
      rows: Number(row.rows),
      flushBatch: row.flush_batch,
    }));
}

/** Marks segments taken in by the resolver at `now` (one transaction; inside the caller's when there is one). */
export function markSegmentsTaken(db: ControlDb, segments: string[], now: number): void {
  if (segments.length === 0) return;
  const mark = db.query("UPDATE lake_segments SET intake_at = ? WHERE segment = ?");
  db.transaction(() => {
    for (const segment of segments) mark.run(now, segment);
  })();
}

/** Envelopes flushed into the lake: of the segments recorded, and of those whose records were pruned. */
export function lakeRowCount(db: ControlDb): number {
  const recorded = db.query<{ n: number | null }, []>("SELECT sum(rows) AS n FROM lake_segments").get()?.n ?? 0;
  return Number(recorded) + prunedSegmentRows(db);
}

/** When flush last committed a segment; null before the first. */
export function lastFlushAt(db: ControlDb): number | null {
  return db.query<{ at: number | null }, []>("SELECT max(committed_at) AS at FROM lake_segments").get()?.at ?? null;
}

/** Retention: records of segments taken in whose newest day is before `cutoffDay` (YYYY-MM-DD). */
export function forgetSegmentsBefore(db: ControlDb, cutoffDay: string): number {
  // `days` is a sorted JSON array of YYYY-MM-DD; its last element is the segment's newest day.
  return db
    .query("DELETE FROM lake_segments WHERE intake_at IS NOT NULL AND json_extract(days, '$[#-1]') < ?")
    .run(cutoffDay).changes;
}
