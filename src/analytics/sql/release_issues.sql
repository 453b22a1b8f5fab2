-- Issue counts per deploy × window × scope, before and after.
CREATE TABLE release_issues AS
SELECT p.program, p.slot, p.win, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.fingerprint,
  any_value(a.instruction) AS instruction, any_value(a.err_name) AS err_name, any_value(a.outcome) AS outcome,
  count(*) FILTER (WHERE p.period = 'pre') AS pre_count,
  count(*) FILTER (WHERE p.period = 'post') AS post_count
FROM release_periods p JOIN attempts a ON a.program = p.program AND a.received_at >= p.starts AND a.received_at < p.ends
WHERE a.fingerprint IS NOT NULL
GROUP BY GROUPING SETS ((p.program, p.slot, p.win, a.account_id, a.fingerprint), (p.program, p.slot, p.win, a.fingerprint))
