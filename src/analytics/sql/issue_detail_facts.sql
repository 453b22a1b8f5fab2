-- The issue page's aggregates (docs/api.md#get-v1issuefingerprint), merged by the tables job from
-- its units (tables/serving-tables.ts): attempts, wallets and bot-segment attempts per window
-- (issue_totals); attempts per hour over 7 days and per UTC day over 30 days (issue_series); and
-- the selected window's breakdowns by provider and wallet adapter (issue_breakdowns), instruction
-- and payer segment (issues). Windows are inclusive at both ends, as in top-issues.
-- $1 scope ('*' or an account id), $2 fingerprint, $3 the selected window.
SELECT 'window' AS kind, win AS key, sum(count) AS count, sum(wallets) AS wallets, sum(bot_count) AS bots
FROM issue_totals WHERE scope = $1 AND fingerprint = $2 GROUP BY win
UNION ALL
SELECT kind, CAST(unit AS VARCHAR), sum(n), NULL, NULL FROM issue_series WHERE fingerprint = $2 AND ($1 = '*' OR account_id = $1) GROUP BY kind, unit
UNION ALL
SELECT kind, key, sum(n), NULL, NULL FROM issue_breakdowns WHERE fingerprint = $2 AND win = $3 AND ($1 = '*' OR account_id = $1) GROUP BY kind, key
UNION ALL
SELECT 'instruction', any_value(instruction), sum(count), NULL, NULL FROM issues WHERE scope = $1 AND fingerprint = $2 AND win = $3 HAVING sum(count) > 0
UNION ALL
SELECT 'segment', segment, sum(count), NULL, NULL FROM issues WHERE scope = $1 AND fingerprint = $2 AND win = $3 GROUP BY segment
