-- Attempts of lake units (program, day) whose input files did not change since the previous
-- build, copied from the previous serving database instead of re-joining the lake.
CREATE OR REPLACE TEMP VIEW copied_attempts AS
SELECT a.* FROM prev.attempts a
JOIN unchanged_units u ON a.program = u.program AND a.day = u.day
