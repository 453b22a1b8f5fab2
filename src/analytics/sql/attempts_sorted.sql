-- The serving copy of all retained attempts (re-joined units and copied ones), stored sorted by
-- wallet_key = hash(program, payer), newest first, so a wallet page is a zone-map-pruned range
-- read, not a scan. Integer sort keys keep the sort cheap.
-- In two statements: the re-joined units are materialised first, so the lake join's hash table is
-- gone before the sort starts. In one statement both held memory at once, and a run after new data
-- arrived ran out of DUCKDB_MEMORY_LIMIT (issue 23: 2M envelopes + 10k new, 1 GB, every retry).
CREATE TEMP TABLE attempts_unsorted AS
SELECT * FROM rebuilt_attempts UNION ALL BY NAME SELECT * FROM copied_attempts;
CREATE TABLE attempts AS
SELECT * FROM attempts_unsorted ORDER BY wallet_key, sent_at DESC, attempt_key DESC;
DROP TABLE attempts_unsorted
