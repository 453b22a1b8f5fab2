-- Provider report: resolved sends only (preflight failures never reached a provider), per program ×
-- scope × window × provider: drops, drops that are blockhash expiry, time to land quantiles.
CREATE TABLE providers AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win, a.rpc_label, a.rpc_hash,
  count(*) AS attempts,
  count(*) FILTER (WHERE a.outcome = 'dropped') AS dropped,
  count(*) FILTER (WHERE a.outcome = 'dropped' AND a.drop_class IN ('expired_blockhash', 'stale_blockhash_at_send')) AS expired,
  quantile_disc(a.block_time - a.sent_at, [0.5, 0.95]) FILTER (WHERE a.block_time IS NOT NULL AND a.outcome IN ('landed', 'failed_onchain')) AS land_quantiles
FROM windowed_attempts a
WHERE a.kind = 'send' AND a.outcome IN ('landed', 'failed_onchain', 'dropped')
GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, a.rpc_label, a.rpc_hash), (a.program, a.win, a.rpc_label, a.rpc_hash))
