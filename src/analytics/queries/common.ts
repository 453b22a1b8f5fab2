// Shared pieces of the analytics query functions: input schemas (zod) and their 400s, the scope
// key of a request (public '*' or an account id), window bounds, the unknown-program 404, turning
// count rows into Rates, and the row source the answers are computed from (the serving tables at
// request time, the database being built when the tables job precomputes public answers).

import { z } from "zod";
import { isBase58Address } from "../../shared/base58";
import { badRequest, describeIssues, notFound } from "../../shared/errors";
import type { OutcomeCounts } from "../../shared/stats";
import type { ServingTables, SqlParam } from "../serving/reader";
import { DEFAULT_WINDOW, WINDOW_NAMES, WINDOWS, type WindowName } from "../windows";

export { DEFAULT_WINDOW, WINDOW_NAMES };

/** Where answers are computed from: parameterised SQL ($1, $2, ...) and the build's clock. */
export type RowSource = {
  all<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T[]>;
  readonly clock: number;
};

export const address = (what: string) => z.string().refine(isBase58Address, `expected a base58 ${what} (32 bytes)`);
export const windowName = z
  .enum(WINDOW_NAMES as [WindowName, ...WindowName[]], { message: `expected one of ${WINDOW_NAMES.join(", ")}` })
  .nullish()
  .transform((w) => w ?? DEFAULT_WINDOW);

/** program + window + accountId: what every analytical question takes. */
export const baseParams = z.object({
  program: address("program id"),
  window: windowName,
  accountId: z.string().min(1).nullable(),
});
/** Loose on purpose: callers pass raw strings; the schema above decides (400 on anything else). */
export type BaseParams = { program: string; window?: string | null; accountId: string | null };

/** Parses query-function input; a failure is a 400 naming the field. */
export function parseParams<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
  return parsed.data;
}

/** The serving tables' scope key: '*' for the public aggregate, else the account id. */
export const scopeKey = (accountId: string | null) => accountId ?? "*";

export type WindowRange = { name: WindowName; since: number; until: number };

export function windowRange(source: { readonly clock: number }, name: WindowName): WindowRange {
  return { name, since: source.clock - WINDOWS[name], until: source.clock };
}

/** 404 when txray has no data at all for the program (neither attempts nor deploys). */
export function requireKnownProgram(tables: ServingTables, program: string): void {
  if (!tables.knowsProgram(program)) throw notFound(`program ${program}: no data`);
}

/** The programs and windows an answer computation covers: one (a request) or all (precomputation). */
export type AnswerScope = { scope: string; programs: string[]; windows: readonly WindowName[] };

/** A SQL parameter filtering on the program: the one program, or NULL (no filter) for several. */
export const programFilter = (programs: string[]): string | null => (programs.length === 1 ? programs[0] : null);
/** A SQL parameter filtering on the window: the one window, or NULL for several. */
export const windowFilter = (windows: readonly WindowName[]): WindowName | null =>
  windows.length === 1 ? windows[0] : null;

/** The key of one program × window answer in the maps the answer computations return. */
export const answerSlot = (program: string, window: string) => `${program}|${window}`;

/** Rows grouped by a key, in their original order. */
export function groupRows<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

export type CountRow = {
  landed: number | null;
  failed_onchain: number | null;
  dropped: number | null;
  preflight: number | null;
};

export function countsOf(row: CountRow | undefined): OutcomeCounts {
  return {
    landed: Number(row?.landed ?? 0),
    failedOnchain: Number(row?.failed_onchain ?? 0),
    dropped: Number(row?.dropped ?? 0),
    preflight: Number(row?.preflight ?? 0),
  };
}

/** SQL select list summing outcome counts. */
export const SUM_COUNTS =
  "coalesce(sum(landed), 0) AS landed, coalesce(sum(failed_onchain), 0) AS failed_onchain, coalesce(sum(dropped), 0) AS dropped, coalesce(sum(preflight), 0) AS preflight";

/**
 * The programs txray has seen on the chain (an attempt of them landed or failed on chain in some
 * window, in public): the ones the ecosystem's figures count. A made-up program id only ever drops or
 * fails preflight, so its attempts never reach them.
 */
export const seenOnChainProgramsSql = (rates: string) =>
  `SELECT program FROM ${rates} WHERE scope = '*' GROUP BY program HAVING sum(landed + failed_onchain) > 0`;
/** The same over a serving version's `rates` (the tables job reads it from the version it writes). */
export const SEEN_ON_CHAIN_PROGRAMS = seenOnChainProgramsSql("rates");

/** A stable memo key for an answer. */
export const answerKey = (question: string, params: unknown) => `${question}:${JSON.stringify(params)}`;
