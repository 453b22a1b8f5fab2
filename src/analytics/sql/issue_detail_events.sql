-- The issue's newest attempts (docs/api.md#get-v1issuefingerprint): first those with a signature in
-- the selected window, newest first (the examples, and the representative event), then the rest,
-- newest first (an issue quiet in the window still has its identity and a representative).
-- $1 scope ('*' or an account id), $2 fingerprint, $3 / $4 the selected window's start and end.
SELECT program, sig, sent_at, received_at, payer, rpc_label, outcome, failing_program, instruction, err_code, err_name, drop_class,
  sig IS NOT NULL AND received_at BETWEEN $3 AND $4 AS example
FROM attempts
WHERE fingerprint = $2 AND ($1 = '*' OR account_id = $1)
ORDER BY example DESC, received_at DESC, sig
LIMIT 21
