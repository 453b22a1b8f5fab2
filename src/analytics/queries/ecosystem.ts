// ecosystem: the public overview every visitor sees first (the web app's home page without a key):
// the ecosystem's outcome rates in the window and the programs txray has public data for and has seen
// on the chain, busiest first, each with its own rates. Read from the serving tables' `rates` and `programs` (public scope
// only: no account's data is singled out), memoised per serving version.

import { z } from "zod";
import { PROGRAM_NAMES } from "../../chain/decode";
import { loadIdls } from "../../chain/idl";
import type { Context } from "../../context";
import { parseLimit } from "../../shared/pagination";
import { type Rates, rates } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import {
  answerKey,
  type CountRow,
  countsOf,
  parseParams,
  SEEN_ON_CHAIN_PROGRAMS,
  SUM_COUNTS,
  type WindowRange,
  windowName,
  windowRange,
} from "./common";

export type EcosystemProgram = {
  program: string;
  /** A display name: a well-known program's, else the name its registered IDL declares; null when neither. */
  name: string | null;
  attempts: number;
  lastSeen: number | null;
  rates: Rates;
};
export type EcosystemResponse = { window: WindowRange; rates: Rates; programs: EcosystemProgram[] };
export type EcosystemParams = { window?: string | null; limit?: string | null };

const params = z.object({ window: windowName, limit: z.string().nullish() });

/**
 * A program is listed (and counted in the ecosystem's rates) only once txray has seen it on the chain: an attempt of it
 * landed or failed on chain in any window. Anyone holding a browser's ingest key can name made-up programs in
 * envelopes; those only ever drop or fail preflight, so they never reach the public list.
 */
const PROGRAM_RATES_SQL = `
  SELECT r.program, ${SUM_COUNTS}, max(p.last_seen) AS last_seen
  FROM rates r LEFT JOIN programs p ON p.program = r.program AND p.scope = '*'
  WHERE r.scope = '*' AND r.win = $1
    AND r.program IN (${SEEN_ON_CHAIN_PROGRAMS})
  GROUP BY r.program`;

export async function ecosystem(ctx: Context, input: EcosystemParams): Promise<EcosystemResponse> {
  const parsed = parseParams(params, input);
  const limit = parseLimit(parsed.limit);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("ecosystem", { window: parsed.window, limit }), async () => {
    const rows = await tables.all<CountRow & { program: string; last_seen: number | null }>(PROGRAM_RATES_SQL, [
      parsed.window,
    ]);
    const idls = loadIdls(ctx.paths.root);
    const programs = rows
      .map((row) => {
        const programRates = rates(countsOf(row));
        return {
          program: row.program,
          name: PROGRAM_NAMES[row.program] ?? idls.get(row.program)?.name ?? null,
          attempts: programRates.attempts,
          lastSeen: row.last_seen === null ? null : Number(row.last_seen),
          rates: programRates,
        };
      })
      .sort((a, b) => b.attempts - a.attempts || a.program.localeCompare(b.program));
    const total = programs.reduce(
      (sum, p) => ({
        landed: sum.landed + p.rates.landed,
        failedOnchain: sum.failedOnchain + p.rates.failedOnchain,
        dropped: sum.dropped + p.rates.dropped,
        preflight: sum.preflight + p.rates.preflight,
      }),
      { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 },
    );
    return { window: windowRange(tables, parsed.window), rates: rates(total), programs: programs.slice(0, limit) };
  });
}
