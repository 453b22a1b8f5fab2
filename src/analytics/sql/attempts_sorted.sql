-- The serving copy of all retained attempts (re-joined units and copied ones), stored sorted by
-- wallet_key = hash(program, payer), newest first, so a wallet page is a zone-map-pruned range
-- read, not a scan. Integer sort keys keep the sort cheap.
CREATE TABLE attempts AS
SELECT * FROM (SELECT * FROM rebuilt_attempts UNION ALL BY NAME SELECT * FROM copied_attempts)
ORDER BY wallet_key, sent_at DESC, attempt_key DESC
