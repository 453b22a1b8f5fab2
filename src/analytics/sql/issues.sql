-- Failures grouped by fingerprint, per program × scope × window × payer segment, with the
-- segment's total (for share). Only resolved, fingerprinted attempts (never landed or pending).
CREATE TABLE issues AS
WITH grouped AS (
  SELECT a.program, CASE WHEN grouping(a.account_id) = 1 THEN '*' ELSE a.account_id END AS scope, a.win,
    coalesce(s.segment, 'human') AS segment, a.fingerprint,
    any_value(a.outcome) AS outcome, any_value(a.failing_program) AS failing_program, any_value(a.instruction) AS instruction,
    any_value(a.err_code) AS err_code, any_value(a.err_name) AS err_name, any_value(a.drop_class) AS drop_class,
    count(*) AS count, count(DISTINCT a.payer) AS wallets,
    min(a.received_at) AS first_in_window, max(a.received_at) AS last_in_window,
    arg_max(a.sig, a.received_at) FILTER (WHERE a.sig IS NOT NULL) AS sample_sig
  FROM windowed_attempts a
  LEFT JOIN payer_scores s ON s.payer = a.payer
  WHERE a.fingerprint IS NOT NULL
  GROUP BY GROUPING SETS ((a.program, a.account_id, a.win, segment, a.fingerprint), (a.program, a.win, segment, a.fingerprint))
)
SELECT *, sum(count) OVER (PARTITION BY program, scope, win, segment) AS segment_total FROM grouped
