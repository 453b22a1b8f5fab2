-- Daily CU p95 per instruction (UTC day of receipt) over the longest window, per program × scope:
-- nearest-rank over the attempts each decoded row stands for (`sample_weight`, as cu_instructions).
CREATE TABLE cu_trend AS
WITH decoded AS (
  SELECT program, account_id, instruction, day, cu_used, coalesce(sample_weight, 1) AS weight
  FROM attempts
  WHERE received_at BETWEEN {{since}} AND {{until}} AND outcome IN ('landed', 'failed_onchain') AND instruction IS NOT NULL AND cu_used IS NOT NULL
), scoped AS (
  SELECT program, account_id AS scope, instruction, day, cu_used, weight FROM decoded
  UNION ALL
  SELECT program, '*' AS scope, instruction, day, cu_used, weight FROM decoded
), ranked AS (
  SELECT *,
    sum(weight) OVER (PARTITION BY program, scope, instruction, day) AS total,
    sum(weight) OVER (PARTITION BY program, scope, instruction, day ORDER BY cu_used ROWS UNBOUNDED PRECEDING) AS running
  FROM scoped
)
SELECT program, scope, instruction, day, min(cu_used) FILTER (WHERE running >= 0.95 * total) AS cu_p95
FROM ranked
GROUP BY program, scope, instruction, day
