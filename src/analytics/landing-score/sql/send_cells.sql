-- The counted sends by program, account, provider and outcome: small enough to finish in TypeScript.
SELECT program, account_id, rpc_label, outcome, count(*) AS sends
FROM counted_sends
GROUP BY ALL
ORDER BY ALL
