// baseline/{program}: the program's outcome rates in the window next to the whole ecosystem's (all
// programs, public) and each RPC provider's, from the precomputed `rates` table.

import type { Context } from "../../context";
import { rates, type Rates } from "../stats";
import { servingTables } from "../serving/reader";
import { answerKey, baseParams, countsOf, parseParams, requireKnownProgram, scopeKey, SUM_COUNTS, windowRange, type BaseParams, type CountRow, type WindowRange } from "./common";

export type BaselineResponse = {
  program: string;
  window: WindowRange;
  rates: Rates;
  ecosystem: Rates;
  providers: ({ rpcLabel: string; rpcHash: string } & Rates)[];
  pending: number;
};

export async function baseline(ctx: Context, input: BaseParams): Promise<BaselineResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("baseline", params), async () => {
    await requireKnownProgram(tables, params.program);
    const scope = scopeKey(params.accountId);
    const providerRows = await tables.all<CountRow & { rpc_label: string; rpc_hash: string; pending: number }>(
      `SELECT rpc_label, rpc_hash, ${SUM_COUNTS}, coalesce(sum(pending), 0) AS pending FROM rates
       WHERE program = $1 AND scope = $2 AND win = $3 GROUP BY rpc_label, rpc_hash`,
      [params.program, scope, params.window],
    );
    const [ecosystemRow] = await tables.all<CountRow>(`SELECT ${SUM_COUNTS} FROM rates WHERE scope = '*' AND win = $1`, [params.window]);
    const providers = providerRows
      .map((row) => ({ rpcLabel: row.rpc_label, rpcHash: row.rpc_hash, ...rates(countsOf(row)) }))
      .sort((a, b) => b.attempts - a.attempts || a.rpcLabel.localeCompare(b.rpcLabel));
    const total = countsOf({
      landed: sum(providerRows, "landed"),
      failed_onchain: sum(providerRows, "failed_onchain"),
      dropped: sum(providerRows, "dropped"),
      preflight: sum(providerRows, "preflight"),
    });
    return {
      program: params.program,
      window: windowRange(tables, params.window),
      rates: rates(total),
      ecosystem: rates(countsOf(ecosystemRow)),
      providers,
      pending: sum(providerRows, "pending"),
    };
  });
}

function sum<K extends string>(rows: Record<K, number | null>[], key: K): number {
  return rows.reduce((total, row) => total + Number(row[key] ?? 0), 0);
}
