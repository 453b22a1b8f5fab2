-- Resolved-attempt counts per outcome for each program × scope × window × provider (pending counted
-- apart, never in rates). Counts are additive: program, ecosystem and provider rates are sums.
-- scope '*' is the public aggregate; otherwise the account id.
CREATE TABLE rates AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win,
  a.rpc_label, a.rpc_hash,
  count(*) FILTER (WHERE a.outcome = 'landed') AS landed,
  count(*) FILTER (WHERE a.outcome = 'failed_onchain') AS failed_onchain,
  count(*) FILTER (WHERE a.outcome = 'dropped') AS dropped,
  count(*) FILTER (WHERE a.outcome = 'preflight') AS preflight,
  count(*) FILTER (WHERE a.outcome IS NULL) AS pending
FROM windowed_attempts a
GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, a.rpc_label, a.rpc_hash), (a.program, a.win, a.rpc_label, a.rpc_hash))
