// Intake: each newly committed spool segment's envelopes are read from the lake once and queued in
// the control DB's pending_attempts (sends wait for the chain; preflight failures resolve on the
// next step from their own logs). Reading by spool_segment and day touches only the new parts.
// Segments are taken in chunks of about INTAKE_CHUNK_ROWS envelopes, each chunk read, queued and
// marked in one commit, with a pause for the event loop between chunks, and at most about
// INTAKE_MAX_ROWS per run: a backlog of millions of envelopes (a server that fell behind) is taken
// over several runs instead of being held in memory at once while ingest waits.

import { markSegmentsTaken, segmentsAwaitingIntake } from "../../control";
import type { Context } from "../../context";
import { readLake, sqlString } from "../../lake/duckdb";
import { yieldToEventLoop } from "./pause";

const INTAKE_CHUNK_ROWS = 50_000;
const INTAKE_MAX_ROWS = 200_000;

type EnvelopeRow = {
  attempt_id: string; account_id: string; program: string; sig: string | null; last_valid_block_height: number;
  sent_at: number; received_at: number; rpc_hash: string; rpc_label: string; payer: string;
  cu_price_micro_lamports: number | null; nonce: boolean | null; kind: string; preflight_error: string | null; simulation_logs: string[];
};

export type IntakeLimits = { maxSegments?: number; maxRows?: number; chunkRows?: number };

/** `more`: segments are still waiting after this intake (it reached its caps). */
export async function intakeNewSegments(ctx: Context, limits: IntakeLimits = {}): Promise<{ segments: number; attempts: number; more: boolean }> {
  const maxRows = limits.maxRows ?? INTAKE_MAX_ROWS;
  const chunkRows = limits.chunkRows ?? INTAKE_CHUNK_ROWS;
  const maxSegments = limits.maxSegments ?? 200;
  const waiting = segmentsAwaitingIntake(ctx.control, maxSegments);
  const taken = { segments: 0, attempts: 0, more: false };
  let next = 0;
  while (next < waiting.length && taken.attempts < maxRows) {
    const chunk = [waiting[next++]];
    let rows = chunk[0].rows;
    while (next < waiting.length && rows + waiting[next].rows <= chunkRows) {
      rows += waiting[next].rows;
      chunk.push(waiting[next++]);
    }
    if (taken.segments > 0) await yieldToEventLoop();
    taken.attempts += await intakeSegments(ctx, chunk);
    taken.segments += chunk.length;
  }
  taken.more = next < waiting.length || waiting.length === maxSegments;
  return taken;
}

async function intakeSegments(ctx: Context, segments: { segment: string; days: string[] }[]): Promise<number> {
  const days = [...new Set(segments.flatMap((s) => s.days))];
  const rows =
    days.length === 0
      ? []
      : await readLake<EnvelopeRow>(
          ctx.duck,
          `SELECT attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer,
                  cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs
           FROM read_parquet(${sqlString(ctx.paths.datasetGlob("envelopes"))}, hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})
           WHERE day IN (${days.map(sqlString).join(", ")}) AND spool_segment IN (${segments.map((s) => sqlString(s.segment)).join(", ")})`,
        );
  const insert = ctx.control.query(
    `INSERT OR IGNORE INTO pending_attempts (attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at,
       rpc_hash, rpc_label, payer, cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs, next_check_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Due from the moment it is taken in: first in, first looked up, and the resolver's lag (how long
  // the oldest due look-up has waited, /v1/status) counts from here.
  const takenAt = ctx.clock();
  ctx.control.transaction(() => {
    for (const r of rows) {
      insert.run(
        r.attempt_id, r.account_id, r.program, r.sig ?? "", r.last_valid_block_height, r.sent_at, r.received_at, r.rpc_hash, r.rpc_label,
        r.payer, r.cu_price_micro_lamports, r.nonce ? 1 : 0, r.kind, r.preflight_error, r.kind === "preflight" ? JSON.stringify(r.simulation_logs ?? []) : null, takenAt,
      );
    }
    markSegmentsTaken(ctx.control, segments.map((s) => s.segment), takenAt);
  }).immediate();
  return rows.length;
}
