-- First and last occurrence of every issue ever seen, per scope. Carried over from the previous
-- build (issue_lifetimes_prev) so firstSeen survives the attempts falling out of retention.
CREATE TABLE issue_lifetimes AS
WITH current AS (
  SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.fingerprint,
    min(a.received_at) AS first_seen, max(a.received_at) AS last_seen
  FROM attempts a WHERE a.fingerprint IS NOT NULL
  GROUP BY GROUPING SETS ((a.program, a.account_id, a.fingerprint), (a.program, a.fingerprint))
)
SELECT program, scope, fingerprint, min(first_seen) AS first_seen, max(last_seen) AS last_seen
FROM (SELECT * FROM current UNION ALL SELECT program, scope, fingerprint, first_seen, last_seen FROM issue_lifetimes_prev)
GROUP BY program, scope, fingerprint
