-- Outcome counts per program × scope × window × payer: the wallet route's summary.
CREATE TABLE wallet_summary AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win, a.payer,
  count(*) FILTER (WHERE a.outcome = 'landed') AS landed,
  count(*) FILTER (WHERE a.outcome = 'failed_onchain') AS failed_onchain,
  count(*) FILTER (WHERE a.outcome = 'dropped') AS dropped,
  count(*) FILTER (WHERE a.outcome = 'preflight') AS preflight
FROM windowed_attempts a
GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, a.payer), (a.program, a.win, a.payer))
