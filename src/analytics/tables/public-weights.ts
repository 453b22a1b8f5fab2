// What one account may move in the public (unscoped) figures (docs/serving.md, "Public figures").
// Anyone with an ingest key can report attempts the chain never saw: random signatures resolve as
// drops, and a made-up preflight error is never checked. So in the public rows, per (range, program,
// account): the account's outcomes the chain cannot confirm (dropped, preflight) count at most
// `unconfirmedPerConfirmed` times its outcomes the chain confirmed (landed, failed on chain) for the
// program, scaled down together; then, where more accounts contribute than the share cap needs to be
// satisfiable, no account carries more than `maxAccountShare` of the program's public sample. Its
// pending attempts (not resolved yet: a made-up signature stays pending until its blockhash expires)
// are limited by its confirmed outcomes the same way, apart from its drops, and cut by the same share.
// A deployment whose data holds one account has nobody to be protected from: its public figures
// are its own, unweighted. Account-scoped rows are never weighted.

import type { StateDb } from "./state";

export type PublicTrust = {
  /** Largest share of a program's public sample one account may carry (1 = no cap). */
  maxAccountShare: number;
  /** Unconfirmable outcomes an account may count per outcome the chain confirmed for it. */
  unconfirmedPerConfirmed: number;
};

/** No weighting at all: what a deployment with one account gets, and what tests of other things use. */
export const UNWEIGHTED: PublicTrust = { maxAccountShare: 1, unconfirmedPerConfirmed: Number.POSITIVE_INFINITY };

type AccountCounts = {
  range: number;
  program: string;
  account_id: string;
  confirmed: number;
  unconfirmed: number;
  pending: number;
};
export type AccountWeight = { confirmed: number; unconfirmed: number };

/**
 * The largest T such that every account keeping min(n, T) carries at most `share` of the kept total:
 * max { T : T ≤ share × Σ min(n_a, T) }, over real numbers. On the interval where the j largest
 * counts are cut (n_(j+1) ≤ T ≤ n_j) the condition reads T × (1 − share × j) ≤ share × (the rest),
 * and the feasible T form one interval from 0, so the first interval from the top with room holds it.
 */
export function shareCeiling(counts: number[], share: number): number {
  const sorted = counts.filter((n) => n > 0).sort((a, b) => b - a);
  if (sorted.length === 0) return 0;
  const total = sorted.reduce((sum, n) => sum + n, 0);
  if (share >= 1 || sorted[0] <= share * total) return sorted[0];
  let rest = total;
  for (let j = 1; j <= sorted.length; j++) {
    rest -= sorted[j - 1];
    const below = sorted[j] ?? 0;
    const room = 1 - share * j;
    const limit = room <= 0 ? Number.POSITIVE_INFINITY : (share * rest) / room;
    if (limit >= below) return Math.min(limit, sorted[j - 1]);
  }
  return 0;
}

/** The weight of `count` outcomes the chain cannot confirm (yet) next to `confirmed` ones: at most `perConfirmed` each. */
export function unconfirmedWeight(confirmed: number, count: number, perConfirmed: number): number {
  if (count === 0 || !Number.isFinite(perConfirmed)) return 1;
  return Math.min(1, (perConfirmed * confirmed) / count);
}

/**
 * Each account's weights in one range of one program: first its unconfirmable outcomes are limited by
 * its confirmed ones, then the share cap applies when more than 1 / share accounts contribute (with
 * fewer, a cap could only make them equal, which says nothing about poisoning).
 */
export function accountWeights(
  accounts: { confirmed: number; unconfirmed: number }[],
  trust: PublicTrust,
): AccountWeight[] {
  const limited = accounts.map(({ confirmed, unconfirmed }) => {
    const weight = unconfirmedWeight(confirmed, unconfirmed, trust.unconfirmedPerConfirmed);
    return { limit: weight, counted: confirmed + unconfirmed * weight };
  });
  const contributing = limited.filter((a) => a.counted > 0).length;
  const capped = trust.maxAccountShare < 1 && contributing * trust.maxAccountShare > 1;
  const ceiling = capped
    ? shareCeiling(
        limited.map((a) => a.counted),
        trust.maxAccountShare,
      )
    : Number.POSITIVE_INFINITY;
  return limited.map(({ limit, counted }) => {
    const cut = counted > ceiling ? ceiling / counted : 1;
    return { confirmed: cut, unconfirmed: cut * limit };
  });
}

/**
 * The temp table `public_weights` (range, program, account_id, w_confirmed, w_unconfirmed, w_pending)
 * over the merged outcome ranges (r_outcomes) of the windows, release periods and whole retention
 * (`all`: the programs' totals and the issues' lifetimes); only accounts with a weight below 1. Returns how many accounts
 * the state's data holds and whether the weights apply.
 */
export async function writePublicWeights(
  state: StateDb,
  trust: PublicTrust,
): Promise<{ accounts: number; weighted: boolean }> {
  const [{ accounts }] = await state.all<{ accounts: number }>(
    "SELECT count(DISTINCT account_id)::INTEGER AS accounts FROM r_outcomes",
  );
  const weighted =
    Number(accounts) > 1 && (trust.maxAccountShare < 1 || Number.isFinite(trust.unconfirmedPerConfirmed));
  await state.run(
    "CREATE OR REPLACE TEMP TABLE public_weights (range INTEGER, program VARCHAR, account_id VARCHAR, w_confirmed DOUBLE, w_unconfirmed DOUBLE, w_pending DOUBLE)",
  );
  if (!weighted) return { accounts: Number(accounts), weighted };
  const rows = await state.all<AccountCounts>(
    `SELECT range, program, account_id, sum(landed + failed_onchain)::DOUBLE AS confirmed, sum(dropped + preflight)::DOUBLE AS unconfirmed,
       sum(pending)::DOUBLE AS pending
     FROM r_outcomes WHERE kind IN ('window', 'release', 'all') GROUP BY ALL ORDER BY ALL`,
  );
  const groups = new Map<string, AccountCounts[]>();
  for (const row of rows) {
    const key = `${row.range}|${row.program}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const values: string[] = [];
  for (const group of groups.values()) {
    const weights = accountWeights(
      group.map((row) => ({ confirmed: Number(row.confirmed), unconfirmed: Number(row.unconfirmed) })),
      trust,
    );
    group.forEach((row, k) => {
      const { confirmed, unconfirmed } = weights[k];
      const pending =
        confirmed * unconfirmedWeight(Number(row.confirmed), Number(row.pending), trust.unconfirmedPerConfirmed);
      if (confirmed === 1 && unconfirmed === 1 && pending === 1) return;
      values.push(
        `(${Number(row.range)}, '${row.program.replaceAll("'", "''")}', '${row.account_id.replaceAll("'", "''")}', ${confirmed}, ${unconfirmed}, ${pending})`,
      );
    });
  }
  for (let at = 0; at < values.length; at += 2000)
    await state.run(`INSERT INTO public_weights VALUES ${values.slice(at, at + 2000).join(", ")}`);
  return { accounts: Number(accounts), weighted };
}
