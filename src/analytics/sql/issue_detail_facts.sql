-- The issue page's aggregates (docs/api.md#get-v1issuefingerprint) in one pass over the issue's
-- attempts of the last 30 days: attempts, wallets and bot-segment attempts per window; attempts per
-- hour over 7 days and per UTC day over 30 days; and the selected window's breakdowns by provider,
-- wallet adapter, instruction and payer segment. Windows are inclusive at both ends, as in top-issues.
-- $1 scope ('*' or an account id), $2 fingerprint, $3 start of the selected window, $4 its end
-- (the build's clock: every window ends there), $5 / $6 / $7 the starts of the 1d / 7d / 30d windows.
WITH mine AS MATERIALIZED (
  SELECT a.received_at, a.payer, a.rpc_label, a.wallet_adapter, a.instruction, coalesce(s.segment, 'human') AS segment
  FROM attempts a LEFT JOIN payer_scores s ON s.payer = a.payer
  WHERE a.fingerprint = $2 AND ($1 = '*' OR a.account_id = $1) AND a.received_at BETWEEN $7 AND $4
)
SELECT 'window' AS kind, w.win AS key, count(m.received_at) AS count, count(DISTINCT m.payer) AS wallets,
  count(m.received_at) FILTER (WHERE m.segment = 'bot') AS bots
FROM (VALUES ('1d', $5), ('7d', $6), ('30d', $7)) w(win, since) LEFT JOIN mine m ON m.received_at >= w.since
GROUP BY w.win
UNION ALL
SELECT 'hour', CAST(received_at // 3600000 AS VARCHAR), count(*), NULL, NULL FROM mine WHERE received_at >= $6 GROUP BY 2
UNION ALL
SELECT 'day', CAST(received_at // 86400000 AS VARCHAR), count(*), NULL, NULL FROM mine GROUP BY 2
UNION ALL
SELECT 'provider', rpc_label, count(*), NULL, NULL FROM mine WHERE received_at >= $3 GROUP BY 2
UNION ALL
SELECT 'walletAdapter', wallet_adapter, count(*), NULL, NULL FROM mine WHERE received_at >= $3 GROUP BY 2
UNION ALL
SELECT 'instruction', instruction, count(*), NULL, NULL FROM mine WHERE received_at >= $3 GROUP BY 2
UNION ALL
SELECT 'segment', segment, count(*), NULL, NULL FROM mine WHERE received_at >= $3 GROUP BY 2
