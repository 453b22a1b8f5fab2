// provider-report/{program}: measured drop rate per RPC provider over resolved sends (preflight
// failures never reached a provider), with a 95% Wilson interval, the share of drops that were
// blockhash expiry, and time to land (block time − client send time) p50/p95.

import type { Context } from "../../context";
import { ratio, wilson, type Interval } from "../stats";
import { servingTables } from "../serving/reader";
import { answerKey, baseParams, parseParams, requireKnownProgram, scopeKey, windowRange, type BaseParams, type WindowRange } from "./common";

export type ProviderRow = {
  rpcLabel: string;
  rpcHash: string;
  attempts: number;
  dropped: number;
  dropRate: number;
  ci95: Interval;
  expiredShare: number;
  timeToLandMs: { p50: number | null; p95: number | null };
};
export type ProviderReportResponse = { program: string; window: WindowRange; providers: ProviderRow[] };

export async function providerReport(ctx: Context, input: BaseParams): Promise<ProviderReportResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("provider-report", params), async () => {
    await requireKnownProgram(tables, params.program);
    const rows = await tables.all<{ rpc_label: string; rpc_hash: string; attempts: number; dropped: number; expired: number; land_quantiles: number[] | null }>(
      "SELECT rpc_label, rpc_hash, attempts, dropped, expired, land_quantiles FROM providers WHERE program = $1 AND scope = $2 AND win = $3 ORDER BY attempts DESC, rpc_label",
      [params.program, scopeKey(params.accountId), params.window],
    );
    return {
      program: params.program,
      window: windowRange(tables, params.window),
      providers: rows.map((row) => ({
        rpcLabel: row.rpc_label,
        rpcHash: row.rpc_hash,
        attempts: row.attempts,
        dropped: row.dropped,
        dropRate: ratio(row.dropped, row.attempts),
        ci95: wilson(row.dropped, row.attempts),
        expiredShare: ratio(row.expired, row.dropped),
        timeToLandMs: { p50: row.land_quantiles?.[0] ?? null, p95: row.land_quantiles?.[1] ?? null },
      })),
    };
  });
}
