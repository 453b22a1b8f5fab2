// Recent activity's units (queries/recent.ts: the alert rules' windows of minutes): per (program,
// account, minute) of the last day, the resolved attempts' outcomes and the failures per issue.
// They take a refresh's changes as signed deltas like every other rollup (rollups.ts), only for the
// minutes of the last RECENT_MINUTES before the clock; older minutes are forgotten at each refresh.
// A version holds them as they are (a day of minutes: rows ∝ programs × accounts, not history), and
// a window of M minutes is the sum of its minutes, from the one that holds clock − M minutes.

import type { Rollup } from "./rollups";

/** Minutes kept before the clock's minute (the longest recent window, queries/recent.ts). */
export const RECENT_MINUTES = 1440;
export const MINUTE_MS = 60_000;

export const firstRecentMinute = (clock: number) => Math.floor(clock / MINUTE_MS) - RECENT_MINUTES;

const count = (name: string, condition: string) => ({
  name,
  type: "BIGINT",
  merge: "sum" as const,
  of: `(${condition})::INT`,
});

export const MINUTE_ROLLUPS: Rollup[] = [
  {
    name: "recent",
    where: "outcome IS NOT NULL", // resolved attempts only, as in the rates
    dims: [],
    measures: [
      count("landed", "outcome = 'landed'"),
      count("failed_onchain", "outcome = 'failed_onchain'"),
      count("dropped", "outcome = 'dropped'"),
      count("preflight", "outcome = 'preflight'"),
    ],
  },
  {
    name: "recent_issues",
    where: "fingerprint IS NOT NULL",
    dims: [{ name: "fingerprint", type: "VARCHAR", of: "fingerprint" }],
    measures: [count("n", "true")],
  },
];

/** Minutes older than the kept ones. */
export function forgetRecentSql(clock: number): string {
  return `DELETE FROM u_recent_m WHERE minute < ${firstRecentMinute(clock)}; DELETE FROM u_recent_issues_m WHERE minute < ${firstRecentMinute(clock)}`;
}

/**
 * The version's `recent_outcomes` and `recent_issues` (program, account_id, minute, …), the kept minutes as they are.
 */
export function recentServingTablesSql(target: string, clock: number): string {
  const first = firstRecentMinute(clock);
  return `
    CREATE TABLE ${target}.recent_outcomes AS
      SELECT program, account_id, minute, landed, failed_onchain, dropped, preflight FROM u_recent_m WHERE minute >= ${first} ORDER BY program, minute;
    CREATE TABLE ${target}.recent_issues AS
      SELECT program, account_id, minute, fingerprint, n FROM u_recent_issues_m WHERE minute >= ${first} ORDER BY program, minute`;
}
