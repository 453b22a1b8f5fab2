// Intake: each newly committed spool segment's envelopes are read from the lake once and queued in
// the control DB's pending_attempts (sends wait for the chain; preflight failures resolve on the
// next step from their own logs). Reading by spool_segment and day touches only the new parts.

import { markSegmentsTaken, segmentsAwaitingIntake } from "../../control";
import type { Context } from "../../context";
import { sqlString } from "../../lake/duckdb";

type EnvelopeRow = {
  attempt_id: string; account_id: string; program: string; sig: string | null; last_valid_block_height: number;
  sent_at: number; received_at: number; rpc_hash: string; rpc_label: string; payer: string;
  cu_price_micro_lamports: number | null; nonce: boolean | null; kind: string; preflight_error: string | null; simulation_logs: string[];
};

export async function intakeNewSegments(ctx: Context, maxSegments = 200): Promise<{ segments: number; attempts: number }> {
  const segments = segmentsAwaitingIntake(ctx.control, maxSegments);
  if (segments.length === 0) return { segments: 0, attempts: 0 };
  const days = [...new Set(segments.flatMap((s) => s.days))];
  const rows =
    days.length === 0
      ? []
      : await ctx.duck.all<EnvelopeRow>(
          `SELECT attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer,
                  cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs
           FROM read_parquet(${sqlString(ctx.paths.datasetGlob("envelopes"))}, hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})
           WHERE day IN (${days.map(sqlString).join(", ")}) AND spool_segment IN (${segments.map((s) => sqlString(s.segment)).join(", ")})`,
        );
  const insert = ctx.control.query(
    `INSERT OR IGNORE INTO pending_attempts (attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at,
       rpc_hash, rpc_label, payer, cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs, next_check_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
  );
  ctx.control.transaction(() => {
    for (const r of rows) {
      insert.run(
        r.attempt_id, r.account_id, r.program, r.sig ?? "", r.last_valid_block_height, r.sent_at, r.received_at, r.rpc_hash, r.rpc_label,
        r.payer, r.cu_price_micro_lamports, r.nonce ? 1 : 0, r.kind, r.preflight_error, r.kind === "preflight" ? JSON.stringify(r.simulation_logs ?? []) : null,
      );
    }
    markSegmentsTaken(ctx.control, segments.map((s) => s.segment), ctx.clock());
  }).immediate();
  return { segments: segments.length, attempts: rows.length };
}
