// Upgrades of the tables job's state (state.ts) from an older schema this code can continue from:
// what a schema adds, filled from the state itself, instead of a rebuild from the whole lake.

import { payerKey } from "../serving/payer-key";
import { aggregateIssueWindowsSql } from "./issue-windows";
import { createUnitTableSql, rollup } from "./rollups";
import { RESOLUTION_STATE_COLUMNS, type StateDb } from "./state";

/** Per schema, the SQL that brings a state of it to the next. */
const UPGRADES: Record<number, () => string> = {
  6: aggregateIssueWindowsSql, // 7: top-issues' per-segment figures kept by deltas (issue-windows.ts)
  7: () => "DROP TABLE IF EXISTS wallet_changes; DROP TABLE IF EXISTS wallet_files", // 8: no wallet store (wallet pages read the lake)
  8: () =>
    PAYER_TABLES.map(
      (table) => `ALTER TABLE ${table} ALTER COLUMN payer SET DATA TYPE UBIGINT USING ${payerKey("payer")}`,
    ).join(";\n"), // 9: payers by key
  9: () => `CREATE TABLE IF NOT EXISTS early_resolutions (${RESOLUTION_STATE_COLUMNS})`, // 10: resolutions held until their envelope arrives
  // 11: an attempt's send slot and landed slot, and time to land in slots. No envelope held a send slot before,
  // so the new rollup's units start empty and stay exact.
  11: () =>
    [
      ...ATTEMPT_TABLES.map(
        (table) => `ALTER TABLE ${table} ADD COLUMN sent_slot BIGINT; ALTER TABLE ${table} ADD COLUMN slot BIGINT`,
      ),
      "ALTER TABLE early_resolutions ADD COLUMN slot BIGINT",
      createUnitTableSql(rollup("land_slots"), "h"),
      createUnitTableSql(rollup("land_slots"), "d"),
    ].join(";\n"),
};

/** The tables of attempt rows (state.ts ATTEMPT_COLUMNS). */
const ATTEMPT_TABLES = ["unresolved", "late_resolutions", "edge_rows"];

/** The tables whose `payer` became the payer's key in schema 9. */
export const PAYER_TABLES = [
  "issue_payers",
  "issue_payers_touched",
  "issue_payers_before",
  "payer_h",
  "payer_d",
  "payer_gaps_h",
  "payer_gaps_d",
  "payer_programs",
  "payer_scores",
  "payer_changes",
];

/** Upgrades the state as far as it goes, one schema per transaction; false when an upgrade failed (a rebuild then). */
export async function upgradeState(state: StateDb, target: number): Promise<boolean> {
  if ((await state.meta("clock")) === null) return true;
  let schema = Number(await state.meta("schema"));
  while (schema < target && UPGRADES[schema]) {
    try {
      await state.run(`BEGIN TRANSACTION; ${UPGRADES[schema]()}`);
      await state.setMeta({ schema: schema + 1 });
      await state.run("COMMIT");
    } catch {
      await state.run("ROLLBACK").catch(() => undefined);
      return false;
    }
    schema++;
  }
  return true;
}
