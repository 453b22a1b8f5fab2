-- Daily CU p95 per instruction (UTC day of receipt) over the longest window, per program × scope.
CREATE TABLE cu_trend AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.instruction, a.day,
  quantile_disc(a.cu_used, 0.95) AS cu_p95
FROM attempts a
WHERE a.received_at BETWEEN {{since}} AND {{until}} AND a.outcome IN ('landed', 'failed_onchain') AND a.instruction IS NOT NULL AND a.cu_used IS NOT NULL
GROUP BY GROUPING SETS ((a.program, a.account_id, a.instruction, a.day), (a.program, a.instruction, a.day))
