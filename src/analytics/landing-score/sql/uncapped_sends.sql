-- Without an account cap every sampled send counts.
CREATE OR REPLACE TEMP VIEW counted_sends AS
SELECT program, account_id, rpc_label, outcome FROM sampled_sends
