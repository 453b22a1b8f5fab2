// Shared pieces of the analytics query functions: input schemas (zod) and their 400s, the scope
// key of a request (public '*' or an account id), window bounds, the unknown-program 404, and
// turning count rows into Rates.

import { z } from "zod";
import { isBase58Address } from "../../shared/base58";
import { badRequest, describeIssues, notFound } from "../../shared/errors";
import type { OutcomeCounts } from "../stats";
import { WINDOWS, type WindowName } from "../tables/build";
import type { ServingTables } from "../serving/reader";

export const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];
export const DEFAULT_WINDOW: WindowName = "7d";

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

export function windowRange(tables: ServingTables, name: WindowName): WindowRange {
  return { name, since: tables.clock - WINDOWS[name], until: tables.clock };
}

/** 404 when txray has no data at all for the program (neither attempts nor deploys). */
export async function requireKnownProgram(tables: ServingTables, program: string): Promise<void> {
  const rows = await tables.all(
    "SELECT 1 AS known FROM programs WHERE program = $1 AND scope = '*' UNION ALL SELECT 1 FROM deploys WHERE program = $1 LIMIT 1",
    [program],
  );
  if (rows.length === 0) throw notFound(`program ${program}: no data`);
}

export type CountRow = { landed: number | null; failed_onchain: number | null; dropped: number | null; preflight: number | null };

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

/** A stable memo key for an answer. */
export const answerKey = (question: string, params: unknown) => `${question}:${JSON.stringify(params)}`;
