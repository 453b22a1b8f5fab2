-- Attempts tagged with each window they fall in (1d ⊂ 7d ⊂ 30d, relative to the build's clock):
-- three filtered scans instead of a range join.
CREATE OR REPLACE TEMP VIEW windowed_attempts AS
SELECT '30d' AS win, * FROM attempts WHERE received_at BETWEEN {{since30d}} AND {{until}}
UNION ALL
SELECT '7d' AS win, * FROM attempts WHERE received_at BETWEEN {{since7d}} AND {{until}}
UNION ALL
SELECT '1d' AS win, * FROM attempts WHERE received_at BETWEEN {{since1d}} AND {{until}}
