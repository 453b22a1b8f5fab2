-- Per instruction of landed and failed-on-chain attempts, per deploy × window × scope: on-chain
-- failure rate and CU p95 before and after.
CREATE TABLE release_instructions AS
SELECT p.program, p.slot, p.win, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.instruction,
  count(*) FILTER (WHERE p.period = 'pre') AS pre_attempts,
  count(*) FILTER (WHERE p.period = 'pre' AND a.outcome = 'failed_onchain') AS pre_failed,
  count(*) FILTER (WHERE p.period = 'post') AS post_attempts,
  count(*) FILTER (WHERE p.period = 'post' AND a.outcome = 'failed_onchain') AS post_failed,
  quantile_disc(a.cu_used, 0.95) FILTER (WHERE p.period = 'pre') AS cu_p95_pre,
  quantile_disc(a.cu_used, 0.95) FILTER (WHERE p.period = 'post') AS cu_p95_post
FROM release_periods p JOIN attempts a ON a.program = p.program AND a.received_at >= p.starts AND a.received_at < p.ends
WHERE a.outcome IN ('landed', 'failed_onchain') AND a.instruction IS NOT NULL
GROUP BY GROUPING SETS ((p.program, p.slot, p.win, a.account_id, a.instruction), (p.program, p.slot, p.win, a.instruction))
