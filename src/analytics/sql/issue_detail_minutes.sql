-- The issue's attempts per minute over the last day (docs/api.md#get-v1issuefingerprint): the issue
-- page's chart of recent activity. From recent_issues, the per-minute counts the tables job keeps for
-- the last 1,440 minutes (tables/recent.ts): a few thousand rows per program at most, never the lake.
-- $1 scope ('*' or an account id), $2 fingerprint, $3 program, $4 the first minute (minutes since the epoch).
SELECT minute, sum(n) AS count
FROM recent_issues
WHERE program = $3 AND fingerprint = $2 AND ($1 = '*' OR account_id = $1) AND minute >= $4
GROUP BY minute
