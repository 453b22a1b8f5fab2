-- Each issue across segments per program × scope × window: its count, how much of it came from
-- bot-segment payers (botShare) and distinct wallets.
CREATE TABLE issue_totals AS
SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win, a.fingerprint,
  count(*) AS count, count(*) FILTER (WHERE s.segment = 'bot') AS bot_count, count(DISTINCT a.payer) AS wallets
FROM windowed_attempts a
LEFT JOIN payer_scores s ON s.payer = a.payer
WHERE a.fingerprint IS NOT NULL
GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, a.fingerprint), (a.program, a.win, a.fingerprint))
