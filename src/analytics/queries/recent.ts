// Recent activity of a program: outcome counts and issue counts over the last `minutes` before the
// serving build's clock, for windows shorter than a day (the routes' windows are 1d, 7d, 30d). The
// alert rules use it (docs/alerts.md): `landing_rate` compares the last minutes with the program's
// own baseline, `new_issue` counts N occurrences in M minutes. Same attempts and counting rules as
// the `rates` and `issues` tables (resolved attempts only; pending excluded), from the serving
// tables' attempts; cached per serving version like every answer.

import { z } from "zod";
import type { Context } from "../../context";
import { rates, type Rates } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import { answerKey, address, countsOf, parseParams, requireKnownProgram, scopeKey, type CountRow } from "./common";

/** The longest recent window: beyond a day the `1d` window answers. */
export const MAX_RECENT_MINUTES = 1440;

export type RecentIssue = { fingerprint: string; count: number; firstSeen: number | null };
export type RecentActivity = { program: string; since: number; until: number; rates: Rates; issues: RecentIssue[] };
export type RecentActivityParams = { program: string; accountId: string | null; minutes: number };

const recentParams = z.object({
  program: address("program id"),
  accountId: z.string().min(1).nullable(),
  minutes: z.number().int().min(1).max(MAX_RECENT_MINUTES),
});

// $1 program, $2 scope ('*' or an account id), $3 since (exclusive), $4 until (inclusive).
const COUNTS_SQL = `
  SELECT count(*) FILTER (WHERE outcome = 'landed') AS landed, count(*) FILTER (WHERE outcome = 'failed_onchain') AS failed_onchain,
    count(*) FILTER (WHERE outcome = 'dropped') AS dropped, count(*) FILTER (WHERE outcome = 'preflight') AS preflight
  FROM attempts WHERE program = $1 AND ($2 = '*' OR account_id = $2) AND received_at > $3 AND received_at <= $4`;
const ISSUES_SQL = `
  SELECT a.fingerprint, count(*) AS count, min(l.first_seen) AS first_seen
  FROM attempts a LEFT JOIN issue_lifetimes l ON l.program = a.program AND l.scope = $2 AND l.fingerprint = a.fingerprint
  WHERE a.program = $1 AND ($2 = '*' OR a.account_id = $2) AND a.received_at > $3 AND a.received_at <= $4 AND a.fingerprint IS NOT NULL
  GROUP BY a.fingerprint ORDER BY count DESC, a.fingerprint`;

export async function recentActivity(ctx: Context, input: RecentActivityParams): Promise<RecentActivity> {
  const params = parseParams(recentParams, input);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  return tables.cached(answerKey("recent-activity", params), async () => {
    const until = tables.clock;
    const since = until - params.minutes * 60_000;
    const bounds = [params.program, scopeKey(params.accountId), since, until];
    const [counts] = await tables.all<CountRow>(COUNTS_SQL, bounds);
    const issues = await tables.all<{ fingerprint: string; count: number; first_seen: number | null }>(ISSUES_SQL, bounds);
    return {
      program: params.program,
      since,
      until,
      rates: rates(countsOf(counts)),
      issues: issues.map((row) => ({ fingerprint: row.fingerprint, count: Number(row.count), firstSeen: row.first_seen })),
    };
  });
}
