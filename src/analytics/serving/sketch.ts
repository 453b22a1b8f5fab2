// The quantile sketch of the serving tables: log-spaced buckets (DDSketch's mapping) counted per
// unit and summed to merge, so a p50 or p95 over any range is a merge of units, with a bounded
// relative error (docs/api.md#quantiles). A value v > 0 falls in bucket i when γ^(i−1) < v ≤ γ^i,
// γ = (1 + α) / (1 − α); the bucket stands for 2γ^i / (γ + 1), within α of every value in it.
// Negative values (a block time before the client's clock said it sent) mirror the positive ones;
// 0 has its own bucket. Keys are integers ordered like the values: 0 for 0, i + 1 for v > 0,
// −(i + 1) for v < 0. Quantiles are nearest-rank over the (weighted) counts, as quantile_disc is
// over the values, then rounded to a whole unit (compute units and milliseconds are integers).

/** Relative error of a quantile (before rounding to a whole unit). */
export const SKETCH_RELATIVE_ERROR = 0.01;
const GAMMA = (1 + SKETCH_RELATIVE_ERROR) / (1 - SKETCH_RELATIVE_ERROR);
const LN_GAMMA = Math.log(GAMMA);

/** The DuckDB macros sketch_key(value) and sketch_value(key) (run once per connection). */
export const SKETCH_MACROS_SQL = `
  CREATE OR REPLACE TEMP MACRO sketch_key(v) AS CASE
    WHEN v IS NULL THEN NULL WHEN v = 0 THEN 0
    WHEN v > 0 THEN ceil(ln(v::DOUBLE) / ${LN_GAMMA})::INTEGER + 1
    ELSE -(ceil(ln(-v::DOUBLE) / ${LN_GAMMA})::INTEGER + 1) END;
  CREATE OR REPLACE TEMP MACRO sketch_value(k) AS CASE
    WHEN k IS NULL THEN NULL WHEN k = 0 THEN 0
    WHEN k > 0 THEN round(2 * pow(${GAMMA}, k - 1) / ${GAMMA + 1})::BIGINT
    ELSE -round(2 * pow(${GAMMA}, -k - 1) / ${GAMMA + 1})::BIGINT END`;

/** The bucket key of a value (the TypeScript twin of sketch_key, for tests and readers). */
export function sketchKey(value: number): number {
  if (value === 0) return 0;
  const i = Math.ceil(Math.log(Math.abs(value)) / LN_GAMMA) + 1;
  return value > 0 ? i : -i;
}

/** The value a bucket stands for, rounded to a whole unit. */
export function sketchValue(key: number): number {
  if (key === 0) return 0;
  const value = Math.round((2 * GAMMA ** (Math.abs(key) - 1)) / (GAMMA + 1));
  return key > 0 ? value : -value;
}

/**
 * Nearest-rank quantiles of merged buckets: a SQL select over `source` (columns: the group's
 * `keys`, bucket, n) giving, per group, `total` and one column per quantile named by `as`.
 */
export function sketchQuantilesSql(source: string, keys: string[], quantiles: { q: number; as: string }[]): string {
  const group = keys.join(", ");
  const partition = keys.length > 0 ? `PARTITION BY ${group} ` : "";
  // The small tolerance keeps q·total that is a whole number in floating point from missing its rank.
  const picks = quantiles.map(
    ({ q, as }) => `sketch_value(min(bucket) FILTER (WHERE running >= ${q} * total - 1e-9)) AS ${as}`,
  );
  return `SELECT ${[...keys, "any_value(total) AS total", ...picks].join(", ")} FROM (
      SELECT *, sum(n) OVER (${partition}ORDER BY bucket ROWS UNBOUNDED PRECEDING) AS running, sum(n) OVER (${partition.trim()}) AS total
      FROM (SELECT ${[...keys, "bucket", "sum(n) AS n"].join(", ")} FROM ${source} GROUP BY ${[...keys, "bucket"].join(", ")}) WHERE n > 0
    ) ${keys.length > 0 ? `GROUP BY ${group}` : ""}`;
}
