// Recent activity of a program: outcome counts and issue counts over the last `minutes` before the
// serving build's clock, for windows shorter than a day (the routes' windows are 1d, 7d, 30d). The
// alert rules use it (docs/alerts.md): `landing_rate` compares the last minutes with the program's
// own baseline, `new_issue` counts N occurrences in M minutes. Same attempts and counting rules as
// the `rates` and `issues` tables (resolved attempts only; pending excluded), summed from the
// version's per-minute units (tables/recent.ts): a window counts whole minutes, from the start of the
// minute that holds `clock − minutes` (its `since`) to the clock. Cached per serving version like
// every answer.

import { z } from "zod";
import type { Context } from "../../context";
import { type Rates, rates } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import { address, answerKey, type CountRow, countsOf, parseParams, requireKnownProgram, scopeKey } from "./common";

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

// $1 program, $2 scope ('*' or an account id), $3 the first minute.
const COUNTS_SQL = `
  SELECT sum(landed) AS landed, sum(failed_onchain) AS failed_onchain, sum(dropped) AS dropped, sum(preflight) AS preflight
  FROM recent_outcomes WHERE program = $1 AND ($2 = '*' OR account_id = $2) AND minute >= $3`;
const ISSUES_SQL = `
  SELECT r.fingerprint, r.count, l.first_seen
  FROM (SELECT fingerprint, sum(n) AS count FROM recent_issues WHERE program = $1 AND ($2 = '*' OR account_id = $2) AND minute >= $3 GROUP BY fingerprint) r
  LEFT JOIN (SELECT fingerprint, min(first_seen) AS first_seen FROM issue_lifetimes WHERE program = $1 AND scope = $2 GROUP BY fingerprint) l USING (fingerprint)
  ORDER BY r.count DESC, r.fingerprint`;

export async function recentActivity(ctx: Context, input: RecentActivityParams): Promise<RecentActivity> {
  const params = parseParams(recentParams, input);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  return tables.cached(answerKey("recent-activity", params), async () => {
    const until = tables.clock;
    const firstMinute = Math.floor((until - params.minutes * 60_000) / 60_000);
    const since = firstMinute * 60_000;
    const bounds = [params.program, scopeKey(params.accountId), firstMinute];
    const [counts] = await tables.all<CountRow>(COUNTS_SQL, bounds);
    const issues = await tables.all<{ fingerprint: string; count: number; first_seen: number | null }>(
      ISSUES_SQL,
      bounds,
    );
    return {
      program: params.program,
      since,
      until,
      rates: rates(countsOf(counts)),
      issues: issues.map((row) => ({
        fingerprint: row.fingerprint,
        count: Number(row.count),
        firstSeen: row.first_seen,
      })),
    };
  });
}
