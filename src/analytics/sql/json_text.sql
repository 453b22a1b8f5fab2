-- A value as JSON text: to_json escapes strings; SQL NULL becomes the JSON literal null (to_json
-- alone would return SQL NULL, which concat skips).
CREATE OR REPLACE TEMP MACRO json_text(value) AS coalesce(to_json(value)::VARCHAR, 'null')
