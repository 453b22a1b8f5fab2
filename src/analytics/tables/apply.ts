// Applies one batch of changes to the state (state.ts): attempts that arrived (envelopes) and
// attempts whose resolution arrived. A change is a signed attempt row (`changes`: +1 the new
// version, −1 the version it replaces), so every additive state takes the batch as a delta and its
// cost follows the batch, not the history. What each state is: rollups.ts (units), issues.ts (the
// issues' payers), payers.ts (the bot score's units); this module turns arrivals into changes and
// hands them on, and writes them into the wallet-page store (wallet-store.ts).

import { applyIssueArrivalsSql } from "./issues";
import { PAYER_CHANGE_COLUMNS, refreshPayerUnitsSql } from "./payers";
import { firstRecentMinute, MINUTE_MS, MINUTE_ROLLUPS } from "./recent";
import { applyDeltaSql, keptHoursFrom, ROLLUPS } from "./rollups";
import { ATTEMPT_NAMES, RESOLUTION_NAMES, type StateDb } from "./state";
import type { WalletStoreWriter } from "./wallet-store";
import type { WindowBounds } from "./window-bounds";
import { DAY_MS, HOUR_MS } from "./window-bounds";

const COLUMNS = ATTEMPT_NAMES.join(", ");

/**
 * `full`: a rebuild (the issues' per-segment figures are aggregated once at its end, not logged per change).
 * `wallets`: the wallet-page store the changes are written into.
 */
export type ApplyContext = { bounds: WindowBounds; full: boolean; wallets?: WalletStoreWriter };

/** Applies the payer changes gathered since the last call (payers.ts). */
export async function applyPayerChanges(state: StateDb): Promise<void> {
  await state.run(refreshPayerUnitsSql("payer_changes"));
  await state.run("DELETE FROM payer_changes");
}

/**
 * Attempts that arrived (rows of `source`, not resolved yet). Those whose resolution the state
 * already holds (early_resolutions: taken in before the envelope, usually earlier in the same
 * refresh) arrive resolved, as in a rebuild: one +1 change instead of a pending one now and a −1/+1
 * pair later. The others become +1 changes, and unresolved.
 */
export async function applyArrivals(
  state: StateDb,
  source: string,
  context: ApplyContext,
): Promise<{ attempts: number; resolutions: number }> {
  const fromResolution = RESOLUTION_NAMES.filter((name) => name !== "attempt_key" && name !== "outcome")
    .map((name) => `r.${name} AS ${name}`)
    .join(", ");
  // The changes straight from the join (no intermediate copy of the rows), then what applyLoadedDay keeps of them.
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS
      SELECT 1 AS sign, e.* REPLACE (coalesce(r.outcome, e.outcome) AS outcome, ${fromResolution}), true AS arrived
      FROM ${source} e LEFT JOIN (SELECT DISTINCT ON (attempt_key) h.* FROM early_resolutions h SEMI JOIN ${source} s ON h.attempt_key = s.attempt_key) r
        ON e.attempt_key = r.attempt_key;
    DELETE FROM early_resolutions USING ${source} s WHERE early_resolutions.attempt_key = s.attempt_key;
    ${keepUnresolvedSql("changes")}`);
  const [{ resolved }] = await state.all<{ resolved: number }>(
    "SELECT count(*) FILTER (WHERE resolved_at IS NOT NULL) AS resolved FROM changes",
  );
  return { attempts: await applyChanges(state, context), resolutions: Number(resolved) };
}

/**
 * Resolutions (rows of `source`: attempt_key + the resolution's columns) of attempts still
 * unresolved: −1 the unresolved version, +1 the resolved one. `hold`: the others are kept in
 * early_resolutions until their envelope arrives (a refresh takes resolutions before envelopes,
 * and in publication order when it is behind); an attempt's resolution that was applied before
 * (a compacted partition read again) is held too and never matched: retention removes it.
 * Without `hold` (a rebuild, which reads every envelope first) they are ignored.
 */
export async function applyResolutions(
  state: StateDb,
  source: string,
  context: ApplyContext,
  { hold = false } = {},
): Promise<number> {
  const resolved = `u.attempt_key, u.program, u.account_id, u.received_at, u.sent_at, u.sig, u.payer, u.rpc_label, u.rpc_hash,
    u.wallet_adapter, u.kind, r.outcome, r.drop_class, r.instruction, r.err_code, r.err_name, r.failing_program, r.fingerprint,
    r.cu_used, r.cu_requested, r.compute_exceeded, r.block_time, r.cu_weight, r.resolved_at, u.sent_slot, r.slot`;
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS
      SELECT -1 AS sign, u.*, false AS arrived FROM unresolved u SEMI JOIN ${source} r ON u.attempt_key = r.attempt_key
      UNION ALL
      SELECT 1 AS sign, ${resolved}, false AS arrived FROM unresolved u JOIN ${source} r ON u.attempt_key = r.attempt_key;
    -- Stored more than a day after the receipt day: a day's attempts are read back with these (edges.ts).
    INSERT INTO late_resolutions SELECT ${COLUMNS} FROM changes WHERE sign > 0 AND resolved_at // 86400000 > received_at // 86400000 + 1;
    ${hold ? `INSERT INTO early_resolutions BY NAME SELECT r.* FROM ${source} r ANTI JOIN (SELECT attempt_key FROM changes WHERE sign > 0) c ON r.attempt_key = c.attempt_key;` : ""}
    DELETE FROM unresolved USING ${source} r WHERE unresolved.attempt_key = r.attempt_key`);
  return await applyChanges(state, context);
}

/** Full rebuild: attempts of whole days as they are now (resolved or not), all +1. */
export async function applyLoadedDay(state: StateDb, source: string, context: ApplyContext): Promise<number> {
  await state.run(`CREATE OR REPLACE TEMP TABLE changes AS SELECT 1 AS sign, ${COLUMNS}, true AS arrived FROM ${source};
    ${keepUnresolvedSql(source)}`);
  return await applyChanges(state, context);
}

/**
 * Of attempts taken in as they are now: those not resolved wait in `unresolved`; those resolved late go to
 * late_resolutions too.
 */
function keepUnresolvedSql(source: string): string {
  return `INSERT INTO unresolved SELECT ${COLUMNS} FROM ${source} WHERE resolved_at IS NULL;
    INSERT INTO late_resolutions SELECT ${COLUMNS} FROM ${source} WHERE resolved_at // 86400000 > received_at // 86400000 + 1`;
}

/**
 * `changes_h`: the changes in hours kept per hour, flagged `in_hour_days` when their day is one
 * ranges read per hour (hour_days: of their program, or of every program '*'); the others are in
 * the last days some rollup keeps whole (from `keptFrom`, an hour).
 */
function changesInKeptHoursSql(keptFrom: number, hourDays: number[]): string {
  const day = `c.received_at // ${DAY_MS}`;
  const inHourDays = `(${day} IN (SELECT day FROM hour_days WHERE program = '*') OR k.day IS NOT NULL)`;
  // Any day of hour_days (a constant list first: a rebuild's changes are mostly of other days).
  const candidate = [
    `received_at // ${DAY_MS} IN (${hourDays.join(", ") || "NULL"})`,
    ...(Number.isFinite(keptFrom) ? [`received_at >= ${keptFrom * HOUR_MS}`] : []),
  ].join(" OR ");
  return `CREATE OR REPLACE TEMP TABLE changes_h AS
    SELECT c.*, ${inHourDays} AS in_hour_days FROM (SELECT * FROM changes WHERE ${candidate}) c
    LEFT JOIN (SELECT DISTINCT program, day FROM hour_days WHERE program <> '*') k ON k.program = c.program AND k.day = ${day}
    WHERE ${inHourDays}${Number.isFinite(keptFrom) ? ` OR c.received_at >= ${keptFrom * HOUR_MS}` : ""}`;
}

async function applyChanges(state: StateDb, context: ApplyContext): Promise<number> {
  const [{ n }] = await state.all<{ n: number }>("SELECT count(*) FILTER (WHERE sign > 0) AS n FROM changes");
  if (Number(n) === 0) return 0;
  await context.wallets?.take(state);
  const today = Math.floor(context.bounds.clock / 86_400_000);
  // Hour and minute units are kept for few days: only the changes in those go into their deltas.
  const keptFrom = Math.min(...ROLLUPS.map((r) => keptHoursFrom(r, today) ?? Number.POSITIVE_INFINITY));
  const hourDays = (await state.all<{ day: number }>("SELECT DISTINCT day FROM hour_days")).map((row) =>
    Number(row.day),
  );
  await state.run(changesInKeptHoursSql(keptFrom, hourDays));
  for (const r of ROLLUPS) {
    const kept = keptHoursFrom(r, today);
    await state.run(applyDeltaSql(r, "d", "changes", null));
    await state.run(
      applyDeltaSql(
        r,
        "h",
        `(SELECT * EXCLUDE (in_hour_days) FROM changes_h WHERE in_hour_days${kept === null ? "" : ` OR received_at >= ${kept * HOUR_MS}`})`,
        null,
      ),
    );
  }
  const firstMinute = firstRecentMinute(context.bounds.clock);
  for (const r of MINUTE_ROLLUPS)
    await state.run(
      applyDeltaSql(r, "m", `(SELECT * FROM changes WHERE received_at >= ${firstMinute * MINUTE_MS})`, null),
    );
  await state.run("DROP TABLE changes_h");
  await state.run(applyIssueArrivalsSql("changes", context.bounds, !context.full));
  // The payers' units take a refresh's arrivals at once (payers.ts: arrivals split over steps could interleave).
  await state.run(`INSERT INTO payer_changes SELECT ${PAYER_CHANGE_COLUMNS} FROM changes`);
  // Attempt rows of the edge hours follow their attempts (a resolution changes an edge's figures).
  // (Equality joins and IN lists: a join condition with OR ran as a nested loop.)
  const edgeHours = (await state.all<{ hour: number }>("SELECT DISTINCT hour FROM edge_hours")).map((row) =>
    Number(row.hour),
  );
  await state.run(`CREATE OR REPLACE TEMP TABLE edge_changes AS
      SELECT ${ATTEMPT_NAMES.map((name) => `c.${name}`).join(", ")} FROM (SELECT * FROM changes WHERE received_at // ${HOUR_MS} IN (${edgeHours.join(", ") || "NULL"})) c
      LEFT JOIN (SELECT DISTINCT program, hour FROM edge_hours WHERE program <> '*') k ON k.program = c.program AND k.hour = c.received_at // ${HOUR_MS}
      WHERE sign > 0 AND (c.received_at // ${HOUR_MS} IN (SELECT hour FROM edge_hours WHERE program = '*') OR k.hour IS NOT NULL);
    DELETE FROM edge_rows USING edge_changes c WHERE edge_rows.attempt_key = c.attempt_key;
    INSERT INTO edge_rows SELECT * FROM edge_changes;
    DROP TABLE edge_changes`);
  return Number(n);
}
