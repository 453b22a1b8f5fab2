// provider-report/{program}: measured drop rate per RPC provider over resolved sends (preflight
// failures never reached a provider), with a 95% Wilson interval, the share of drops that were
// blockhash expiry, and time to land p50/p95 in milliseconds and in slots (tables/rollups.ts TIME_TO_LAND and
// SLOTS_TO_LAND; null where no send's time can be known). Public answers are precomputed by the tables job (providerReportAnswers);
// account-scoped ones are computed on request by the same function and cached per serving version.

import type { Context } from "../../context";
import { type Interval, ratio, wilson } from "../../shared/stats";
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

export type ProviderRow = {
  rpcLabel: string;
  rpcHash: string;
  attempts: number;
  dropped: number;
  dropRate: number;
  ci95: Interval;
  expiredShare: number;
  timeToLandMs: { p50: number | null; p95: number | null };
  /**
   * Time to land in slots (docs/api.md#time-to-land), over the `measured` sends whose client sent the slot it saw
   * before sending; null quantiles when none did. Slot times change, so latencies read in slots as well as in ms.
   */
  timeToLandSlots: { p50: number | null; p95: number | null; measured: number };
  /** How many accounts the provider's sends count (public: weighted, docs/serving.md#public-figures). */
  accounts: number;
};
export type ProviderReportResponse = { program: string; window: WindowRange; providers: ProviderRow[] };

type ProviderCountRow = {
  program: string;
  win: string;
  rpc_label: string;
  rpc_hash: string;
  attempts: number;
  dropped: number;
  expired: number;
  land_quantiles: number[] | null;
  land_slot_quantiles: number[] | null;
  land_slot_sends: number;
  accounts: number;
};

const PROVIDERS_SQL = `
  SELECT program, win, rpc_label, rpc_hash, attempts, dropped, expired, land_quantiles, land_slot_quantiles, land_slot_sends, accounts
  FROM providers
  WHERE scope = $1 AND ($2::VARCHAR IS NULL OR program = $2) AND ($3::VARCHAR IS NULL OR win = $3)
  ORDER BY program, win, attempts DESC, rpc_label`;

export async function providerReport(ctx: Context, input: BaseParams): Promise<ProviderReportResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  if (params.accountId === null) {
    const precomputed = tables.precomputed<ProviderReportResponse>("provider-report", params.program, params.window);
    if (precomputed) return precomputed;
  }
  return tables.cached(answerKey("provider-report", params), async () => {
    const answers = await providerReportAnswers(tables, {
      scope: scopeKey(params.accountId),
      programs: [params.program],
      windows: [params.window],
    });
    return answers.get(answerSlot(params.program, params.window))!;
  });
}

/** The provider-report answer of every listed program × window in one scope, keyed by answerSlot. */
export async function providerReportAnswers(
  source: RowSource,
  { scope, programs, windows }: AnswerScope,
): Promise<Map<string, ProviderReportResponse>> {
  const rows = await source.all<ProviderCountRow>(PROVIDERS_SQL, [
    scope,
    programFilter(programs),
    windowFilter(windows),
  ]);
  const bySlot = groupRows(rows, (row) => answerSlot(row.program, row.win));
  const answers = new Map<string, ProviderReportResponse>();
  for (const program of programs) {
    for (const window of windows) {
      answers.set(answerSlot(program, window), {
        program,
        window: windowRange(source, window),
        providers: (bySlot.get(answerSlot(program, window)) ?? []).map((row) => ({
          rpcLabel: row.rpc_label,
          rpcHash: row.rpc_hash,
          attempts: row.attempts,
          dropped: row.dropped,
          dropRate: ratio(row.dropped, row.attempts),
          ci95: wilson(row.dropped, row.attempts),
          expiredShare: ratio(row.expired, row.dropped),
          timeToLandMs: { p50: row.land_quantiles?.[0] ?? null, p95: row.land_quantiles?.[1] ?? null },
          timeToLandSlots: {
            p50: row.land_slot_quantiles?.[0] ?? null,
            p95: row.land_slot_quantiles?.[1] ?? null,
            measured: Number(row.land_slot_sends),
          },
          accounts: Number(row.accounts),
        })),
      });
    }
  }
  return answers;
}
