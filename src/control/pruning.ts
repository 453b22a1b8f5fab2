// The control database's own upkeep: each table that grows with operation loses, by a rule of its own,
// the rows nothing can need again (docs/operations.md, "What the control database keeps"). The hourly
// retention job (src/jobs/retention.ts) applies them whether or not TXRAY_RETENTION_DAYS is set: that
// setting governs the lake's data and the rows that describe it (provider and issue hours, fetched
// transactions), these rules govern bookkeeping.
//
// Tables without a function here are bounded already: accounts, keys and programs by what operators
// create; leases and settings in meta; block_heights (a day, pruned as observations are recorded);
// alert deliveries, states and removed rules (the alerts job, pruneAlertHistory); ingest_nodes (a row
// per node, removed when it stops); quarantined_segments (a row per segment set aside, for an operator);
// the legacy pending_attempts and attempt_index (emptied by the upgrade that replaced them).

import type { ControlDb } from "./types";

/** Bookkeeping of the resolver and of flush older than this may go (once nothing refers to it). */
export const CONTROL_HISTORY_MS = 7 * 86_400_000;
/** Runs kept per job: /v1/status reads the latest, /metrics the last 200. */
export const JOB_RUNS_KEPT = 200;
/** A seal request older than this was left by a requester that died (requests are answered in seconds). */
export const SEAL_REQUEST_HISTORY_MS = 86_400_000;

/** Rows of flushed segments pruned, per newest day, kept so lakeRowCount still counts the lake's envelopes. */
const PRUNED_ROWS_KEY = "lake-segments:pruned-rows:";

/**
 * What the resolver's restart and the lake still refer to, gathered by the caller:
 * `checkpointThrough`, the time of the resolver's checkpoint (null: none, and a restart replays every
 * segment and batch); `batchesInUse`, the publish batches that still name a Parquet part in the lake
 * (part-<batch>-<i>.parquet) or a signature index run.
 */
export type ControlReferences = {
  checkpointThrough: number | null;
  batchesInUse: ReadonlySet<string>;
  /**
   * Segments whose spool file is still on disk (a node that crashed between commit and removal and
   * has not run since): their record is what stops that node's flush taking them again.
   */
  segmentsInSpool?: ReadonlySet<string>;
};

/**
 * resolution_batches: a row per resolve run (up to one every few seconds). A committed batch goes once
 * it is older than `before`, older than the checkpoint (a restart replays only batches committed after
 * it), and no lake part (compaction merges a part only while its batch reads as committed) nor signature
 * index run (a run counts only while its batch reads as committed) bears its name. Uncommitted batches
 * stay for the resolver's next run to remove with their parts; the newest stays, as the resolver's mark.
 */
export function pruneResolutionBatches(db: ControlDb, before: number, references: ControlReferences): number {
  if (references.checkpointThrough === null) return 0;
  const horizon = Math.min(before, references.checkpointThrough);
  return db
    .transaction(() => {
      const candidates = db
        .query<{ batch: string }, [number]>(
          `SELECT batch FROM resolution_batches WHERE committed = 1 AND created_at < ?
             AND created_at < (SELECT max(created_at) FROM resolution_batches)`,
        )
        .all(horizon)
        .filter((row) => !references.batchesInUse.has(row.batch));
      const drop = db.query("DELETE FROM resolution_batches WHERE batch = ?");
      for (const row of candidates) drop.run(row.batch);
      return candidates.length;
    })
    .immediate();
}

/**
 * lake_segments: a row per flushed spool segment (one every few seconds per ingest node). A record goes
 * once the resolver took the segment in before `before` and before its checkpoint (a restart replays
 * segments taken after it), it was committed before `before` (a flush long since removed a spool file
 * it left behind, which the record would otherwise flush again), and its parts are compacted away (the
 * tables job took them in; compaction merges only committed parts). Its rows are added to a count per
 * newest day, so that lakeRowCount keeps counting them until retention removes that day; the newest
 * record stays (the time of the last flush).
 */
export function pruneLakeSegments(db: ControlDb, before: number, references: ControlReferences): number {
  if (references.checkpointThrough === null) return 0;
  const horizon = Math.min(before, references.checkpointThrough);
  return db
    .transaction(() => {
      const candidates = db
        .query<{ segment: string; rows: number; days: string; flush_batch: string | null }, [number, number]>(
          `SELECT segment, rows, days, flush_batch FROM lake_segments
           WHERE intake_at IS NOT NULL AND intake_at < ? AND committed_at < ?
             AND committed_at < (SELECT max(committed_at) FROM lake_segments)`,
        )
        .all(horizon, before)
        .filter(
          (row) =>
            !references.batchesInUse.has(row.segment) &&
            !references.segmentsInSpool?.has(row.segment) &&
            (row.flush_batch === null || !references.batchesInUse.has(row.flush_batch)),
        );
      const rowsByDay = new Map<string, number>();
      const drop = db.query("DELETE FROM lake_segments WHERE segment = ?");
      for (const row of candidates) {
        const days = JSON.parse(row.days) as string[];
        const newest = days.at(-1) ?? "";
        rowsByDay.set(newest, (rowsByDay.get(newest) ?? 0) + Number(row.rows));
        drop.run(row.segment);
      }
      const read = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?");
      const write = db.query("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
      for (const [day, rows] of rowsByDay) {
        const key = PRUNED_ROWS_KEY + day;
        write.run(key, String(Number(read.get(key)?.value ?? 0) + rows));
      }
      return candidates.length;
    })
    .immediate();
}

/** Envelopes of pruned segment records still in the lake (their days not removed by retention). */
export function prunedSegmentRows(db: ControlDb): number {
  return db
    .query<{ value: string }, [string]>("SELECT value FROM meta WHERE key LIKE ?")
    .all(`${PRUNED_ROWS_KEY}%`)
    .reduce((sum, row) => sum + Number(row.value), 0);
}

/** Retention: the counts of pruned segment records whose newest day is before `cutoffDay` (YYYY-MM-DD). */
export function forgetPrunedSegmentRowsBefore(db: ControlDb, cutoffDay: string): number {
  return db
    .query("DELETE FROM meta WHERE key LIKE ? AND key < ?")
    .run(`${PRUNED_ROWS_KEY}%`, PRUNED_ROWS_KEY + cutoffDay).changes;
}

/**
 * job_runs: a row per run of each job (the resolver's every few seconds). Each job keeps its last
 * `keep`; ending a run trims its own job, this trims the rest (a run that never ended, a job no longer
 * scheduled).
 */
export function pruneJobRuns(db: ControlDb, keep = JOB_RUNS_KEPT): number {
  return db
    .transaction(() => {
      const jobs = db.query<{ job: string }, []>("SELECT DISTINCT job FROM job_runs").all();
      const trim = db.query(
        "DELETE FROM job_runs WHERE job = ? AND id <= (SELECT id FROM job_runs WHERE job = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
      );
      let removed = 0;
      for (const { job } of jobs) removed += trim.run(job, job, keep).changes;
      return removed;
    })
    .immediate();
}

/**
 * seal_requests: a row per flush on demand and ingest node; its requester deletes it when done. What
 * a requester that died left behind goes after `before`.
 */
export function pruneSealRequests(db: ControlDb, before: number): number {
  return db.query("DELETE FROM seal_requests WHERE requested_at < ?").run(before).changes;
}
