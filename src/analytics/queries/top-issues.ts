// top-issues/{program}: failures grouped by fingerprint, per payer segment (human / mixed / bot by
// payerBotScore), ranked by count in the window; plus issueSummary for the why route.

import { z } from "zod";
import type { Context } from "../../context";
import { parseLimit } from "../../api/pagination";
import { ratio } from "../stats";
import { servingTables } from "../serving/reader";
import { answerKey, baseParams, type BaseParams, parseParams, requireKnownProgram, scopeKey, windowRange, type WindowRange } from "./common";

export const SEGMENTS = ["human", "mixed", "bot"] as const;
export type Segment = (typeof SEGMENTS)[number];

export type Issue = {
  fingerprint: string;
  outcome: string;
  failingProgram: string | null;
  instruction: string | null;
  errCode: number | null;
  errName: string | null;
  dropClass: string | null;
  count: number;
  count7d: number;
  share: number;
  wallets: number;
  firstSeen: number;
  lastSeen: number;
  sampleSig: string | null;
  botShare: number;
};

export type TopIssuesResponse = { program: string; window: WindowRange; segment: Segment | null; segments: Record<Segment, Issue[]> };

const topIssuesParams = baseParams.extend({
  segment: z.enum(SEGMENTS, { message: "expected human, mixed or bot" }).nullish(),
  limit: z.union([z.number().int().min(1).max(500), z.string()]).nullish(),
});
export type TopIssuesParams = BaseParams & { segment?: string | null; limit?: string | number | null };

type IssueRow = {
  fingerprint: string; outcome: string; failing_program: string | null; instruction: string | null; err_code: number | null;
  err_name: string | null; drop_class: string | null; count: number; wallets: number; segment_total: number; sample_sig: string | null;
  total_count: number | null; bot_count: number | null; count7d: number | null; first_seen: number | null; last_seen: number | null;
  first_in_window: number; last_in_window: number;
};

const ISSUES_SQL = `
  SELECT i.*, t.count AS total_count, t.bot_count, t7.count AS count7d, l.first_seen, l.last_seen
  FROM issues i
  LEFT JOIN issue_totals t ON t.program = i.program AND t.scope = i.scope AND t.win = i.win AND t.fingerprint = i.fingerprint
  LEFT JOIN issue_totals t7 ON t7.program = i.program AND t7.scope = i.scope AND t7.win = '7d' AND t7.fingerprint = i.fingerprint
  LEFT JOIN issue_lifetimes l ON l.program = i.program AND l.scope = i.scope AND l.fingerprint = i.fingerprint
  WHERE i.program = $1 AND i.scope = $2 AND i.win = $3 AND i.segment = $4
  ORDER BY i.count DESC, i.fingerprint LIMIT $5`;

export async function topIssues(ctx: Context, input: TopIssuesParams): Promise<TopIssuesResponse> {
  const params = parseParams(topIssuesParams, input);
  const limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("top-issues", { ...params, limit }), async () => {
    await requireKnownProgram(tables, params.program);
    const segments: Record<Segment, Issue[]> = { human: [], mixed: [], bot: [] };
    for (const segment of params.segment ? [params.segment] : SEGMENTS) {
      const rows = await tables.all<IssueRow>(ISSUES_SQL, [params.program, scopeKey(params.accountId), params.window, segment, limit]);
      segments[segment] = rows.map(toIssue);
    }
    return { program: params.program, window: windowRange(tables, params.window), segment: params.segment ?? null, segments };
  });
}

function toIssue(row: IssueRow): Issue {
  return {
    fingerprint: row.fingerprint,
    outcome: row.outcome,
    failingProgram: row.failing_program,
    instruction: row.instruction,
    errCode: row.err_code,
    errName: row.err_name,
    dropClass: row.drop_class,
    count: row.count,
    count7d: row.count7d ?? 0,
    share: ratio(row.count, row.segment_total),
    wallets: row.wallets,
    firstSeen: row.first_seen ?? row.first_in_window,
    lastSeen: row.last_seen ?? row.last_in_window,
    sampleSig: row.sample_sig,
    botShare: ratio(row.bot_count ?? 0, row.total_count ?? 0),
  };
}

export type IssueSummary = { fingerprint: string; count7d: number; firstSeen: number };

/** The public summary of one issue (why/{sig}'s `issue`), or null when txray never saw it. */
export async function issueSummary(ctx: Context, fingerprint: string): Promise<IssueSummary | null> {
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("issue-summary", fingerprint), async () => {
    const [lifetime] = await tables.all<{ first_seen: number | null }>(
      "SELECT min(first_seen) AS first_seen FROM issue_lifetimes WHERE scope = '*' AND fingerprint = $1",
      [fingerprint],
    );
    if (!lifetime || lifetime.first_seen === null) return null;
    const [recent] = await tables.all<{ count7d: number | null }>(
      "SELECT sum(count) AS count7d FROM issue_totals WHERE scope = '*' AND win = '7d' AND fingerprint = $1",
      [fingerprint],
    );
    return { fingerprint, count7d: Number(recent?.count7d ?? 0), firstSeen: lifetime.first_seen };
  });
}
