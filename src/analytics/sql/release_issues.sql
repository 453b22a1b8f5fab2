-- Issue counts per deploy × window × scope, before and after. The issue's own fields are the ones
-- the issues table (top-issues) takes, aggregated the same way (outcome, failing program and errCode
-- are part of the fingerprint, so each fingerprint has one value of each).
CREATE TABLE release_issues AS
SELECT p.program, p.slot, p.win, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.fingerprint,
  any_value(a.instruction) AS instruction, any_value(a.err_name) AS err_name, any_value(a.outcome) AS outcome,
  any_value(a.failing_program) AS failing_program, any_value(a.err_code) AS err_code, any_value(a.drop_class) AS drop_class,
  count(*) FILTER (WHERE p.period = 'pre') AS pre_count,
  count(*) FILTER (WHERE p.period = 'post') AS post_count
FROM release_periods p JOIN attempts a ON a.program = p.program AND a.received_at >= p.starts AND a.received_at < p.ends
WHERE a.fingerprint IS NOT NULL
GROUP BY GROUPING SETS ((p.program, p.slot, p.win, a.account_id, a.fingerprint), (p.program, p.slot, p.win, a.fingerprint))
