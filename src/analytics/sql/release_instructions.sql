-- Per instruction of landed and failed-on-chain attempts, per deploy × window × scope: on-chain
-- failure rate (every attempt with a named instruction) and CU p95 before and after, nearest-rank
-- over the attempts each decoded row stands for (`sample_weight`, as cu_instructions).
CREATE TABLE release_instructions AS
WITH periods AS (
  SELECT p.program, p.slot, p.win, p.period, a.account_id, a.instruction, a.outcome, a.cu_used,
    CASE WHEN a.cu_used IS NOT NULL THEN coalesce(a.sample_weight, 1) END AS weight
  FROM release_periods p JOIN attempts a ON a.program = p.program AND a.received_at >= p.starts AND a.received_at < p.ends
  WHERE a.outcome IN ('landed', 'failed_onchain') AND a.instruction IS NOT NULL
), scoped AS (
  SELECT program, slot, win, period, account_id AS scope, instruction, outcome, cu_used, weight FROM periods
  UNION ALL
  SELECT program, slot, win, period, '*' AS scope, instruction, outcome, cu_used, weight FROM periods
), ranked AS (
  SELECT *,
    sum(weight) OVER (PARTITION BY program, slot, win, scope, instruction, period) AS total,
    sum(weight) OVER (PARTITION BY program, slot, win, scope, instruction, period ORDER BY cu_used NULLS LAST ROWS UNBOUNDED PRECEDING) AS running
  FROM scoped
)
SELECT program, slot, win, scope, instruction,
  count(*) FILTER (WHERE period = 'pre') AS pre_attempts,
  count(*) FILTER (WHERE period = 'pre' AND outcome = 'failed_onchain') AS pre_failed,
  count(*) FILTER (WHERE period = 'post') AS post_attempts,
  count(*) FILTER (WHERE period = 'post' AND outcome = 'failed_onchain') AS post_failed,
  min(cu_used) FILTER (WHERE period = 'pre' AND weight IS NOT NULL AND running >= 0.95 * total) AS cu_p95_pre,
  min(cu_used) FILTER (WHERE period = 'post' AND weight IS NOT NULL AND running >= 0.95 * total) AS cu_p95_post
FROM ranked
GROUP BY program, slot, win, scope, instruction
