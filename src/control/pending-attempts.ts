// The resolver's queue (pending_attempts): attempts taken in from the lake, waiting for a chain
// look-up at next_check_at. Intake fills it (marking the segments it read in the same commit), each
// resolve run reads the attempts due now in the order of the index pending_due_order (no sort), and
// recording a resolution removes its attempt (src/control/attempt-index.ts, same commit).

import type { ControlDb } from "./types";
import { markSegmentsTaken } from "./segments";
import { BY_SIGNATURE, signatureParams } from "./signatures";

export type PendingRow = {
  attempt_id: string; account_id: string; program: string; sig: string; last_valid_block_height: number; sent_at: number;
  rpc_hash: string; rpc_label: string; payer: string; cu_price_micro_lamports: number | null; nonce: number; kind: string; received_at: number;
  preflight_error: string | null; simulation_logs: string | null; checks: number;
};

/** The envelope columns intake reads from the lake (one array per column, a row per index). */
export type EnvelopeColumns = {
  attempt_id: string[]; account_id: string[]; program: string[]; sig: (string | null)[]; last_valid_block_height: number[];
  sent_at: number[]; received_at: number[]; rpc_hash: string[]; rpc_label: string[]; payer: string[];
  cu_price_micro_lamports: (number | null)[]; nonce: (boolean | null)[]; kind: string[]; preflight_error: (string | null)[]; simulation_logs: (string[] | null)[];
};

/**
 * Queues the segments' envelopes, due at `takenAt`, and marks the segments taken, in one commit (a
 * crash in between queues nothing twice: an attempt already queued is ignored).
 */
export function queueAttempts(db: ControlDb, c: EnvelopeColumns, segments: string[], takenAt: number): void {
  const insert = db.query(
    `INSERT OR IGNORE INTO pending_attempts (attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at,
       rpc_hash, rpc_label, payer, cu_price_micro_lamports, nonce, kind, preflight_error, simulation_logs, next_check_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const count = c.attempt_id.length;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      insert.run(
        c.attempt_id[i], c.account_id[i], c.program[i], c.sig[i] ?? "", c.last_valid_block_height[i], c.sent_at[i], c.received_at[i], c.rpc_hash[i], c.rpc_label[i],
        c.payer[i], c.cu_price_micro_lamports[i], c.nonce[i] ? 1 : 0, c.kind[i], c.preflight_error[i], c.kind[i] === "preflight" ? JSON.stringify(c.simulation_logs[i] ?? []) : null, takenAt,
      );
    }
    markSegmentsTaken(db, segments, takenAt);
  }).immediate();
}

/** A run's attempts: due at `at`, oldest check first (read through the index pending_due_order, no sort). */
export const DUE_ATTEMPTS_SQL = "SELECT * FROM pending_attempts WHERE next_check_at <= ? ORDER BY next_check_at, attempt_id LIMIT ?";

export function dueAttempts(db: ControlDb, at: number, limit: number): PendingRow[] {
  return db.query<PendingRow, [number, number]>(DUE_ATTEMPTS_SQL).all(at, limit);
}

/** Checks again later: one more check counted, due at its new time. */
export function rescheduleAttempts(db: ControlDb, items: { attemptId: string; at: number }[]): void {
  const update = db.query("UPDATE pending_attempts SET checks = checks + 1, next_check_at = ? WHERE attempt_id = ?");
  db.transaction(() => {
    for (const item of items) update.run(item.at, item.attemptId);
  }).immediate();
}

export function pendingAttemptCount(db: ControlDb): number {
  return Number(db.query<{ n: number }, []>("SELECT count(*) AS n FROM pending_attempts").get()?.n ?? 0);
}

/** When the queued attempt with this signature is next looked up; null when none is queued. */
export function nextCheckOfSignature(db: ControlDb, sig: string): number | null {
  const row = db.query<{ next_check_at: number | null }, [string, string]>(`SELECT min(next_check_at) AS next_check_at FROM pending_attempts WHERE ${BY_SIGNATURE}`).get(...signatureParams(sig));
  return row?.next_check_at ?? null;
}

/** Retention: queued attempts received before the cutoff leave the queue. */
export function forgetPendingReceivedBefore(db: ControlDb, cutoffMs: number): number {
  return db.query("DELETE FROM pending_attempts WHERE received_at < ?").run(cutoffMs).changes;
}
