-- Writes the wallet pages: the lines in the order they were inserted (no sort of the long lines),
-- then the fixed-width index of each line's byte offset and length (line + newline), sorted by
-- key. The CSV writer emits a line verbatim: the delimiter and quote are control characters, which
-- JSON text never contains unescaped. Needs preserve_insertion_order (a scan without ORDER BY then
-- returns rows in rowid order); the build checks sizes and reads back a sample.
CREATE TEMP TABLE wallet_offsets AS
SELECT key, program, payer, strlen(line) + 1 AS line_length,
  sum(strlen(line) + 1) OVER (ORDER BY rowid ROWS UNBOUNDED PRECEDING) - (strlen(line) + 1) AS line_offset
FROM wallet_lines;
COPY (SELECT line FROM wallet_lines)
  TO {{dataFile}} (FORMAT csv, HEADER false, DELIMITER {{delimiter}}, QUOTE {{quote}}, ESCAPE {{quote}});
COPY (SELECT key || lpad(line_offset::VARCHAR, 12, '0') || lpad(line_length::VARCHAR, 8, '0') FROM wallet_offsets ORDER BY key, program, payer)
  TO {{indexFile}} (FORMAT csv, HEADER false, DELIMITER {{delimiter}}, QUOTE {{quote}}, ESCAPE {{quote}});
