-- Observed deploys from the lake (one row per program and ProgramData slot), with when each took
-- effect (block time, else detection time) and its neighbours, for release diffs.
CREATE OR REPLACE TEMP TABLE deploys AS
WITH raw AS (
  SELECT program::VARCHAR AS program, slot, min(epoch_ms(deployed_at)) AS deployed_at, min(epoch_ms(detected_at)) AS detected_at, any_value(authority) AS authority
  FROM read_parquet({{deployFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR'}, union_by_name = true)
  GROUP BY program, slot
)
SELECT *, coalesce(deployed_at, detected_at) AS effective_at,
  lag(coalesce(deployed_at, detected_at)) OVER (PARTITION BY program ORDER BY slot) AS previous_at,
  lag(slot) OVER (PARTITION BY program ORDER BY slot) AS previous_slot,
  lead(coalesce(deployed_at, detected_at)) OVER (PARTITION BY program ORDER BY slot) AS next_at
FROM raw
