// cu-headroom/{program}: per instruction, compute units used (nearest-rank p50/p95, max) against the
// typical requested limit, how often the budget was exceeded, and the daily p95 trend. Public
// answers are precomputed by the tables job (cuHeadroomAnswers); account-scoped ones are computed
// on request by the same function and cached per serving version.

import type { Context } from "../../context";
import { utcDay } from "../../lake/paths";
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

type InstructionRow = {
  program: string;
  win: string;
  instruction: string;
  samples: number;
  cu_quantiles: number[];
  cu_max: number;
  cu_requested_p50: number | null;
  exceeded: number;
};
type TrendRow = { program: string; instruction: string; day: string; cu_p95: number };

const INSTRUCTIONS_SQL = `
  SELECT program, win, instruction, samples, cu_quantiles, cu_max, cu_requested_p50, exceeded FROM cu_instructions
  WHERE scope = $1 AND ($2::VARCHAR IS NULL OR program = $2) AND ($3::VARCHAR IS NULL OR win = $3)
  ORDER BY program, win, samples DESC, instruction`;
const TREND_SQL = `
  SELECT program, instruction, day, cu_p95 FROM cu_trend
  WHERE scope = $1 AND ($2::VARCHAR IS NULL OR program = $2) AND day >= $3
  ORDER BY program, instruction, day`;

export async function cuHeadroom(ctx: Context, input: BaseParams): Promise<CuHeadroomResponse> {
  const params = parseParams(baseParams, input);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  if (params.accountId === null) {
    const precomputed = tables.precomputed<CuHeadroomResponse>("cu-headroom", params.program, params.window);
    if (precomputed) return precomputed;
  }
  return tables.cached(answerKey("cu-headroom", params), async () => {
    const answers = await cuHeadroomAnswers(tables, {
      scope: scopeKey(params.accountId),
      programs: [params.program],
      windows: [params.window],
    });
    return answers.get(answerSlot(params.program, params.window))!;
  });
}

/** The cu-headroom answer of every listed program × window in one scope, keyed by answerSlot. */
export async function cuHeadroomAnswers(
  source: RowSource,
  { scope, programs, windows }: AnswerScope,
): Promise<Map<string, CuHeadroomResponse>> {
  const ranges = windows.map((window) => windowRange(source, window));
  const firstDay = utcDay(Math.min(...ranges.map((range) => range.since)));
  const instructionRows = await source.all<InstructionRow>(INSTRUCTIONS_SQL, [
    scope,
    programFilter(programs),
    windowFilter(windows),
  ]);
  const trendRows = await source.all<TrendRow>(TREND_SQL, [scope, programFilter(programs), firstDay]);
  const instructionsBySlot = groupRows(instructionRows, (row) => answerSlot(row.program, row.win));
  const trendsByProgram = groupRows(trendRows, (row) => row.program);
  const answers = new Map<string, CuHeadroomResponse>();
  for (const program of programs) {
    for (const window of ranges) {
      const since = utcDay(window.since);
      const trends = new Map<string, { day: string; cuP95: number }[]>();
      for (const row of trendsByProgram.get(program) ?? []) {
        if (row.day < since) continue;
        const list = trends.get(row.instruction) ?? [];
        list.push({ day: row.day, cuP95: row.cu_p95 });
        trends.set(row.instruction, list);
      }
      answers.set(answerSlot(program, window.name), {
        program,
        window,
        instructions: (instructionsBySlot.get(answerSlot(program, window.name)) ?? []).map((row) => {
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
      });
    }
  }
  return answers;
}
