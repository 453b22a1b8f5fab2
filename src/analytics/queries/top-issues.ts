// top-issues/{program}: failures grouped by fingerprint, per payer segment (human / mixed / bot by
// payerBotScore), ranked by count in the window; plus issueSummary for the why route. Public
// answers (every segment, MAX_LIMIT issues each) are precomputed by the tables job
// (topIssuesAnswers); a request takes the head of each list. Account-scoped ones are computed on
// request by the same function and cached per serving version. An account-scoped answer leaves out
// the issues the account resolved or ignored (their state now: issue-state.ts), unless `state=all`.

import { z } from "zod";
import type { Context } from "../../context";
import { issueTitleOfRow } from "../../shared/issue-title";
import { MAX_LIMIT, parseLimit } from "../../shared/pagination";
import { ratio } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import {
  type AnswerScope,
  answerKey,
  answerSlot,
  type BaseParams,
  baseParams,
  groupRows,
  parseParams,
  programFilter,
  type RowSource,
  requireKnownProgram,
  scopeKey,
  type WindowRange,
  windowFilter,
  windowRange,
} from "./common";
import { HIDDEN_STATES, programIssueStates } from "./issue-state";

export const SEGMENTS = ["human", "mixed", "bot"] as const;
export type Segment = (typeof SEGMENTS)[number];

/** What makes an issue (its fingerprint's parts) and its title: shared by every answer that lists issues. */
export type IssueIdentity = {
  fingerprint: string;
  /** docs/api.md#issue-titles: the same wording on every surface. */
  title: string;
  outcome: string;
  failingProgram: string | null;
  instruction: string | null;
  errCode: number | null;
  errName: string | null;
  dropClass: string | null;
};

export type Issue = IssueIdentity & {
  count: number;
  count7d: number;
  share: number;
  wallets: number;
  firstSeen: number;
  lastSeen: number;
  sampleSig: string | null;
  botShare: number;
};

export type TopIssuesResponse = {
  program: string;
  window: WindowRange;
  segment: Segment | null;
  segments: Record<Segment, Issue[]>;
};

const topIssuesParams = baseParams.extend({
  segment: z.enum(SEGMENTS, { message: "expected human, mixed or bot" }).nullish(),
  limit: z.union([z.number().int().min(1).max(500), z.string()]).nullish(),
  state: z.enum(["open", "all"], { message: "expected open or all" }).nullish(),
});
export type TopIssuesParams = BaseParams & {
  segment?: string | null;
  limit?: string | number | null;
  state?: string | null;
};

type IssueRow = {
  program: string;
  win: string;
  segment: Segment;
  fingerprint: string;
  outcome: string;
  failing_program: string | null;
  instruction: string | null;
  err_code: number | null;
  err_name: string | null;
  drop_class: string | null;
  count: number;
  wallets: number;
  segment_total: number;
  sample_sig: string | null;
  total_count: number | null;
  bot_count: number | null;
  count7d: number | null;
  first_seen: number | null;
  last_seen: number | null;
  first_in_window: number;
  last_in_window: number;
};

/** Every issue of the scope (optionally one program, window, segment), ranked per program × window × segment. */
const ISSUES_SQL = `
  SELECT i.program, i.win, i.segment, i.fingerprint, i.outcome, i.failing_program, i.instruction, i.err_code, i.err_name, i.drop_class,
    i.count, i.wallets, i.segment_total, i.sample_sig, i.first_in_window, i.last_in_window,
    t.count AS total_count, t.bot_count, t7.count AS count7d, l.first_seen, l.last_seen
  FROM issues i
  LEFT JOIN issue_totals t ON t.program = i.program AND t.scope = i.scope AND t.win = i.win AND t.fingerprint = i.fingerprint
  LEFT JOIN issue_totals t7 ON t7.program = i.program AND t7.scope = i.scope AND t7.win = '7d' AND t7.fingerprint = i.fingerprint
  LEFT JOIN issue_lifetimes l ON l.program = i.program AND l.scope = i.scope AND l.fingerprint = i.fingerprint
  WHERE i.scope = $1 AND ($2::VARCHAR IS NULL OR i.program = $2) AND ($3::VARCHAR IS NULL OR i.win = $3) AND ($4::VARCHAR IS NULL OR i.segment = $4)
  ORDER BY i.program, i.win, i.segment, i.count DESC, i.fingerprint`;

export async function topIssues(ctx: Context, input: TopIssuesParams): Promise<TopIssuesResponse> {
  const { state, ...params } = parseParams(topIssuesParams, input);
  const limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  if (params.accountId === null || state === "all") return rankedIssues(ctx, params, limit);
  const states = await programIssueStates(ctx, params.accountId, params.program);
  const hidden = new Set(
    [...states].filter(([, s]) => HIDDEN_STATES.includes(s.state)).map(([fingerprint]) => fingerprint),
  );
  if (hidden.size === 0) return rankedIssues(ctx, params, limit);
  const full = await rankedIssues(ctx, params, MAX_LIMIT);
  const open = (list: Issue[]) => list.filter((issue) => !hidden.has(issue.fingerprint)).slice(0, limit);
  return {
    ...full,
    segments: { human: open(full.segments.human), mixed: open(full.segments.mixed), bot: open(full.segments.bot) },
  };
}

/** Every issue of the answer, ranked, each list at most `limit` long. */
async function rankedIssues(
  ctx: Context,
  params: Omit<z.output<typeof topIssuesParams>, "state">,
  limit: number,
): Promise<TopIssuesResponse> {
  const segment = params.segment ?? null;
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  if (params.accountId === null) {
    // Precomputed with every segment at the largest limit: a request takes the head of its lists.
    const full = tables.precomputed<TopIssuesResponse>("top-issues", params.program, params.window);
    if (full)
      return tables.cached(answerKey("top-issues", { ...params, limit }), async () => withLimit(full, segment, limit));
  }
  return tables.cached(answerKey("top-issues", { ...params, limit }), async () => {
    const answers = await topIssuesAnswers(
      tables,
      { scope: scopeKey(params.accountId), programs: [params.program], windows: [params.window] },
      segment,
    );
    return withLimit(answers.get(answerSlot(params.program, params.window))!, segment, limit);
  });
}

/**
 * The top-issues answer of every listed program × window in one scope (every segment, or only
 * `segment`, each list at most MAX_LIMIT long), keyed by answerSlot.
 */
export async function topIssuesAnswers(
  source: RowSource,
  { scope, programs, windows }: AnswerScope,
  segment: Segment | null = null,
): Promise<Map<string, TopIssuesResponse>> {
  const rows = await source.all<IssueRow>(ISSUES_SQL, [scope, programFilter(programs), windowFilter(windows), segment]);
  const bySlot = groupRows(rows, (row) => answerSlot(row.program, row.win));
  const answers = new Map<string, TopIssuesResponse>();
  for (const program of programs) {
    for (const window of windows) {
      const segments: Record<Segment, Issue[]> = { human: [], mixed: [], bot: [] };
      for (const row of bySlot.get(answerSlot(program, window)) ?? []) {
        const list = segments[row.segment];
        if (list.length < MAX_LIMIT) list.push(toIssue(row));
      }
      answers.set(answerSlot(program, window), { program, window: windowRange(source, window), segment, segments });
    }
  }
  return answers;
}

/** The answer to a request for `segment` (null: all) and `limit` from a longer answer. */
function withLimit(full: TopIssuesResponse, segment: Segment | null, limit: number): TopIssuesResponse {
  const list = (name: Segment) => (segment === null || segment === name ? full.segments[name].slice(0, limit) : []);
  return {
    program: full.program,
    window: full.window,
    segment,
    segments: { human: list("human"), mixed: list("mixed"), bot: list("bot") },
  };
}

function toIssue(row: IssueRow): Issue {
  return {
    fingerprint: row.fingerprint,
    title: issueTitleOfRow(row),
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
