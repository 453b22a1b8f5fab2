// How old the analytical answers are, and why when they are older than they should be. Every
// analytical route answers from the current serving version, whose windows end at the tables
// job's clock (`dataUntil`); when that job fails (out of memory, a full disk) or stops running,
// the routes keep answering from the last good version, and when more arrives than it takes in
// (a busy machine gives its process the CPU last: docs/operations.md) its versions leave rows
// for later. /v1/status and the web app's banner say so instead of showing old or partial
// figures as if they were current (docs/api.md#get-v1status).

import type { JobRun } from "../control";

export type ServingFreshness = {
  /** The serving version the routes answer from; null before the first build. */
  version: number | null;
  /** Its clock: every window ends here (Unix ms); its age is now − dataUntil. */
  dataUntil: number | null;
  /** How often the scheduler refreshes it (TABLES_INTERVAL_MS). */
  refreshEveryMs: number;
  stale: boolean;
  /** Why, in words, when stale; null otherwise. */
  reason: string | null;
};

export type FreshnessFacts = {
  pointer: { version: number; clock: number } | null;
  /** The tables job's latest run, and its failed runs since its last success. */
  lastRun: JobRun | undefined;
  consecutiveFailures: number;
  /**
   * New lake rows (envelopes and resolutions) the latest successful run left for later refreshes (its `deferredRows`).
   */
  deferredRows: number;
  lakeEnvelopes: number;
  refreshEveryMs: number;
  now: number;
};

/** Older than this, the answers are stale even without a failed run (the job is not running). */
export const staleAfterMs = (refreshEveryMs: number) => 3 * refreshEveryMs + 60_000;

export function servingFreshness(facts: FreshnessFacts): ServingFreshness {
  const { pointer, lastRun, consecutiveFailures, refreshEveryMs, now } = facts;
  // The reason says what happened, not how long ago (the same status asked twice reads the same).
  const ageMs = pointer ? Math.max(0, now - pointer.clock) : null;
  const base = { version: pointer?.version ?? null, dataUntil: pointer?.clock ?? null, refreshEveryMs };
  if (consecutiveFailures > 0 && lastRun) {
    const runs = consecutiveFailures === 1 ? "its last run failed" : `its last ${consecutiveFailures} runs failed`;
    const kept = pointer ? "the answers are the last good version's" : "there are no answers yet";
    // While a retry runs, the latest run has no error yet.
    const error = lastRun.ok === false ? `: ${lastRun.error ?? "unknown error"}` : "; a retry is running";
    return { ...base, stale: true, reason: `the tables job is failing (${runs}; ${kept})${error}` };
  }
  if (!pointer) {
    if (facts.lakeEnvelopes === 0) return { ...base, stale: false, reason: null };
    return {
      ...base,
      stale: true,
      reason: "the lake has data but the tables job has not built the serving tables yet",
    };
  }
  if (facts.deferredRows > 0) {
    return {
      ...base,
      stale: true,
      reason: `the tables job is behind: its last refresh left ${facts.deferredRows.toLocaleString("en-US")} new rows for the next ones (more arrives than it takes in; the answers leave them out until then)`,
    };
  }
  if (ageMs! > staleAfterMs(refreshEveryMs)) {
    const running =
      lastRun && lastRun.ok === null
        ? `a run started at ${new Date(lastRun.lastRunAt).toISOString()} has not finished`
        : "the tables job has not run since";
    return {
      ...base,
      stale: true,
      reason: `the answers are older than three refreshes (every ${age(refreshEveryMs)}): ${running}`,
    };
  }
  return { ...base, stale: false, reason: null };
}

/** A duration in words: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function age(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
