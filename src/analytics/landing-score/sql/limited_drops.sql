-- PUBLIC_UNCONFIRMED_PER_CONFIRMED: a drop never shows on chain, so an account's sampled drops of a
-- program count at most drop_caps.keep (its sampled sends the chain confirmed there × the setting):
-- those with the lowest md5(attempt_id). Its other sends and every other account's stay.
CREATE OR REPLACE TEMP TABLE sampled_sends_unlimited AS SELECT * FROM sampled_sends;
CREATE OR REPLACE TEMP TABLE sampled_sends AS
SELECT program, account_id, rpc_label, outcome, attempt_id FROM (
  SELECT s.*, c.keep,
    row_number() OVER (PARTITION BY s.program, s.account_id, s.outcome ORDER BY md5(s.attempt_id), s.attempt_id) AS position
  FROM sampled_sends_unlimited s LEFT JOIN drop_caps c USING (program, account_id)
)
WHERE keep IS NULL OR outcome <> 'dropped' OR position <= keep;
DROP TABLE sampled_sends_unlimited
