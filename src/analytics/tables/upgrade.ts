// Upgrades of the tables job's state (state.ts) from an older schema this code can continue from:
// what a schema adds, filled from the state itself, instead of a rebuild from the whole lake.

import { aggregateIssueWindowsSql } from "./issue-windows";
import type { StateDb } from "./state";

/** Per schema, the SQL that brings a state of it to the next. */
const UPGRADES: Record<number, () => string> = {
  6: aggregateIssueWindowsSql, // 7: top-issues' per-segment figures kept by deltas (issue-windows.ts)
  7: () => "DROP TABLE IF EXISTS wallet_changes; DROP TABLE IF EXISTS wallet_files", // 8: no wallet store (wallet pages read the lake)
};

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
