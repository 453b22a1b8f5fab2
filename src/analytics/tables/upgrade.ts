// Upgrades of the tables job's state (state.ts) from an older schema this code can continue from:
// what a schema adds, filled from the state itself, instead of a rebuild from the whole lake.

import { payerKey } from "../serving/payer-key";
import { aggregateIssueWindowsSql } from "./issue-windows";
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
};

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
