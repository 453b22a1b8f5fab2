-- Writes the wallet pages' index (tables/wallet-pages.ts): per wallet, the first 16 hex digits of
-- its key, then 12 digits of byte offset and 8 of length, sorted by key (readers binary-search it).
COPY (SELECT key || lpad(line_offset::VARCHAR, 12, '0') || lpad(line_length::VARCHAR, 8, '0') FROM wallet_offsets ORDER BY key, program, payer)
  TO {{indexFile}} (FORMAT csv, HEADER false, DELIMITER {{delimiter}}, QUOTE {{quote}}, ESCAPE {{quote}});
