-- Outcome counts per deploy × window × period × scope.
CREATE TABLE release_rates AS
SELECT p.program, p.slot, p.win, p.period, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope,
  count(*) FILTER (WHERE a.outcome = 'landed') AS landed,
  count(*) FILTER (WHERE a.outcome = 'failed_onchain') AS failed_onchain,
  count(*) FILTER (WHERE a.outcome = 'dropped') AS dropped,
  count(*) FILTER (WHERE a.outcome = 'preflight') AS preflight
FROM release_periods p JOIN attempts a ON a.program = p.program AND a.received_at >= p.starts AND a.received_at < p.ends
WHERE a.outcome IS NOT NULL
GROUP BY GROUPING SETS ((p.program, p.slot, p.win, p.period, a.account_id), (p.program, p.slot, p.win, p.period))
