// The tables job's own state (docs/serving.md#state): a DuckDB database under data/tables/state/
// that only the job opens (its lease serialises runs). It remembers what the job already took from
// the lake and holds the mergeable states the serving versions are made from: the per-unit rollups
// (rollups.ts), the attempts still waiting for their resolution, the issue counters per payer,
// the payers' units for the bot score, and the attempt rows of the hours at range edges. A refresh
// changes it in one transaction and commits only after the version it published is complete, so a
// crash leaves the previous state and version in place. Missing or of another schema version, it
// is rebuilt from the lake (a full refresh).

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { openDuck, plainRow, sqlString } from "../../lake/duckdb";
import { SKETCH_MACROS_SQL } from "../serving/sketch";
import { MINUTE_ROLLUPS } from "./recent";
import { createUnitTableSql, ROLLUPS } from "./rollups";
import { STATE_SCHEMA } from "./versions";

/** The columns of one attempt as the serving tables see it (envelope ⋈ resolution, narrow). */
export const ATTEMPT_COLUMNS = `attempt_key UBIGINT, program VARCHAR, account_id VARCHAR, received_at BIGINT, sent_at BIGINT, sig VARCHAR,
  payer VARCHAR, rpc_label VARCHAR, rpc_hash VARCHAR, wallet_adapter VARCHAR, kind VARCHAR, outcome VARCHAR, drop_class VARCHAR,
  instruction VARCHAR, err_code BIGINT, err_name VARCHAR, failing_program VARCHAR, fingerprint VARCHAR, cu_used BIGINT,
  cu_requested BIGINT, compute_exceeded BOOLEAN, block_time BIGINT, cu_weight DOUBLE, resolved_at BIGINT, sent_slot BIGINT, slot BIGINT`;
export const ATTEMPT_NAMES = ATTEMPT_COLUMNS.split(",").map((column) => column.trim().split(/\s+/)[0]);
/** What a resolution part gives an attempt (intake.ts resolutionRowsSql), keyed by attempt_key. */
export const RESOLUTION_STATE_COLUMNS = `attempt_key UBIGINT, outcome VARCHAR, drop_class VARCHAR, instruction VARCHAR, err_code BIGINT, err_name VARCHAR,
  failing_program VARCHAR, fingerprint VARCHAR, cu_used BIGINT, cu_requested BIGINT, compute_exceeded BOOLEAN, block_time BIGINT, cu_weight DOUBLE,
  resolved_at BIGINT, slot BIGINT`;
export const RESOLUTION_NAMES = RESOLUTION_STATE_COLUMNS.split(",").map((column) => column.trim().split(/\s+/)[0]);

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS state_meta (key VARCHAR, value VARCHAR)",
  // Lake parts already taken in, by name and size (a part is immutable; compaction replaces parts).
  "CREATE TABLE IF NOT EXISTS lake_parts (dataset VARCHAR, program VARCHAR, day VARCHAR, name VARCHAR, bytes BIGINT, rows BIGINT, segments VARCHAR[])",
  // Attempts without a resolution row yet (pending sends; preflight failures before the resolver's row).
  `CREATE TABLE IF NOT EXISTS unresolved (${ATTEMPT_COLUMNS})`,
  // Resolutions taken in before their attempt's envelope (apply.ts): the envelope arrives resolved.
  `CREATE TABLE IF NOT EXISTS early_resolutions (${RESOLUTION_STATE_COLUMNS})`,
  // Resolutions stored more than a day after their attempt's receipt day (a day's attempts are read back with these).
  `CREATE TABLE IF NOT EXISTS late_resolutions (${ATTEMPT_COLUMNS})`,
  // Attempt rows of the hours where a range starts or ends mid-hour, and which hours they are.
  `CREATE TABLE IF NOT EXISTS edge_rows (${ATTEMPT_COLUMNS})`,
  "CREATE TABLE IF NOT EXISTS edge_hours (program VARCHAR, hour INTEGER)",
  // Days whose rollups are kept per hour as well as per day.
  "CREATE TABLE IF NOT EXISTS hour_days (program VARCHAR, day INTEGER)",
  ...ROLLUPS.flatMap((r) => [createUnitTableSql(r, "h"), createUnitTableSql(r, "d")]),
  ...MINUTE_ROLLUPS.map((r) => createUnitTableSql(r, "m")),
  // Top-issues' figures per payer segment (issue-windows.ts), a refresh's touched issue_payers keys
  // and the rows they had before it (kept until its end commits).
  `CREATE TABLE IF NOT EXISTS issue_windows (program VARCHAR, scope VARCHAR, fingerprint VARCHAR, segment VARCHAR, win VARCHAR,
     count BIGINT, wallets BIGINT, last_at BIGINT, last_sig_at BIGINT, last_sig VARCHAR)`,
  "CREATE TABLE IF NOT EXISTS issue_payers_touched (program VARCHAR, account_id VARCHAR, fingerprint VARCHAR, payer UBIGINT)",
  `CREATE TABLE IF NOT EXISTS issue_payers_before (program VARCHAR, account_id VARCHAR, fingerprint VARCHAR, payer UBIGINT,
     c1d BIGINT, c7d BIGINT, c30d BIGINT, last_at BIGINT, last_sig_at BIGINT, last_sig VARCHAR)`,
  // Failures per issue and payer in each window: the distinct wallets of an issue, per payer segment.
  `CREATE TABLE IF NOT EXISTS issue_payers (program VARCHAR, account_id VARCHAR, fingerprint VARCHAR, payer UBIGINT,
     c1d BIGINT, c7d BIGINT, c30d BIGINT, last_at BIGINT, last_sig_at BIGINT, last_sig VARCHAR)`,
  // What never changes for an issue (its fingerprint's inputs), and when it was first and last seen (kept past
  // retention).
  `CREATE TABLE IF NOT EXISTS issue_identity (program VARCHAR, fingerprint VARCHAR, outcome VARCHAR, failing_program VARCHAR,
     instruction VARCHAR, err_code BIGINT, err_name VARCHAR, drop_class VARCHAR)`,
  "CREATE TABLE IF NOT EXISTS issue_lifetimes (program VARCHAR, account_id VARCHAR, fingerprint VARCHAR, first_seen BIGINT, last_seen BIGINT)",
  // Each issue's newest failures per account (the issue page's examples and representative event).
  `CREATE TABLE IF NOT EXISTS issue_examples (program VARCHAR, account_id VARCHAR, fingerprint VARCHAR, sig VARCHAR, sent_at BIGINT, received_at BIGINT,
     payer VARCHAR, rpc_label VARCHAR, outcome VARCHAR, failing_program VARCHAR, instruction VARCHAR, err_code BIGINT, err_name VARCHAR, drop_class VARCHAR)`,
  // The payers' units (bot score) per account: additive counts, the day's active hours as a mask, plus
  // the send-time sequence's first, last and gaps. In these and in issue_payers, `payer` is the payer's
  // key, not its address (payers.ts: payerKey).
  `CREATE TABLE IF NOT EXISTS payer_h (${PAYER_UNIT_COLUMNS("hour")})`,
  `CREATE TABLE IF NOT EXISTS payer_d (${PAYER_UNIT_COLUMNS("day")})`,
  "CREATE TABLE IF NOT EXISTS payer_gaps_h (payer UBIGINT, account_id VARCHAR, hour INTEGER, k INTEGER, n BIGINT)",
  "CREATE TABLE IF NOT EXISTS payer_gaps_d (payer UBIGINT, account_id VARCHAR, day INTEGER, k INTEGER, n BIGINT)",
  "CREATE TABLE IF NOT EXISTS payer_programs (payer UBIGINT, account_id VARCHAR, program VARCHAR, last_seen BIGINT)",
  // Which accounts count for a payer's score: each account's newest send and newest confirmed send per
  // program, and the (account, program) pairs that counted when payers were last scored (payers.ts).
  "CREATE TABLE IF NOT EXISTS account_program_times (account_id VARCHAR, program VARCHAR, last_seen BIGINT, last_confirmed BIGINT)",
  "CREATE TABLE IF NOT EXISTS payer_counted (account_id VARCHAR, program VARCHAR)",
  "CREATE TABLE IF NOT EXISTS payer_hour_days (day INTEGER)",
  `CREATE TABLE IF NOT EXISTS payer_scores (payer UBIGINT, attempts BIGINT, active_hours BIGINT, attempts_per_active_hour DOUBLE, gaps BIGINT,
     gap_dispersion DOUBLE, scripted_adapter_share DOUBLE, failure_share DOUBLE, programs BIGINT, score DOUBLE, segment VARCHAR)`,
  // What a refresh gathers over its steps for its end: the payers' changes (payers.ts), kept until
  // the end's transaction commits.
  `CREATE TABLE IF NOT EXISTS payer_changes (sign INTEGER, arrived BOOLEAN, payer UBIGINT, account_id VARCHAR, program VARCHAR, received_at BIGINT, sent_at BIGINT,
     attempt_key UBIGINT, wallet_adapter VARCHAR, outcome VARCHAR)`,
];

function PAYER_UNIT_COLUMNS(unit: "hour" | "day"): string {
  return `payer UBIGINT, account_id VARCHAR, ${unit} INTEGER, n BIGINT, scripted BIGINT, failures BIGINT, resolved BIGINT, hours BIGINT,
    hour_mask INTEGER, first_sent BIGINT, last_sent BIGINT, gaps BIGINT`;
}

export type ColumnKind = "integer" | "bigint" | "varchar";

export type StateDb = {
  connection: DuckDBConnection;
  run(sql: string): Promise<void>;
  all<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Appends rows to a table (an appender: a statement of thousands of VALUES took a second to parse). */
  insertRows(table: string, columns: ColumnKind[], rows: (string | number | null)[][]): Promise<void>;
  meta(key: string): Promise<string | null>;
  setMeta(values: Record<string, string | number>): Promise<void>;
  close(): void;
};

export const stateDir = (tablesDir: string) => join(tablesDir, "state");
export const stateFile = (tablesDir: string) => join(stateDir(tablesDir), "state.duckdb");

/** Opens (creating when missing) the state database; `fresh` first removes it. */
export async function openState(
  tablesDir: string,
  duckOptions: Record<string, string>,
  options: { fresh?: boolean } = {},
): Promise<StateDb> {
  const file = stateFile(tablesDir);
  mkdirSync(stateDir(tablesDir), { recursive: true });
  if (options.fresh) removeState(tablesDir);
  const duck = await openDuck(file, duckOptions);
  const connection = await duck.connect();
  const state: StateDb = {
    connection,
    run: async (sql) => {
      await connection.run(sql);
    },
    all: async <T>(sql: string) =>
      (await connection.runAndReadAll(sql)).getRowObjectsJS().map((row) => plainRow(row) as T),
    async insertRows(table, columns, rows) {
      const appender = await connection.createAppender(table);
      try {
        for (const row of rows) {
          columns.forEach((kind, i) => {
            const value = row[i];
            if (value === null) appender.appendNull();
            else if (kind === "varchar") appender.appendVarchar(String(value));
            else if (kind === "integer") appender.appendInteger(Number(value));
            else appender.appendBigInt(BigInt(value));
          });
          appender.endRow();
        }
      } finally {
        appender.closeSync();
      }
    },
    async meta(key) {
      const rows = await state.all<{ value: string }>(`SELECT value FROM state_meta WHERE key = ${sqlString(key)}`);
      return rows[0]?.value ?? null;
    },
    async setMeta(values) {
      for (const [key, value] of Object.entries(values)) {
        await state.run(
          `DELETE FROM state_meta WHERE key = ${sqlString(key)}; INSERT INTO state_meta VALUES (${sqlString(key)}, ${sqlString(String(value))})`,
        );
      }
    },
    close() {
      connection.closeSync();
      duck.close();
    },
  };
  try {
    await state.run("SET preserve_insertion_order = false");
    await state.run(SCHEMA.join(";\n"));
    await state.run(SKETCH_MACROS_SQL);
  } catch (error) {
    state.close();
    throw error;
  }
  return state;
}

/** Whether the state is one this code can continue from (after upgrade.ts's upgrades). */
export async function stateIsUsable(state: StateDb): Promise<boolean> {
  return (await state.meta("schema")) === String(STATE_SCHEMA) && (await state.meta("clock")) !== null;
}

export function removeState(tablesDir: string): void {
  const file = stateFile(tablesDir);
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
}
