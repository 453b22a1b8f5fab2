-- When the issue was first and last seen in this scope (issue_lifetimes keeps them across builds,
-- beyond the attempts' retention). $1 scope, $2 fingerprint.
SELECT min(first_seen) AS first_seen, max(last_seen) AS last_seen FROM issue_lifetimes WHERE scope = $1 AND fingerprint = $2
