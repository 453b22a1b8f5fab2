// baseline/{program}: the program's outcome rates in the window next to the whole ecosystem's (all
// programs, public) and each RPC provider's, from the precomputed `rates` table. Public answers are
// precomputed by the tables job (baselineAnswers over every program × window); account-scoped ones
// are computed on request by the same function and cached per serving version.

import type { Context } from "../../context";
import { type Rates, rates } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import {
  type AnswerScope,
  answerKey,
  answerSlot,
  type BaseParams,
  baseParams,
  type CountRow,
  countsOf,
  groupRows,
  parseParams,
  programFilter,
  type RowSource,
  requireKnownProgram,
  SEEN_ON_CHAIN_PROGRAMS,
  SUM_COUNTS,
  scopeKey,
  type WindowRange,
  windowFilter,
  windowRange,
} from "./common";

export type BaselineResponse = {
  program: string;
  window: WindowRange;
  rates: Rates;
  ecosystem: Rates;
  providers: ({ rpcLabel: string; rpcHash: string; accounts: number } & Rates)[];
  pending: number;
  /** How many accounts the rates count (public: those whose weighted outcomes count; docs/serving.md#public-figures). */
  accounts: number;
  /** How many accounts the ecosystem's rates count. */
  ecosystemAccounts: number;
};

type ProviderCountRow = CountRow & {
  program: string;
  win: string;
  rpc_label: string;
  rpc_hash: string;
  pending: number;
  accounts: number;
};

const PROVIDER_COUNTS_SQL = `
  SELECT program, win, rpc_label, rpc_hash, ${SUM_COUNTS}, coalesce(sum(pending), 0) AS pending, coalesce(sum(accounts), 0) AS accounts FROM rates
  WHERE scope = $1 AND ($2::VARCHAR IS NULL OR program = $2) AND ($3::VARCHAR IS NULL OR win = $3)
  GROUP BY program, win, rpc_label, rpc_hash`;
/** The ecosystem's public rates: the same figure as the ecosystem overview's (ecosystem.ts). */
const ECOSYSTEM_SQL = `SELECT win, ${SUM_COUNTS} FROM rates WHERE scope = '*' AND program IN (${SEEN_ON_CHAIN_PROGRAMS}) GROUP BY win`;
const ACCOUNTS_SQL = `
  SELECT program, win, accounts FROM rate_accounts
  WHERE ((scope = $1 AND ($2::VARCHAR IS NULL OR program = $2)) OR (scope = '*' AND program = '*'))
    AND ($3::VARCHAR IS NULL OR win = $3)`;

export async function baseline(ctx: Context, input: BaseParams): Promise<BaselineResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  if (params.accountId === null) {
    const precomputed = tables.precomputed<BaselineResponse>("baseline", params.program, params.window);
    if (precomputed) return precomputed;
  }
  return tables.cached(answerKey("baseline", params), async () => {
    const answers = await baselineAnswers(tables, {
      scope: scopeKey(params.accountId),
      programs: [params.program],
      windows: [params.window],
    });
    return answers.get(answerSlot(params.program, params.window))!;
  });
}

/** The baseline answer of every listed program × window in one scope, keyed by answerSlot. */
export async function baselineAnswers(
  source: RowSource,
  { scope, programs, windows }: AnswerScope,
): Promise<Map<string, BaselineResponse>> {
  const providerRows = await source.all<ProviderCountRow>(PROVIDER_COUNTS_SQL, [
    scope,
    programFilter(programs),
    windowFilter(windows),
  ]);
  const ecosystemRows = await source.all<CountRow & { win: string }>(ECOSYSTEM_SQL);
  const accountRows = await source.all<{ program: string; win: string; accounts: number }>(ACCOUNTS_SQL, [
    scope,
    programFilter(programs),
    windowFilter(windows),
  ]);
  const accountsOf = (program: string, window: string) =>
    Number(accountRows.find((row) => row.program === program && row.win === window)?.accounts ?? 0);
  const byProgramWindow = groupRows(providerRows, (row) => answerSlot(row.program, row.win));
  const answers = new Map<string, BaselineResponse>();
  for (const program of programs) {
    for (const window of windows) {
      const rows = byProgramWindow.get(answerSlot(program, window)) ?? [];
      const providers = rows
        .map((row) => ({
          rpcLabel: row.rpc_label,
          rpcHash: row.rpc_hash,
          accounts: Number(row.accounts),
          ...rates(countsOf(row)),
        }))
        .sort((a, b) => b.attempts - a.attempts || a.rpcLabel.localeCompare(b.rpcLabel));
      const total = countsOf({
        landed: sum(rows, "landed"),
        failed_onchain: sum(rows, "failed_onchain"),
        dropped: sum(rows, "dropped"),
        preflight: sum(rows, "preflight"),
      });
      answers.set(answerSlot(program, window), {
        program,
        window: windowRange(source, window),
        rates: rates(total),
        ecosystem: rates(countsOf(ecosystemRows.find((row) => row.win === window))),
        providers,
        pending: sum(rows, "pending"),
        accounts: accountsOf(program, window),
        ecosystemAccounts: accountsOf("*", window),
      });
    }
  }
  return answers;
}

function sum<K extends string>(rows: Record<K, number | null>[], key: K): number {
  return rows.reduce((total, row) => total + Number(row[key] ?? 0), 0);
}
