-- The wallet pages (serving/wallet-pages.ts): one JSON line per (program, payer) of the attempts
-- in the longest window (older ones are never on a page), keyed by the first 16 hex digits of
-- md5('<program>/<payer>') (readers compute it without DuckDB). A wallet with more than maxItems
-- attempts keeps only its DuckDB wallet_key (its pages are read from `attempts`, sorted by that
-- key). Items are unordered (an ordered aggregate costs ~3x); readers sort one wallet's items.
-- Values go through json_text (json_text.sql); attempt_key is a string (UBIGINT exceeds JSON's
-- exact integers).
-- Memory: built once per part (a hash of the payer; a (program, payer) is in one part) and written
-- out before the next part, and a wallet over maxItems is counted first and never aggregated into a
-- string (a bot's hundreds of thousands of items made one string_agg state of hundreds of MB). No
-- CTE: DuckDB materialises a CTE read twice, which held a whole part's rows in memory.
CREATE TEMP TABLE wallet_lines AS
SELECT md5(program || '/' || payer)[1:16] AS key, program, payer,
  '[' || json_text(program) || ',' || json_text(payer) || ',' ||
  CASE WHEN any_value(items) <= {{maxItems}} THEN
    '[' || string_agg(concat('[', json_text(sig), ',', json_text(sent_at), ',', json_text(received_at), ',', json_text(outcome), ',',
      json_text(drop_class), ',', json_text(instruction), ',', json_text(err_name), ',', json_text(rpc_label), ',"', attempt_key, '",',
      json_text(account_id), ']'), ',') FILTER (WHERE items <= {{maxItems}}) || '],null'
  ELSE 'null,"' || any_value(wallet_key)::VARCHAR || '"' END || ']' AS line
FROM attempts
JOIN (
  SELECT program, payer, count(*) AS items FROM attempts
  WHERE received_at BETWEEN {{since}} AND {{until}} AND hash(payer) % {{parts}} = {{part}}
  GROUP BY program, payer
) USING (program, payer)
WHERE received_at BETWEEN {{since}} AND {{until}} AND hash(payer) % {{parts}} = {{part}}
GROUP BY program, payer
