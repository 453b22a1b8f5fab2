// Build step: the public answer of every route that takes no per-request parameter, for every
// known program × window, computed by the query layer's own answer functions over the database
// being built and written as the version's answers side file (format and reader:
// serving/precomputed-answers.ts). One set of bulk queries per route, not one per answer: a few hundred
// answers cost a second or two.

import type { DuckDBConnection } from "@duckdb/node-api";
import { plainRow } from "../../lake/duckdb";
import {
  type AnswerScope,
  answerSlot,
  baselineAnswers,
  cuHeadroomAnswers,
  providerReportAnswers,
  type RowSource,
  releaseDiffAnswers,
  topIssuesAnswers,
} from "../queries";
import { type AnswerLine, answerLines, type PrecomputedRoute } from "../serving/precomputed-answers";
import { type SqlParam, toDuckValue } from "../serving/reader";
import { sqlFile } from "../sql";
import { WINDOW_NAMES } from "../windows";

const ANSWER_FUNCTIONS: Record<
  PrecomputedRoute,
  (source: RowSource, scope: AnswerScope) => Promise<Map<string, unknown>>
> = {
  baseline: baselineAnswers,
  "release-diff": releaseDiffAnswers,
  "top-issues": topIssuesAnswers,
  "cu-headroom": cuHeadroomAnswers,
  "provider-report": providerReportAnswers,
};

/** A RowSource over the build's connection (the tables it has created so far). */
export function buildRowSource(connection: DuckDBConnection, clock: number): RowSource {
  return {
    clock,
    async all<T>(sql: string, params: SqlParam[] = []) {
      const reader = await connection.runAndReadAll(sql, params.map(toDuckValue));
      return reader.getRowObjectsJS().map((row) => plainRow(row) as T);
    },
  };
}

/** Computes the public answers and writes them to `file`; returns how many. */
export async function writeAnswers(connection: DuckDBConnection, clock: number, file: string): Promise<number> {
  const source = buildRowSource(connection, clock);
  const programs = (await source.all<{ program: string }>(sqlFile("known_programs"))).map((row) => row.program);
  const lines: AnswerLine[] = [];
  for (const [route, answersOf] of Object.entries(ANSWER_FUNCTIONS) as [
    PrecomputedRoute,
    (typeof ANSWER_FUNCTIONS)[PrecomputedRoute],
  ][]) {
    const answers = await answersOf(source, { scope: "*", programs, windows: WINDOW_NAMES });
    for (const program of programs) {
      for (const win of WINDOW_NAMES) {
        const answer = answers.get(answerSlot(program, win));
        if (answer !== undefined) lines.push({ route, program, win, body: JSON.stringify(answer) });
      }
    }
  }
  await Bun.write(file, answerLines(lines));
  return lines.length;
}
