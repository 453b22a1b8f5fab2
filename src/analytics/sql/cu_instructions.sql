-- Compute units per instruction of landed and failed-on-chain attempts, per program × scope × window:
-- nearest-rank p50/p95 (quantile_disc), max, the median requested limit and how many exceeded it.
CREATE TABLE cu_instructions AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win, a.instruction,
  count(*) AS samples, quantile_disc(a.cu_used, [0.5, 0.95]) AS cu_quantiles, max(a.cu_used) AS cu_max,
  quantile_disc(a.cu_requested, 0.5) AS cu_requested_p50,
  count(*) FILTER (WHERE a.compute_exceeded) AS exceeded
FROM windowed_attempts a
WHERE a.outcome IN ('landed', 'failed_onchain') AND a.instruction IS NOT NULL AND a.cu_used IS NOT NULL
GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, a.instruction), (a.program, a.win, a.instruction))
