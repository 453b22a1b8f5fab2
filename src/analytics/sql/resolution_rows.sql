-- The resolution columns the serving tables use, from the listed lake files (a view: read once,
-- inside the attempts join). By name: files written before a column was added (failing_instruction;
-- lake version 2's sample_weight) lack it, and the empty row below gives every listed column its type.
CREATE OR REPLACE TEMP VIEW resolution_rows AS
SELECT attempt_id, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint,
  cu_used, cu_requested, compute_exceeded, block_time, sample_weight
FROM (
  SELECT * FROM read_parquet({{resolutionFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}, union_by_name = true)
  UNION ALL BY NAME SELECT NULL::DOUBLE AS sample_weight WHERE false
)
