-- The sampled, resolved sends of the window: one row per send attempt whose md5(attempt_id) falls
-- under its program's threshold (sample_rates.threshold; NULL = every attempt) and whose outcome
-- was decided before {{resolvedBefore}}. Both sides are sampled before the join, so the join only
-- ever sees the sample. Pending attempts (no resolution yet) are not counted.
CREATE OR REPLACE TEMP TABLE sampled_sends AS
WITH envelopes AS (
  SELECT e.attempt_id, e.program::VARCHAR AS program, e.account_id, coalesce(e.rpc_label, 'unknown') AS rpc_label
  FROM read_parquet({{envelopeFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}) e
  JOIN sample_rates s ON s.program = e.program
  WHERE e.kind = 'send' AND epoch_ms(e.received_at) >= {{since}} AND epoch_ms(e.received_at) < {{until}}
    AND (s.threshold IS NULL OR md5(e.attempt_id) < s.threshold)
), outcomes AS (
  SELECT r.attempt_id, r.outcome
  FROM read_parquet({{resolutionFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}) r
  JOIN sample_rates s ON s.program = r.program
  WHERE epoch_ms(r.resolved_at) < {{resolvedBefore}} AND r.outcome IN ('landed', 'failed_onchain', 'dropped')
    AND (s.threshold IS NULL OR md5(r.attempt_id) < s.threshold)
)
SELECT e.program, e.account_id, e.rpc_label, o.outcome, e.attempt_id
FROM envelopes e JOIN outcomes o USING (attempt_id)
