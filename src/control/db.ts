// The control plane: small, transactional state that does not belong in the lake. Accounts, hashed
// keys, programs seen per account, job runs, committed spool segments, leases, the resolver's
// pending queue and RPC cache. bun:sqlite in WAL mode by default: built into Bun, safe for one writer
// and many readers across processes (the server and a job run from the CLI share it). With
// TXRAY_CONTROL_URL it is PostgreSQL instead (src/control/postgres.ts), shared by every node of a
// larger deployment: the same migrations and queries, written in SQLite's dialect and rewritten in
// one place (src/control/dialect.ts), behind the same synchronous interface (ControlDb).

import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../shared/logger";
import { NewerDataError } from "../shared/version";
import { PostgresControlDb } from "./postgres";
import type { ControlDb } from "./types";

export type { ControlDb, ControlParams, ControlStatement, ControlTransaction } from "./types";

/**
 * Each entry runs once, in order; never edit a shipped migration, append a new one. Written in
 * SQLite's dialect; PostgreSQL gets them through postgresMigration (src/control/dialect.ts).
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), scope TEXT NOT NULL CHECK (scope IN ('live','read')),
     key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER);
   CREATE TABLE account_programs (
     account_id TEXT NOT NULL, program TEXT NOT NULL, attempts INTEGER NOT NULL, last_seen INTEGER NOT NULL,
     PRIMARY KEY (account_id, program)) WITHOUT ROWID;
   CREATE TABLE job_runs (
     id INTEGER PRIMARY KEY, job TEXT NOT NULL, started_at INTEGER NOT NULL, finished_at INTEGER, ok INTEGER,
     duration_ms INTEGER, error TEXT, details TEXT);
   CREATE INDEX job_runs_by_job ON job_runs (job, id);
   CREATE TABLE lake_segments (
     segment TEXT PRIMARY KEY, committed_at INTEGER NOT NULL, rows INTEGER NOT NULL, days TEXT NOT NULL, intake_at INTEGER);
   CREATE INDEX lake_segments_awaiting_intake ON lake_segments (intake_at) WHERE intake_at IS NULL;
   CREATE TABLE pending_attempts (
     attempt_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, program TEXT NOT NULL, sig TEXT NOT NULL,
     last_valid_block_height INTEGER NOT NULL, sent_at INTEGER NOT NULL, received_at INTEGER NOT NULL,
     rpc_hash TEXT NOT NULL, rpc_label TEXT NOT NULL, payer TEXT NOT NULL, cu_price_micro_lamports INTEGER,
     nonce INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL DEFAULT 'send', preflight_error TEXT, simulation_logs TEXT,
     checks INTEGER NOT NULL DEFAULT 0,
     expiry_observed_at INTEGER, expiry_block_height INTEGER, next_check_at INTEGER NOT NULL DEFAULT 0);
   CREATE INDEX pending_by_sig ON pending_attempts (sig);
   CREATE INDEX pending_due ON pending_attempts (next_check_at);
   CREATE TABLE rpc_transactions (sig TEXT PRIMARY KEY, fetched_at INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE resolution_batches (batch TEXT PRIMARY KEY, created_at INTEGER NOT NULL, files TEXT NOT NULL, committed INTEGER NOT NULL DEFAULT 0);
   CREATE TABLE attempt_index (
     attempt_id TEXT PRIMARY KEY, sig TEXT, account_id TEXT NOT NULL, program TEXT NOT NULL, outcome TEXT NOT NULL,
     payer TEXT NOT NULL, rpc_hash TEXT NOT NULL, rpc_label TEXT NOT NULL, sent_at INTEGER NOT NULL, resolved_at INTEGER NOT NULL,
     cu_price_micro_lamports INTEGER, fingerprint TEXT, drop_class TEXT, story TEXT NOT NULL);
   CREATE INDEX attempt_index_by_sig ON attempt_index (sig);
   CREATE INDEX attempt_index_by_fingerprint ON attempt_index (fingerprint, sent_at);
   CREATE INDEX attempt_index_recent ON attempt_index (sent_at);
   CREATE INDEX attempt_index_by_payer ON attempt_index (payer, program, sent_at);
   CREATE INDEX attempt_index_by_provider ON attempt_index (rpc_hash, sent_at);
   CREATE TABLE block_heights (observed_at INTEGER PRIMARY KEY, height INTEGER NOT NULL);`,
  // 2: live ingest nodes and seal requests (src/control/ingest-nodes.ts, docs/lake.md "Flushing on demand").
  `CREATE TABLE IF NOT EXISTS ingest_nodes (
     node_id TEXT PRIMARY KEY, owner TEXT NOT NULL, rpc_origin TEXT NOT NULL, rpc_fingerprint TEXT NOT NULL,
     started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL);
   CREATE TABLE IF NOT EXISTS seal_requests (
     id TEXT PRIMARY KEY, node_id TEXT NOT NULL, requested_at INTEGER NOT NULL, sealed_at INTEGER);
   CREATE INDEX IF NOT EXISTS seal_requests_by_node ON seal_requests (node_id, sealed_at);`,
  // 3: the resolver's due queue indexed in the order a run reads it (next_check_at, attempt_id): with
  // a backlog of a million pending attempts, picking a run's 20,000 no longer sorts the whole queue
  // on the server's main thread (1.1 s per run measured in the soak). Replaces pending_due.
  `CREATE INDEX IF NOT EXISTS pending_due_order ON pending_attempts (next_check_at, attempt_id);
   DROP INDEX IF EXISTS pending_due;`,
  // 4: each provider's resolved sends and drops per hour of send time, kept beside attempt_index by
  // the resolver: diagnose-drop's 7-day provider drop rate counted every indexed send of the provider
  // per request (millions of rows at a busy instance, on a public route); now it sums 169 rows.
  `CREATE TABLE IF NOT EXISTS provider_hours (
     rpc_hash TEXT NOT NULL, hour INTEGER NOT NULL, sends INTEGER NOT NULL, dropped INTEGER NOT NULL,
     PRIMARY KEY (rpc_hash, hour)) WITHOUT ROWID;
   INSERT INTO provider_hours (rpc_hash, hour, sends, dropped)
     SELECT rpc_hash, sent_at / 3600000, count(*), sum(CASE WHEN outcome = 'dropped' THEN 1 ELSE 0 END)
     FROM attempt_index WHERE outcome != 'preflight' GROUP BY rpc_hash, sent_at / 3600000;`,
  // 5: the attempt index by resolution time: each resolve run trimmed entries older than 30 days by
  // resolved_at with a scan of the whole index, and drop classification's recent sends
  // (src/chain/resolve/recent-sends.ts) read what was indexed since the last run through it.
  `CREATE INDEX IF NOT EXISTS attempt_index_by_resolved ON attempt_index (resolved_at);`,
  // 6: the flush batch whose parts hold a segment's rows (parts are named part-<flush batch>-<i>):
  // the resolver's intake read each new segment by filtering the whole day of the lake (a footer
  // per part, more every hour of the day) and now opens only that batch's parts.
  `ALTER TABLE lake_segments ADD COLUMN flush_batch TEXT;`,
  // 7: nothing reads the attempt index by provider since provider_hours (migration 4) counts
  // diagnose-drop's sends; the index cost a B-tree insert for every resolved attempt.
  `DROP INDEX IF EXISTS attempt_index_by_provider;`,
  // 8: look-ups by signature through the signature's first 8 characters (src/control/signatures.ts):
  // an index on the whole, random signature cost ~25 µs of each insert and delete of the resolver's
  // queue at 3M queued, and the attempt index's grew by ~100 bytes per attempt for 30 days.
  `CREATE INDEX IF NOT EXISTS pending_by_sig_prefix ON pending_attempts (substr(sig, 1, 8));
   DROP INDEX IF EXISTS pending_by_sig;
   CREATE INDEX IF NOT EXISTS attempt_index_by_sig_prefix ON attempt_index (substr(sig, 1, 8));
   DROP INDEX IF EXISTS attempt_index_by_sig;`,
  // 9: spool segments flush set aside because their rows cannot be read (src/control/quarantine.ts,
  // docs/lake.md "Quarantined segments"): counted in /v1/status instead of being retried forever.
  `CREATE TABLE IF NOT EXISTS quarantined_segments (
     segment TEXT PRIMARY KEY, quarantined_at INTEGER NOT NULL, path TEXT NOT NULL, envelopes INTEGER NOT NULL,
     bytes INTEGER NOT NULL, reason TEXT NOT NULL);`,
  // 10: alerts (src/control/alerts.ts, docs/alerts.md): each account's rules with their destination,
  // the state of every subject a rule watches (firing or resolved), and the deliveries, stored before
  // they are sent and kept as the delivery log. `destination_key` names one destination (account, type,
  // URL and secret) for ordering and the flood cap.
  `CREATE TABLE IF NOT EXISTS alert_rules (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL, program TEXT NOT NULL, rule TEXT NOT NULL, params TEXT NOT NULL,
     destination_type TEXT NOT NULL, destination_url TEXT NOT NULL, destination_secret TEXT, destination_key TEXT NOT NULL,
     created_at INTEGER NOT NULL, deleted_at INTEGER);
   CREATE INDEX IF NOT EXISTS alert_rules_by_account ON alert_rules (account_id, id);
   CREATE TABLE IF NOT EXISTS alert_states (
     rule_id TEXT NOT NULL, subject TEXT NOT NULL, state TEXT NOT NULL, changed_at INTEGER NOT NULL, clear_since INTEGER,
     evaluated_at INTEGER NOT NULL, title TEXT NOT NULL, data TEXT NOT NULL,
     PRIMARY KEY (rule_id, subject)) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS alert_deliveries (
     id TEXT PRIMARY KEY, rule_id TEXT NOT NULL, account_id TEXT NOT NULL, destination_key TEXT NOT NULL, kind TEXT NOT NULL,
     subject TEXT, state TEXT NOT NULL, title TEXT NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL,
     created_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, give_up_at INTEGER NOT NULL,
     last_attempt_at INTEGER, last_status INTEGER, last_error TEXT, sent_at INTEGER, summary_id TEXT);
   CREATE INDEX IF NOT EXISTS alert_deliveries_by_status ON alert_deliveries (status, destination_key, created_at);
   CREATE INDEX IF NOT EXISTS alert_deliveries_by_destination ON alert_deliveries (destination_key, created_at);
   CREATE INDEX IF NOT EXISTS alert_deliveries_by_rule ON alert_deliveries (rule_id, created_at);
   CREATE INDEX IF NOT EXISTS alert_deliveries_by_account ON alert_deliveries (account_id, created_at);`,
  // 11: the resolver keeps no row per attempt here any more. Its open attempts live in its
  // memory and checkpoint (src/chain/resolve/checkpoint.ts) and resolved attempts in the signature
  // index (src/signature-index); pending_attempts and attempt_index are read once by the first run
  // of the new resolver and emptied. What stays is per segment, per batch and per hour: segments
  // taken after a checkpoint are found through their intake time, and each issue's attempts per
  // hour of send time (why's count7d and firstSeen before the tables know the issue), seeded from
  // the attempt index.
  `CREATE INDEX IF NOT EXISTS lake_segments_by_intake ON lake_segments (intake_at);
   CREATE INDEX IF NOT EXISTS resolution_batches_by_created ON resolution_batches (created_at);
   CREATE TABLE IF NOT EXISTS issue_hours (
     fingerprint TEXT NOT NULL, hour INTEGER NOT NULL, attempts INTEGER NOT NULL, first_seen INTEGER NOT NULL,
     PRIMARY KEY (fingerprint, hour)) WITHOUT ROWID;
   INSERT INTO issue_hours (fingerprint, hour, attempts, first_seen)
     SELECT fingerprint, sent_at / 3600000, count(*), min(sent_at) FROM attempt_index WHERE fingerprint IS NOT NULL GROUP BY fingerprint, sent_at / 3600000;`,
  // 12: ingest keys (txr_ingest_…, src/control/keys.ts): a third scope. Neither engine widens a
  // CHECK constraint in place the same way, so the table is copied into one with the wider check
  // (the same statements on SQLite and PostgreSQL; nothing references api_keys).
  `CREATE TABLE api_keys_next (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
     scope TEXT NOT NULL CHECK (scope IN ('live','read','ingest')),
     key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER);
   INSERT INTO api_keys_next (id, account_id, scope, key_hash, created_at, revoked_at)
     SELECT id, account_id, scope, key_hash, created_at, revoked_at FROM api_keys;
   DROP TABLE api_keys;
   ALTER TABLE api_keys_next RENAME TO api_keys;`,
  // 13: the distinct programs each account's envelopes named per UTC day (src/control/program-quota.ts), counted
  // against ACCOUNT_PROGRAMS_PER_DAY before a batch is acknowledged; an account's earlier days are deleted as it
  // starts a new one.
  `CREATE TABLE IF NOT EXISTS account_program_days (
     account_id TEXT NOT NULL, day INTEGER NOT NULL, program TEXT NOT NULL,
     PRIMARY KEY (account_id, day, program)) WITHOUT ROWID;`,
  // 14: each account's triage of its issues (src/control/issue-states.ts, docs/api.md#issue-states): the state
  // an admin key set, its assignee, and every change with who made it, numbered per issue.
  `CREATE TABLE IF NOT EXISTS issue_states (
     account_id TEXT NOT NULL, fingerprint TEXT NOT NULL, program TEXT NOT NULL, state TEXT NOT NULL,
     ignore_until_events INTEGER, ignore_until_at INTEGER, assignee TEXT, changed_at INTEGER NOT NULL,
     changed_by TEXT NOT NULL, PRIMARY KEY (account_id, fingerprint)) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS issue_states_by_program ON issue_states (account_id, program);
   CREATE TABLE IF NOT EXISTS issue_state_history (
     account_id TEXT NOT NULL, fingerprint TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL,
     actor TEXT NOT NULL, change TEXT NOT NULL, detail TEXT NOT NULL,
     PRIMARY KEY (account_id, fingerprint, seq)) WITHOUT ROWID;`,
];

/**
 * What each migration does, in an operator's words (MIGRATION_SUMMARIES[i] for migration i + 1): the
 * log line written when it is applied. One entry per migration, appended with it.
 */
export const MIGRATION_SUMMARIES: string[] = [
  "accounts, keys, job runs, lake segments, resolver queue and attempt index",
  "ingest nodes and seal requests",
  "resolver due queue indexed in read order",
  "provider drop counts per hour",
  "attempt index by resolution time",
  "lake segments record their flush batch",
  "unused attempt index by provider dropped",
  "signature look-ups by prefix",
  "quarantined spool segments",
  "alert rules, states and deliveries",
  "resolver queue moved out; issue attempts per hour",
  "api_keys scope may be ingest",
  "distinct programs per account and day (ingest quota)",
  "issue states, assignees and their history",
];

/** The highest control schema this build knows: a database above it was written by a newer txray. */
export const CONTROL_SCHEMA = MIGRATIONS.length;

/** Where openControlDb reports each migration it applies (createContext passes its logger). */
export type ControlOpenOptions = { logger?: Pick<Logger, "info"> };

/** Refuses a control database a newer txray has migrated past this build's migrations. */
export function refuseNewerControlSchema(version: number): void {
  if (version > CONTROL_SCHEMA) throw new NewerDataError("control schema", version, CONTROL_SCHEMA);
}

/**
 * Logs the migrations just applied (`[version, startedAt]`, 1-based, in order): one line each when an
 * existing database was upgraded; one line in all for a database created now, whose history is
 * every migration and tells an operator nothing.
 */
function logMigrations(options: ControlOpenOptions, applied: [number, number][]): void {
  if (applied.length === 0) return;
  const [first, startedAt] = applied[0];
  if (first === 1) {
    const schema = applied[applied.length - 1][0];
    options.logger?.info(`control: new control database at schema ${schema}`, {
      schema,
      durationMs: Math.round(performance.now() - startedAt),
    });
    return;
  }
  for (const [index, [version, at]] of applied.entries()) {
    const endedAt = index + 1 < applied.length ? applied[index + 1][1] : performance.now();
    options.logger?.info(`control: migration ${version} applied (${MIGRATION_SUMMARIES[version - 1]})`, {
      migration: version,
      durationMs: Math.round(endedAt - at),
    });
  }
}

/** Which SQL engine a control database runs on (for the few statements that must differ). */
export const controlDialect = (db: ControlDb): "sqlite" | "postgres" =>
  db instanceof PostgresControlDb ? "postgres" : "sqlite";

/** Why the control database does not answer a trivial query (`SELECT 1`); null when it does. */
export function controlPlaneProblem(db: ControlDb): string | null {
  try {
    db.query("SELECT 1").get();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The control database: PostgreSQL when `controlUrl` (TXRAY_CONTROL_URL) is set, else SQLite at
 * `path` (normally `<data dir>/control.sqlite`).
 */
export function openControlDb(path: string, controlUrl?: string, options: ControlOpenOptions = {}): ControlDb {
  if (controlUrl) {
    const db = new PostgresControlDb(controlUrl);
    try {
      const applied: [number, number][] = [];
      db.migrate(MIGRATIONS, refuseNewerControlSchema, (version, startedAt) => applied.push([version, startedAt]));
      logMigrations(options, applied);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  // The owner's only, whatever the umask; SQLite gives the -wal and -shm files it creates the database file's mode,
  // and those already there are set too.
  if (path !== ":memory:") ownerOnly(path);
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;",
  );
  // Up to 64 MB of pages per connection (SQLite's default is 2 MB), filled only as pages are read
  // (the legacy resolver queue and attempt index take rows at random places in their signature
  // indexes, and the upgrade reads them once).
  db.exec("PRAGMA cache_size = -65536;");
  try {
    migrate(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
  if (path !== ":memory:") for (const companion of [`${path}-wal`, `${path}-shm`]) ownerOnly(companion);
  return sqliteControlDb(db);
}

/** chmod 0600, unless the file is not there (a -wal or -shm SQLite has not made, or has removed). */
function ownerOnly(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * A read-only connection to the SQLite control database at `path` (an ingest worker thread
 * authenticates keys with one), or the PostgreSQL control plane when `controlUrl` is set.
 */
export function openControlDbReadOnly(path: string, controlUrl?: string): ControlDb {
  if (controlUrl) return openControlDb(path, controlUrl);
  const db = new Database(path, { readonly: true, strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  return sqliteControlDb(db);
}

/**
 * The control database copied as of one transaction while other processes keep writing it (SQLite:
 * VACUUM INTO reads a snapshot and writes a compact, standalone database file), for a backup.
 * Leases are facts about running processes, not data: the copy starts without any.
 */
export function snapshotControlDb(control: ControlDb, file: string): void {
  control.exec(`VACUUM INTO '${file.replaceAll("'", "''")}'`);
  const copy = new Database(file);
  try {
    copy.exec("DELETE FROM meta WHERE key LIKE 'lease:%'");
  } finally {
    copy.close();
  }
}

/**
 * Why a SQLite control database file (a backup's copy) cannot be trusted: SQLite's integrity check
 * fails, or it is no control database (no schema_version); null when it passes. Opens it read-only.
 */
export function controlDbFileProblem(file: string): string | null {
  let db: Database;
  try {
    db = new Database(file, { readonly: true, strict: true });
  } catch (error) {
    return `not a readable SQLite database: ${(error as Error).message}`;
  }
  try {
    const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (rows.length !== 1 || rows[0].integrity_check !== "ok")
      return `SQLite integrity check failed: ${rows
        .map((row) => row.integrity_check)
        .join("; ")
        .slice(0, 300)}`;
    const version = db
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
      )
      .get();
    return version?.n === 1 ? null : "not a txray control database (no schema_version table)";
  } catch (error) {
    return `not a readable SQLite database: ${(error as Error).message}`;
  } finally {
    db.close();
  }
}

/**
 * A bun:sqlite Database as a ControlDb. It has every method ControlDb names; only its statement
 * generics are more elaborate than TypeScript can match structurally, hence the cast.
 */
export const sqliteControlDb = (db: Database): ControlDb => db as unknown as ControlDb;

function migrate(db: Database, options: ControlOpenOptions) {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.query<{ version: number }, []>("SELECT version FROM schema_version").get();
  let version = row?.version ?? 0;
  refuseNewerControlSchema(version);
  if (!row) db.exec("INSERT INTO schema_version VALUES (0)");
  const applied: [number, number][] = [];
  while (version < MIGRATIONS.length) {
    const startedAt = performance.now();
    db.transaction(() => {
      db.exec(MIGRATIONS[version]);
      db.query("UPDATE schema_version SET version = ?").run(version + 1);
    }).immediate();
    version++;
    applied.push([version, startedAt]);
  }
  logMigrations(options, applied);
}
