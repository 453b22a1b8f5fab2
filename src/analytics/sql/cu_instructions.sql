-- Compute units per instruction of landed and failed-on-chain attempts, per program × scope × window:
-- p50/p95, max, the median requested limit and how many exceeded it. Quantiles are nearest-rank
-- over the attempts each row stands for (`sample_weight`, docs/lake.md "Compute units from the
-- sample": a sampled success stands for 1 / rate successes, a failure for itself; rows of lake
-- version 1 count 1): the smallest value whose cumulative weight reaches p of the total. `samples`
-- is the number of decoded attempts behind the figures (docs/api.md, cu-headroom).
CREATE TABLE cu_instructions AS
WITH decoded AS (
  SELECT program, account_id, win, instruction, cu_used, cu_requested, compute_exceeded, coalesce(sample_weight, 1) AS weight
  FROM windowed_attempts
  WHERE outcome IN ('landed', 'failed_onchain') AND instruction IS NOT NULL AND cu_used IS NOT NULL
), scoped AS (
  SELECT program, account_id AS scope, win, instruction, cu_used, cu_requested, compute_exceeded, weight FROM decoded
  UNION ALL
  SELECT program, '*' AS scope, win, instruction, cu_used, cu_requested, compute_exceeded, weight FROM decoded
), ranked AS (
  SELECT *,
    sum(weight) OVER (PARTITION BY program, scope, win, instruction) AS total,
    sum(weight) OVER (PARTITION BY program, scope, win, instruction ORDER BY cu_used ROWS UNBOUNDED PRECEDING) AS used_running,
    sum(CASE WHEN cu_requested IS NULL THEN 0 ELSE weight END) OVER (PARTITION BY program, scope, win, instruction) AS requested_total,
    sum(CASE WHEN cu_requested IS NULL THEN 0 ELSE weight END) OVER (PARTITION BY program, scope, win, instruction ORDER BY cu_requested NULLS LAST ROWS UNBOUNDED PRECEDING) AS requested_running
  FROM scoped
)
SELECT program, scope, win, instruction, count(*) AS samples,
  [min(cu_used) FILTER (WHERE used_running >= 0.5 * total), min(cu_used) FILTER (WHERE used_running >= 0.95 * total)] AS cu_quantiles,
  max(cu_used) AS cu_max,
  min(cu_requested) FILTER (WHERE cu_requested IS NOT NULL AND requested_running >= 0.5 * requested_total) AS cu_requested_p50,
  count(*) FILTER (WHERE compute_exceeded) AS exceeded
FROM ranked
GROUP BY program, scope, win, instruction
