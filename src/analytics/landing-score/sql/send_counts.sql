-- Send attempts per program in the window: the population each program's sample rate is chosen
-- from. Preflight failures (kind = 'preflight') were never sent and are not part of it.
SELECT program::VARCHAR AS program, count(*) AS sends
FROM read_parquet({{envelopeFiles}}, hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})
WHERE kind = 'send' AND epoch_ms(received_at) >= {{since}} AND epoch_ms(received_at) < {{until}}
GROUP BY ALL
ORDER BY program
