// Small, pure statistics used by the query layer: 95% Wilson score intervals for rates, the
// two-proportion z-test for release diffs, and the Rates object every analytical route returns
// (docs/api.md). Kept free of I/O so tests can check them against textbook values.

export type Interval = [number, number];

/** Resolved-attempt counts per outcome (pending attempts are never counted). */
export type OutcomeCounts = { landed: number; failedOnchain: number; dropped: number; preflight: number };

export type Rates = {
  attempts: number;
  landed: number;
  failedOnchain: number;
  dropped: number;
  preflight: number;
  landingRate: number;
  failureRate: number;
  dropRate: number;
  preflightRate: number;
  ci95: { landingRate: Interval; dropRate: Interval };
};

const Z95 = 1.959963984540054;

/** 95% Wilson score interval of `successes` out of `trials`; [0, 0] when there are no trials. */
export function wilson(successes: number, trials: number, z = Z95): Interval {
  if (trials <= 0) return [0, 0];
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  // Exact bounds at the edges (no floating-point residue like 5e-17).
  return [successes <= 0 ? 0 : clamp01(centre - half), successes >= trials ? 1 : clamp01(centre + half)];
}

/** `part / whole`, 0 for an empty whole. */
export function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

export function rates(counts: OutcomeCounts): Rates {
  const attempts = counts.landed + counts.failedOnchain + counts.dropped + counts.preflight;
  return {
    attempts,
    landed: counts.landed,
    failedOnchain: counts.failedOnchain,
    dropped: counts.dropped,
    preflight: counts.preflight,
    landingRate: ratio(counts.landed, attempts),
    failureRate: ratio(counts.failedOnchain, attempts),
    dropRate: ratio(counts.dropped, attempts),
    preflightRate: ratio(counts.preflight, attempts),
    ci95: { landingRate: wilson(counts.landed, attempts), dropRate: wilson(counts.dropped, attempts) },
  };
}

export const NO_COUNTS: OutcomeCounts = { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 };

/** Complementary error function (Abramowitz–Stegun 7.1.26; absolute error < 1.5e-7). */
export function erfc(x: number): number {
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const value = poly * Math.exp(-ax * ax);
  return x >= 0 ? value : 2 - value;
}

/**
 * Two-sided pooled two-proportion z-test of x1/n1 against x2/n2. Returns 1 when either sample is
 * empty or the pooled proportion is 0 or 1 (no evidence of a difference).
 */
export function twoProportionPValue(x1: number, n1: number, x2: number, n2: number): number {
  if (n1 <= 0 || n2 <= 0) return 1;
  const pooled = (x1 + x2) / (n1 + n2);
  if (pooled <= 0 || pooled >= 1) return 1;
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = (x2 / n2 - x1 / n1) / se;
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

function clamp01(x: number): number {
  return x < 0 ? 0 : Math.min(x, 1);
}
