-- The resolution columns the serving tables use, from the listed lake files (a view: read once,
-- inside the attempts join). By name: files written before a column was added (failing_instruction) lack it.
CREATE OR REPLACE TEMP VIEW resolution_rows AS
SELECT attempt_id, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint,
  cu_used, cu_requested, compute_exceeded, block_time
FROM read_parquet({{resolutionFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}, union_by_name = true)
