-- Every program with attempts in retention, per scope: answers "unknown program" (404) cheaply.
CREATE TABLE programs AS
SELECT program, CASE WHEN grouping(account_id) = 1 THEN '*' ELSE account_id END AS scope, count(*) AS attempts, max(received_at) AS last_seen
FROM attempts GROUP BY GROUPING SETS ((program, account_id), (program))
