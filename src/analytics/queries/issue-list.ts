// issues/{program} (docs/api.md#get-v1issuesprogram): an account's issues of one program, as an error
// tracker lists them for triage: each with its counts in the window, the wallets it hit (the headline
// figure), first and last seen, and its state now (issue-state.ts). Filters: state (by default the
// open ones: unresolved and regressed), instruction, error (name, code or drop class), first seen
// since; sorted by events or wallets; paginated with `limit` and a signed cursor (src/shared/pagination.ts).
// The rows come from the serving tables top-issues reads, cached per serving version; states are
// applied on every request, as they change between builds.

import { z } from "zod";
import type { Context } from "../../context";
import { badRequest } from "../../shared/errors";
import { issueTitleOfRow } from "../../shared/issue-title";
import { type Page, parseLimit } from "../../shared/pagination";
import { ratio } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import {
  address,
  answerKey,
  parseParams,
  requireKnownProgram,
  type WindowRange,
  windowName,
  windowRange,
} from "./common";
import { deriveIssueState, HIDDEN_STATES, ISSUE_STATES, type IssueState, programIssueStates } from "./issue-state";
import type { IssueIdentity } from "./top-issues";

export const ISSUE_SORTS = ["events", "wallets"] as const;
/** `open` (default): every state but the hidden ones; `all`: every issue; else that one state. */
export const ISSUE_STATE_FILTERS = ["open", "all", ...ISSUE_STATES] as const;

export type IssueListItem = IssueIdentity & {
  /** Events in the window. */
  count: number;
  /** Distinct fee payers the issue hit in the window. */
  wallets: number;
  botShare: number;
  firstSeen: number;
  lastSeen: number;
  state: IssueState;
};

export type IssueListResponse = Page<IssueListItem> & {
  program: string;
  window: WindowRange;
  state: (typeof ISSUE_STATE_FILTERS)[number];
  sort: (typeof ISSUE_SORTS)[number];
};

const listParams = z.object({
  program: address("program id"),
  window: windowName,
  accountId: z.string().min(1),
  state: z
    .enum(ISSUE_STATE_FILTERS, { message: `expected one of ${ISSUE_STATE_FILTERS.join(", ")}` })
    .nullish()
    .transform((value) => value ?? "open"),
  sort: z
    .enum(ISSUE_SORTS, { message: "expected events or wallets" })
    .nullish()
    .transform((value) => value ?? "events"),
  instruction: z.string().min(1).max(200).nullish(),
  error: z.string().min(1).max(200).nullish(),
  since: z
    .string()
    .regex(/^\d{1,16}$/, "expected a time in Unix ms")
    .nullish()
    .transform((value) => (value === null || value === undefined ? null : Number(value))),
  limit: z.string().nullish(),
  cursor: z.string().nullish(),
});

export type IssueListParams = {
  program: string;
  accountId: string;
  window?: string | null;
  state?: string | null;
  sort?: string | null;
  instruction?: string | null;
  error?: string | null;
  since?: string | null;
  limit?: string | null;
  cursor?: string | null;
};

type Row = {
  fingerprint: string;
  outcome: string;
  failing_program: string | null;
  instruction: string | null;
  err_code: number | null;
  err_name: string | null;
  drop_class: string | null;
  count: number;
  wallets: number;
  bot_count: number;
  first_seen: number | null;
  last_seen: number | null;
  first_in_window: number;
  last_in_window: number;
};

const ROWS_SQL = `
  SELECT i.fingerprint, i.outcome, i.failing_program, i.instruction, i.err_code, i.err_name, i.drop_class,
    t.count, t.wallets, t.bot_count, l.first_seen, l.last_seen, i.first_in_window, i.last_in_window
  FROM issue_totals t
  JOIN (SELECT program, scope, win, fingerprint, any_value(outcome) AS outcome, any_value(failing_program) AS failing_program,
          any_value(instruction) AS instruction, any_value(err_code) AS err_code, any_value(err_name) AS err_name,
          any_value(drop_class) AS drop_class, min(first_in_window) AS first_in_window, max(last_in_window) AS last_in_window
        FROM issues WHERE program = $1 AND scope = $2 AND win = $3 GROUP BY ALL) i USING (program, scope, win, fingerprint)
  LEFT JOIN issue_lifetimes l ON l.program = t.program AND l.scope = t.scope AND l.fingerprint = t.fingerprint
  WHERE t.program = $1 AND t.scope = $2 AND t.win = $3 AND t.count > 0`;

/** Where a page starts: an offset into one query's ordered list (the query's key ties it to that query). */
type Position = { offset: number; query: string };
const isPosition = (value: unknown): value is Position =>
  typeof value === "object" &&
  value !== null &&
  Number.isSafeInteger((value as Position).offset) &&
  (value as Position).offset >= 0 &&
  typeof (value as Position).query === "string";

const UNCHANGED = deriveIssueState(null, { lastSeen: null, eventsSinceChange: 0, deploys: [] }, 0);

export async function issueList(ctx: Context, input: IssueListParams): Promise<IssueListResponse> {
  const params = parseParams(listParams, input);
  const limit = parseLimit(params.limit);
  const { cursor: _cursor, limit: _limit, ...query } = params;
  const queryKey = answerKey("issues", query);
  const position = ctx.cursors.decode(params.cursor, isPosition);
  if (position && position.query !== queryKey) throw badRequest("cursor: from another query");
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  const rows = await tables.cached(answerKey("issue-rows", [params.program, params.accountId, params.window]), () =>
    tables.all<Row>(ROWS_SQL, [params.program, params.accountId, params.window]),
  );
  const states = await programIssueStates(ctx, params.accountId, params.program);
  const error = params.error?.toLowerCase() ?? null;
  const items = rows
    .map((row) => toItem(row, states.get(row.fingerprint) ?? UNCHANGED))
    .filter(
      (item) =>
        (params.state === "all" ||
          (params.state === "open" ? !HIDDEN_STATES.includes(item.state.state) : item.state.state === params.state)) &&
        (params.instruction === null || params.instruction === undefined || item.instruction === params.instruction) &&
        (error === null ||
          item.errName?.toLowerCase() === error ||
          (item.errCode !== null && String(item.errCode) === error) ||
          item.dropClass?.toLowerCase() === error) &&
        (params.since === null || item.firstSeen >= params.since),
    )
    .sort((a, b) =>
      params.sort === "wallets"
        ? b.wallets - a.wallets || b.count - a.count || a.fingerprint.localeCompare(b.fingerprint)
        : b.count - a.count || b.wallets - a.wallets || a.fingerprint.localeCompare(b.fingerprint),
    );
  const offset = position?.offset ?? 0;
  const page = items.slice(offset, offset + limit);
  return {
    program: params.program,
    window: windowRange(tables, params.window),
    state: params.state,
    sort: params.sort,
    items: page,
    nextCursor: offset + limit < items.length ? ctx.cursors.encode({ offset: offset + limit, query: queryKey }) : null,
  };
}

function toItem(row: Row, state: IssueState): IssueListItem {
  return {
    fingerprint: row.fingerprint,
    title: issueTitleOfRow(row),
    outcome: row.outcome,
    failingProgram: row.failing_program,
    instruction: row.instruction,
    errCode: row.err_code === null ? null : Number(row.err_code),
    errName: row.err_name,
    dropClass: row.drop_class,
    count: Number(row.count),
    wallets: Number(row.wallets),
    botShare: ratio(Number(row.bot_count), Number(row.count)),
    firstSeen: Number(row.first_seen ?? row.first_in_window),
    lastSeen: Number(row.last_seen ?? row.last_in_window),
    state,
  };
}
