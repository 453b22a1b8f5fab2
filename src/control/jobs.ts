// Job runs: every scheduled or manual run is recorded so /v1/status can show each job's last run,
// its outcome and duration.

import { JOB_RUNS_KEPT } from "./pruning";
import type { ControlDb } from "./types";

/** A finished run of a job: when it started, how it ended, and what it reported. */
export type FinishedJobRun = {
  startedAt: number;
  ok: boolean;
  durationMs: number | null;
  error: string | null;
  details: unknown;
};

/**
 * The latest run of a job. `lastFinished`: while that run is still going (`ok` null), the latest
 * one that ended, so that a job running back to back (a resolver behind) still shows where its
 * time went; null otherwise.
 */
export type JobRun = {
  lastRunAt: number;
  ok: boolean | null;
  durationMs: number | null;
  error: string | null;
  details: unknown;
  lastFinished: FinishedJobRun | null;
};

export function recordJobStart(db: ControlDb, job: string, now: number): number {
  return db
    .query<{ id: number }, [string, number]>("INSERT INTO job_runs (job, started_at) VALUES (?, ?) RETURNING id")
    .get(job, now)!.id;
}

export function recordJobEnd(
  db: ControlDb,
  runId: number,
  result: { ok: boolean; durationMs: number; error?: string; details?: unknown },
  now: number,
): void {
  db.query("UPDATE job_runs SET finished_at = ?, ok = ?, duration_ms = ?, error = ?, details = ? WHERE id = ?").run(
    now,
    result.ok ? 1 : 0,
    result.durationMs,
    result.error ?? null,
    result.details === undefined ? null : JSON.stringify(result.details),
    runId,
  );
  // Keep history bounded: the last 200 runs of each job.
  db.query(
    `DELETE FROM job_runs WHERE job = (SELECT job FROM job_runs WHERE id = ?) AND id <= (SELECT id FROM job_runs WHERE job = (SELECT job FROM job_runs WHERE id = ?) ORDER BY id DESC LIMIT 1 OFFSET ${JOB_RUNS_KEPT})`,
  ).run(runId, runId);
}

/** Failed runs of each job since its last successful one (jobs whose last run succeeded are absent). */
export function consecutiveFailures(db: ControlDb): Record<string, number> {
  const rows = db
    .query<{ job: string; n: number }, []>(
      `SELECT job, count(*) AS n FROM job_runs r
       WHERE ok = 0 AND id > coalesce((SELECT max(id) FROM job_runs s WHERE s.job = r.job AND s.ok = 1), 0) GROUP BY job`,
    )
    .all();
  return Object.fromEntries(rows.map((row) => [row.job, row.n]));
}

/** The details of a job's latest successful run; null when it never succeeded (or recorded none). */
export function lastSuccessDetails(db: ControlDb, job: string): unknown {
  const row = db
    .query<{ details: string | null }, [string]>(
      "SELECT details FROM job_runs WHERE job = ? AND ok = 1 ORDER BY id DESC LIMIT 1",
    )
    .get(job);
  return row?.details ? JSON.parse(row.details) : null;
}

/** The latest run of each job, with the latest finished one while it is still going. */
export function lastJobRuns(db: ControlDb): Record<string, JobRun> {
  type Row = {
    job: string;
    id: number;
    started_at: number;
    ok: number | null;
    duration_ms: number | null;
    error: string | null;
    details: string | null;
  };
  // Per job, newest first: its latest run and, when that one has not ended, the latest that has.
  const rows = db
    .query<Row, []>(
      `SELECT job, id, started_at, ok, duration_ms, error, details FROM job_runs
       WHERE id IN (SELECT max(id) FROM job_runs GROUP BY job UNION SELECT max(id) FROM job_runs WHERE ok IS NOT NULL GROUP BY job)
       ORDER BY job, id DESC`,
    )
    .all();
  const detailsOf = (row: Row) => (row.details === null ? null : JSON.parse(row.details));
  const out: Record<string, JobRun> = {};
  for (const row of rows) {
    const latest = out[row.job];
    if (latest === undefined) {
      out[row.job] = {
        lastRunAt: row.started_at,
        ok: row.ok === null ? null : row.ok === 1,
        durationMs: row.duration_ms,
        error: row.error,
        details: detailsOf(row),
        lastFinished: null,
      };
    } else {
      latest.lastFinished = {
        startedAt: row.started_at,
        ok: row.ok === 1,
        durationMs: row.duration_ms,
        error: row.error,
        details: detailsOf(row),
      };
    }
  }
  return out;
}

/**
 * Since when a job has been failing: the start of its first failed run after its last success and
 * its latest error; null when its latest run succeeded (or it never ran).
 */
export function failingSince(db: ControlDb, job: string): { since: number; error: string | null } | null {
  const row = db
    .query<{ since: number | null; error: string | null }, [string, string, string]>(
      `SELECT min(started_at) AS since, (SELECT error FROM job_runs WHERE job = ? AND ok = 0 ORDER BY id DESC LIMIT 1) AS error FROM job_runs
       WHERE job = ? AND ok = 0 AND id > coalesce((SELECT max(id) FROM job_runs WHERE job = ? AND ok = 1), 0)`,
    )
    .get(job, job, job);
  return row?.since === null || row?.since === undefined ? null : { since: row.since, error: row.error };
}
