// Applies one batch of changes to the state (state.ts): attempts that arrived (envelopes) and
// attempts whose resolution arrived. A change is a signed attempt row (`changes`: +1 the new
// version, −1 the version it replaces), so every additive state takes the batch as a delta and its
// cost follows the batch, not the history. What each state is: rollups.ts (units), issues.ts (the
// issues' payers), payers.ts (the bot score's units); this module turns arrivals into changes and
// hands them on.

import { ATTEMPT_NAMES, type StateDb } from "./state";
import { ROLLUPS, applyDeltaSql, keptHoursSql } from "./rollups";
import { MINUTE_ROLLUPS, firstRecentMinute } from "./recent";
import { applyIssueArrivalsSql } from "./issues";
import { PAYER_CHANGE_COLUMNS, refreshPayerUnitsSql } from "./payers";
import type { WindowBounds } from "./window-bounds";

const COLUMNS = ATTEMPT_NAMES.join(", ");

export type ApplyContext = { bounds: WindowBounds };

/** Applies the payer changes gathered since the last call (payers.ts). */
export async function applyPayerChanges(state: StateDb): Promise<void> {
  await state.run(refreshPayerUnitsSql("payer_changes"));
  await state.run("DELETE FROM payer_changes");
}

/** Attempts that arrived (rows of `source`, not resolved yet) become +1 changes, and unresolved. */
export async function applyArrivals(state: StateDb, source: string, context: ApplyContext): Promise<number> {
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS SELECT 1 AS sign, ${COLUMNS}, true AS arrived FROM ${source};
    INSERT INTO unresolved SELECT ${COLUMNS} FROM ${source}`);
  return await applyChanges(state, context);
}

/**
 * Resolutions (rows of `source`: attempt_key + the resolution's columns) of attempts still
 * unresolved: −1 the unresolved version, +1 the resolved one. Others were applied before (or their
 * envelope left with retention) and are ignored.
 */
export async function applyResolutions(state: StateDb, source: string, context: ApplyContext): Promise<number> {
  const resolved = `u.attempt_key, u.program, u.account_id, u.received_at, u.sent_at, u.sig, u.payer, u.rpc_label, u.rpc_hash,
    u.wallet_adapter, u.kind, r.outcome, r.drop_class, r.instruction, r.err_code, r.err_name, r.failing_program, r.fingerprint,
    r.cu_used, r.cu_requested, r.compute_exceeded, r.block_time, r.cu_weight, r.resolved_at`;
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS
      SELECT -1 AS sign, u.*, false AS arrived FROM unresolved u SEMI JOIN ${source} r ON u.attempt_key = r.attempt_key
      UNION ALL
      SELECT 1 AS sign, ${resolved}, false AS arrived FROM unresolved u JOIN ${source} r ON u.attempt_key = r.attempt_key;
    -- Stored more than a day after the receipt day: a day's attempts are read back with these (edges.ts).
    INSERT INTO late_resolutions SELECT ${COLUMNS} FROM changes WHERE sign > 0 AND resolved_at // 86400000 > received_at // 86400000 + 1;
    DELETE FROM unresolved USING ${source} r WHERE unresolved.attempt_key = r.attempt_key`);
  return await applyChanges(state, context);
}

/**
 * Full rebuild: attempts of whole days as they are now (resolved or not), all +1. The caller
 * writes their wallet segments from `source` directly.
 */
export async function applyLoadedDay(state: StateDb, source: string, context: ApplyContext): Promise<number> {
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS SELECT 1 AS sign, ${COLUMNS}, true AS arrived FROM ${source};
    INSERT INTO unresolved SELECT ${COLUMNS} FROM ${source} WHERE resolved_at IS NULL;
    INSERT INTO late_resolutions SELECT ${COLUMNS} FROM ${source} WHERE resolved_at // 86400000 > received_at // 86400000 + 1`);
  return await applyChanges(state, context, false);
}

async function applyChanges(state: StateDb, context: ApplyContext, walletChanges = true): Promise<number> {
  const [{ n }] = await state.all<{ n: number }>("SELECT count(*) FILTER (WHERE sign > 0) AS n FROM changes");
  if (Number(n) === 0) return 0;
  const today = Math.floor(context.bounds.clock / 86_400_000);
  for (const r of ROLLUPS) {
    await state.run(applyDeltaSql(r, "d", "changes", null));
    await state.run(applyDeltaSql(r, "h", "changes", keptHoursSql(r, "hour_days", today)));
  }
  for (const r of MINUTE_ROLLUPS) await state.run(applyDeltaSql(r, "m", "changes", `d.minute >= ${firstRecentMinute(context.bounds.clock)}`));
  await state.run(applyIssueArrivalsSql("changes", context.bounds));
  // The payers' units take a refresh's arrivals at once (payers.ts: arrivals split over steps could interleave).
  await state.run(`INSERT INTO payer_changes SELECT ${PAYER_CHANGE_COLUMNS} FROM changes`);
  // Attempt rows of the edge hours follow their attempts (a resolution changes an edge's figures).
  await state.run(`CREATE OR REPLACE TEMP TABLE edge_changes AS SELECT ${COLUMNS} FROM changes c WHERE sign > 0
      AND EXISTS (SELECT 1 FROM edge_hours e WHERE e.hour = c.received_at // 3600000 AND (e.program = '*' OR e.program = c.program));
    DELETE FROM edge_rows USING edge_changes c WHERE edge_rows.attempt_key = c.attempt_key;
    INSERT INTO edge_rows SELECT * FROM edge_changes;
    DROP TABLE edge_changes`);
  if (walletChanges) await state.run(`INSERT INTO wallet_changes SELECT ${COLUMNS} FROM changes WHERE sign > 0`);
  return Number(n);
}
