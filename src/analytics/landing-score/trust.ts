// The poisoning guard: LANDING_SCORE_MAX_ACCOUNT_SHARE caps any one account's weight in a program's
// row. Accounts above the cap keep only their `ceiling` sampled sends with the lowest hash (a
// deterministic sub-sample, so counts stay whole numbers and the Wilson interval stays valid);
// the ceiling is the largest one under which no account carries more than the share.

/**
 * The largest T such that every account keeping min(n, T) sends carries at most `maxShare` of the
 * kept total: max { T : T ≤ maxShare × Σ min(n_a, T) }. Returns the largest count (no cap) when
 * the share is already respected, 0 when no T > 0 works (e.g. one account and maxShare < 1).
 */
export function accountCeiling(counts: number[], maxShare: number): number {
  if (counts.length === 0) return 0;
  const largest = Math.max(...counts);
  if (maxShare >= 1) return largest;
  const fits = (t: number) => t <= maxShare * counts.reduce((sum, n) => sum + Math.min(n, t), 0) + 1e-9;
  if (fits(largest)) return largest;
  // fits() holds on [0, T*] and nowhere above (the slack is concave and 0 at 0): bisect.
  let lo = 0;
  let hi = largest;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Per account, how many of its sampled sends to keep: its own count, or the ceiling when above it. */
export function accountKeep(perAccount: Map<string, number>, maxShare: number): Map<string, number> {
  const ceiling = accountCeiling([...perAccount.values()], maxShare);
  return new Map([...perAccount].map(([account, n]) => [account, Math.min(n, ceiling)]));
}
