-- LANDING_SCORE_MAX_ACCOUNT_SHARE: an account above its program's ceiling (account_caps.keep)
-- keeps only its `keep` sampled sends with the lowest md5(attempt_id); every other row stays.
DROP VIEW IF EXISTS counted_sends;
CREATE TEMP TABLE counted_sends AS
SELECT s.program, s.account_id, s.rpc_label, s.outcome
FROM sampled_sends s ANTI JOIN account_caps c USING (program, account_id)
UNION ALL
SELECT program, account_id, rpc_label, outcome FROM (
  SELECT s.program, s.account_id, s.rpc_label, s.outcome, c.keep,
    row_number() OVER (PARTITION BY s.program, s.account_id ORDER BY md5(s.attempt_id), s.attempt_id) AS position
  FROM sampled_sends s JOIN account_caps c USING (program, account_id)
)
WHERE position <= keep
