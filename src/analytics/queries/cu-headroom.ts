// cu-headroom/{program}: per instruction, compute units used (nearest-rank p50/p95, max) against the
// typical requested limit, how often the budget was exceeded, and the daily p95 trend.

import type { Context } from "../../context";
import { utcDay } from "../../lake/paths";
import { servingTables } from "../serving/reader";
import { answerKey, baseParams, parseParams, requireKnownProgram, scopeKey, windowRange, type BaseParams, type WindowRange } from "./common";

export type CuInstruction = {
  instruction: string;
  samples: number;
  cuUsed: { p50: number; p95: number; max: number };
  cuRequestedP50: number | null;
  /** CU left at p95 usage under the median requested limit (negative: p95 exceeds it). */
  headroomP95: number | null;
  exceeded: number;
  trend: { day: string; cuP95: number }[];
};
export type CuHeadroomResponse = { program: string; window: WindowRange; instructions: CuInstruction[] };

export async function cuHeadroom(ctx: Context, input: BaseParams): Promise<CuHeadroomResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("cu-headroom", params), async () => {
    await requireKnownProgram(tables, params.program);
    const scope = scopeKey(params.accountId);
    const window = windowRange(tables, params.window);
    const rows = await tables.all<{ instruction: string; samples: number; cu_quantiles: number[]; cu_max: number; cu_requested_p50: number | null; exceeded: number }>(
      "SELECT instruction, samples, cu_quantiles, cu_max, cu_requested_p50, exceeded FROM cu_instructions WHERE program = $1 AND scope = $2 AND win = $3 ORDER BY samples DESC, instruction",
      [params.program, scope, params.window],
    );
    const trendRows = await tables.all<{ instruction: string; day: string; cu_p95: number }>(
      "SELECT instruction, day, cu_p95 FROM cu_trend WHERE program = $1 AND scope = $2 AND day >= $3 ORDER BY instruction, day",
      [params.program, scope, utcDay(window.since)],
    );
    const trends = new Map<string, { day: string; cuP95: number }[]>();
    for (const row of trendRows) {
      const list = trends.get(row.instruction) ?? [];
      list.push({ day: row.day, cuP95: row.cu_p95 });
      trends.set(row.instruction, list);
    }
    return {
      program: params.program,
      window,
      instructions: rows.map((row) => {
        const [p50, p95] = row.cu_quantiles;
        return {
          instruction: row.instruction,
          samples: row.samples,
          cuUsed: { p50, p95, max: row.cu_max },
          cuRequestedP50: row.cu_requested_p50,
          headroomP95: row.cu_requested_p50 === null ? null : row.cu_requested_p50 - p95,
          exceeded: row.exceeded,
          trend: trends.get(row.instruction) ?? [],
        };
      }),
    };
  });
}
