-- One row per envelope of the listed lake files, with its resolution when there is one
-- (outcome NULL = pending; a preflight envelope is terminal even before the resolver wrote its row).
-- Narrow on purpose: only the columns the serving tables use.
CREATE OR REPLACE TEMP VIEW rebuilt_attempts AS
SELECT hash(e.program::VARCHAR, e.payer) AS wallet_key, hash(e.attempt_id) AS attempt_key, e.account_id, e.program::VARCHAR AS program, e.day::VARCHAR AS day,
  e.received_at, e.sent_at, e.sig, e.payer, e.rpc_label, e.rpc_hash, e.wallet_adapter, e.kind,
  coalesce(r.outcome, CASE WHEN e.kind = 'preflight' THEN 'preflight' END) AS outcome,
  r.drop_class, r.instruction, r.err_code, r.err_name, r.failing_program, r.fingerprint,
  r.cu_used, r.cu_requested, r.compute_exceeded, r.block_time, r.sample_weight
FROM read_parquet({{envelopeFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}) e
LEFT JOIN resolution_rows r USING (attempt_id)
