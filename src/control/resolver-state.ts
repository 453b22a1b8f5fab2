// The resolver's few rows of bookkeeping (docs/operations.md, "How resolving works"), none per
// attempt: which process's memory holds the current open attempts (a version written at the end
// of every run, so a process whose memory is stale reloads), the backlog it last reported (for
// /v1/status), and what a restart replays on top of the checkpoint: segments taken and batches
// committed after it. Also the one-time read of the legacy per-attempt tables an upgrade replaces.

import type { AwaitingSegment } from "./segments";
import type { ControlDb } from "./types";

export type ResolverProgress = {
  /** Names the process and run whose memory is current. */
  version: string;
  /** The run's time: segments it took and batches it committed carry it. */
  at: number;
  openAttempts: number;
  /** When the earliest open attempt is due (null: none open). */
  nextDueAt: number | null;
};

const PROGRESS_KEY = "resolver:progress";

export function resolverProgress(db: ControlDb): ResolverProgress | null {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(PROGRESS_KEY);
  return row ? (JSON.parse(row.value) as ResolverProgress) : null;
}

export function recordResolverProgress(db: ControlDb, progress: ResolverProgress): void {
  db.query("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(PROGRESS_KEY, JSON.stringify(progress));
}

/**
 * The resolver's backlog: its open attempts (waiting for the chain) as its last run reported them
 * (src/control/resolver-state.ts), and envelopes in the lake not yet taken in (segments awaiting
 * intake).
 *
 * `lagMs` is how long the oldest waiting work has waited: a look-up past its time (as of the last
 * run), or a flushed segment not yet taken in. The number of open attempts alone does not say
 * whether the resolver keeps up (a send that never lands stays open until its blockhash expires,
 * ~60-90 s, by design); a lag that stays within a few seconds does.
 */
export function resolverBacklog(
  db: ControlDb,
  now: number,
): { pendingAttempts: number; awaitingIntake: number; lagMs: number } {
  const progress = resolverProgress(db);
  const awaiting = db
    .query<{ n: number | null; oldest: number | null }, []>(
      "SELECT sum(rows) AS n, min(committed_at) AS oldest FROM lake_segments WHERE intake_at IS NULL",
    )
    .get();
  const waits = [progress?.nextDueAt ?? null, awaiting?.oldest ?? null]
    .filter((at): at is number => at !== null)
    .map((at) => now - Number(at));
  return {
    pendingAttempts: progress?.openAttempts ?? 0,
    awaitingIntake: Number(awaiting?.n ?? 0),
    // Whole milliseconds, as the status contract says: a look-up planned from the estimated block time is due at a
    // fractional one.
    lagMs: Math.round(Math.max(0, ...waits)),
  };
}

/** The latest time the resolver marked on a segment or a batch (its next run's time must be later). */
export function latestResolverMark(db: ControlDb): number {
  const segment =
    db.query<{ at: number | null }, []>("SELECT max(intake_at) AS at FROM lake_segments").get()?.at ?? null;
  const batch =
    db.query<{ at: number | null }, []>("SELECT max(created_at) AS at FROM resolution_batches").get()?.at ?? null;
  return Math.max(Number(segment ?? 0), Number(batch ?? 0));
}

/** Segments taken in after `at` (their attempts are not in a checkpoint written at `at`). */
export function segmentsTakenAfter(db: ControlDb, at: number): AwaitingSegment[] {
  return db
    .query<{ segment: string; days: string; rows: number; flush_batch: string | null }, [number]>(
      "SELECT segment, days, rows, flush_batch FROM lake_segments WHERE intake_at > ? ORDER BY intake_at, segment",
    )
    .all(at)
    .map((row) => ({
      segment: row.segment,
      days: JSON.parse(row.days) as string[],
      rows: Number(row.rows),
      flushBatch: row.flush_batch,
    }));
}

/** Resolution batches committed after `at`, with the partition directories of their parts. */
export function batchesCommittedAfter(db: ControlDb, at: number): { batch: string; partitionDirs: string[] }[] {
  return db
    .query<{ batch: string; files: string }, [number]>(
      "SELECT batch, files FROM resolution_batches WHERE committed = 1 AND created_at > ?",
    )
    .all(at)
    .map((row) => ({ batch: row.batch, partitionDirs: JSON.parse(row.files) as string[] }));
}

/** A row of the legacy per-attempt resolver queue (pending_attempts), read once by the upgrade. */
export type LegacyPendingRow = {
  attempt_id: string;
  account_id: string;
  program: string;
  sig: string;
  last_valid_block_height: number;
  sent_at: number;
  received_at: number;
  rpc_hash: string;
  rpc_label: string;
  payer: string;
  cu_price_micro_lamports: number | null;
  nonce: number;
  kind: string;
  preflight_error: string | null;
  simulation_logs: string | null;
  checks: number;
  next_check_at: number;
};

/** A row of the legacy per-attempt index (`story`: JSON of what `why` answers), read once by the upgrade. */
export type LegacyIndexRow = {
  attempt_id: string;
  sig: string | null;
  account_id: string;
  program: string;
  outcome: string;
  payer: string;
  rpc_hash: string;
  rpc_label: string;
  sent_at: number;
  resolved_at: number;
  fingerprint: string | null;
  drop_class: string | null;
  story: string;
};

/** The old queue, a page at a time (attempt id order). */
export function legacyPendingAttempts(db: ControlDb, after: string, limit: number): LegacyPendingRow[] {
  return db
    .query<LegacyPendingRow, [string, number]>(
      "SELECT * FROM pending_attempts WHERE attempt_id > ? ORDER BY attempt_id LIMIT ?",
    )
    .all(after, limit);
}

/** The old attempt index, a page at a time (attempt id order). */
export function legacyIndexedAttempts(db: ControlDb, after: string, limit: number): LegacyIndexRow[] {
  return db
    .query<LegacyIndexRow, [string, number]>(
      "SELECT attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at, fingerprint, drop_class, story FROM attempt_index WHERE attempt_id > ? ORDER BY attempt_id LIMIT ?",
    )
    .all(after, limit);
}

/** Empties the old queue and attempt index once their rows are in the resolver's checkpoint and the signature index. */
export function forgetLegacyResolverRows(db: ControlDb): void {
  db.transaction(() => {
    db.query("DELETE FROM pending_attempts").run();
    db.query("DELETE FROM attempt_index").run();
  }).immediate();
}

export function hasLegacyResolverRows(db: ControlDb): boolean {
  return (
    db.query("SELECT 1 FROM pending_attempts LIMIT 1").get() !== null ||
    db.query("SELECT 1 FROM attempt_index LIMIT 1").get() !== null
  );
}
