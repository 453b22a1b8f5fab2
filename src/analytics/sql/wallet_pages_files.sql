-- Writes one part of the wallet pages (tables/wallet-pages.ts): its lines in the order they were
-- inserted (no sort of the long lines) to the part's data file, and each line's byte offset in the
-- whole data file ({{base}}: the bytes of the parts before) and length (line + newline) to
-- wallet_offsets. The CSV writer emits a line verbatim: the delimiter and quote are control
-- characters, which JSON text never contains unescaped. Needs preserve_insertion_order (a scan
-- without ORDER BY then returns rows in rowid order); the build checks sizes and reads back a sample.
INSERT INTO wallet_offsets
SELECT key, program, payer, strlen(line) + 1 AS line_length,
  {{base}} + sum(strlen(line) + 1) OVER (ORDER BY rowid ROWS UNBOUNDED PRECEDING) - (strlen(line) + 1) AS line_offset
FROM wallet_lines;
COPY (SELECT line FROM wallet_lines)
  TO {{dataFile}} (FORMAT csv, HEADER false, DELIMITER {{delimiter}}, QUOTE {{quote}}, ESCAPE {{quote}});
