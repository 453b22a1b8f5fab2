// The CLI's commands as one function over argv and injected output streams, so tests call it
// in-process and see exactly what a user sees.

import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkDate } from "../analytics/landing-score";
import { ConfigError, loadConfig } from "../config";
import { createContext } from "../context";
import {
  createAccountKey,
  KEY_KINDS,
  type KeyKind,
  kindOfScope,
  listKeys,
  openControlDb,
  revokeKey,
  scopeOfKind,
} from "../control";
import { JOBS, jobFor, PUBLISHING_JOBS, planOutsideRun, runJobsFromOutside } from "../jobs";
import { dataPaths } from "../lake/paths";
import { configureFault } from "../shared/fault";
import { Stopped } from "../shared/stop";
import { VERSION_LINE } from "../shared/version";
import { ALERTS_USAGE, AlertsUsageError, alertsCommand } from "./alerts";
import { ISSUES_USAGE, IssuesUsageError, issuesCommand } from "./issues";
import { userConfigPath, writeUserConfig } from "./user-config";

export type Io = { stdout(text: string): void; stderr(text: string): void; env: Record<string, string | undefined> };

const USAGE = `usage: txray <command>

  --version               print the version and build (the git commit, or "unknown")
  keys create --account <name> [--kind ingest|read|admin] [--json] [--no-save]
                          create an API key (shown once) and save it to the config file; kinds
                          (docs/security.md): ingest (txr_ingest_…, only sends telemetry: the one to
                          ship in a browser), read (txr_read_…, --read-only), admin (txr_live_…, the
                          default: ingests, reads and changes the account)
  keys list [--json]      list keys (ids, accounts, scopes; never the keys)
  keys revoke <key-id>    revoke a key by its id (key_…)
  jobs run <name|all>     run a job once: ${JOBS.map((job) => job.name).join(", ")} (all: these, in order)
  jobs run tables --full  rebuild every serving unit instead of reusing the previous build's
  jobs run landing-score [--date YYYY-MM-DD]
                          publish the Landing Score for a date (default: the last complete UTC day)
  idl add <program> <file> [--from-slot <slot>]
                          register an Anchor (legacy or >= 0.30) or Shank IDL for decoding a program
                          (from <slot> on; without it, it replaces the IDL in force now)
  idl fetch <program>     fetch the program's on-chain Anchor IDL over SOLANA_RPC_URL and register it
  backup <dir>            copy a running instance consistently into <dir> (absent or empty), with the
                          SHA-256 of every file in <dir>/backup.json, written last; prints that manifest
                          without its file list (docs/operations.md)
  backup verify <dir>     check a backup: its manifest, every file's size and SHA-256, every Parquet
                          footer, the control database; exit 0 when good, else 1 naming each bad file
  restore <backup> <data dir> [--snapshots <dir>]
                          verify a backup, then restore it into an absent or empty data directory
                          (and its snapshots into <dir>) through a temporary directory and a rename;
                          refuses, writing nothing, a backup that fails verification or a non-empty target
${ALERTS_USAGE}${ISSUES_USAGE}`;

class UsageError extends Error {}

export async function run(argv: string[], io: Io): Promise<number> {
  try {
    const [area, action, ...rest] = argv;
    if (area === undefined || area === "help" || area === "--help" || area === "-h") {
      io.stdout(USAGE);
      return area === undefined ? 2 : 0;
    }
    if (area === "--version" || area === "-V" || area === "version") {
      io.stdout(`${VERSION_LINE}\n`);
      return 0;
    }
    const config = loadConfig(io.env);
    if (area === "keys" && action === "create") return keysCreate(rest, config, io);
    if (area === "keys" && action === "list") return keysList(rest, config, io);
    if (area === "keys" && action === "revoke") return keysRevoke(rest, config, io);
    if (area === "jobs" && action === "run") return await jobsRun(rest, config, io);
    if (area === "idl" && action === "add") return await idlAdd(rest, config.dataDir, io);
    if (area === "idl" && action === "fetch") return await idlFetch(rest, config, io);
    if (area === "backup" && action === "verify") return await backupVerify(rest, io);
    if (area === "alerts") return await alertsCommand(action, rest, config, io);
    if (area === "issue") return await issuesCommand(action, rest, config, io);
    if (area === "backup")
      return await backup(
        [action, ...rest].filter((arg) => arg !== undefined),
        config,
        io,
      );
    if (area === "restore")
      return await restore(
        [action, ...rest].filter((arg) => arg !== undefined),
        config,
        io,
      );
    throw new UsageError(`unknown command: ${argv.join(" ")}`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof AlertsUsageError || error instanceof IssuesUsageError) {
      io.stderr(`txray: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`txray: ${error.message}\n`);
      return 2;
    }
    io.stderr(`txray: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function parse(args: string[], options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The control database of the configured deployment: TXRAY_CONTROL_URL, else the data directory's SQLite. */
const openControl = (config: ReturnType<typeof loadConfig>) =>
  openControlDb(dataPaths(config.dataDir).controlDb, config.TXRAY_CONTROL_URL);

const KIND_DESCRIPTIONS: Record<KeyKind, string> = {
  ingest: "ingest-only (safe to ship in a browser)",
  read: "read-only (query-scoped)",
  admin: "admin (account)",
};

function keysCreate(args: string[], config: ReturnType<typeof loadConfig>, io: Io): number {
  const { values } = parse(args, {
    account: { type: "string" },
    "read-only": { type: "boolean" },
    kind: { type: "string" },
    json: { type: "boolean" },
    "no-save": { type: "boolean" },
  });
  const account = values.account as string | undefined;
  if (!account) throw new UsageError("keys create needs --account <name>");
  const kindOption = values.kind as string | undefined;
  if (kindOption !== undefined && !KEY_KINDS.includes(kindOption as KeyKind))
    throw new UsageError(`keys create --kind: expected one of ${KEY_KINDS.join(", ")}`);
  if (kindOption !== undefined && values["read-only"] && kindOption !== "read")
    throw new UsageError("keys create: --read-only means --kind read");
  // Admin stays the default so scripts written before key kinds get the key they always got.
  const kind: KeyKind = (kindOption as KeyKind | undefined) ?? (values["read-only"] ? "read" : "admin");
  const scope = scopeOfKind(kind);
  const db = openControl(config);
  try {
    const { key, record } = createAccountKey(db, account, scope, Date.now());
    let savedTo: string | null = null;
    if (!values["no-save"]) {
      savedTo = userConfigPath(io.env);
      writeUserConfig(savedTo, { apiKey: key, account, scope });
    }
    if (values.json) io.stdout(`${JSON.stringify({ key, id: record.id, account, scope })}\n`);
    else {
      io.stdout(`${key}\n`);
      io.stderr(
        `created ${KIND_DESCRIPTIONS[kindOfScope(scope)]} key ${record.id} for account ${account}; it is shown only once.${savedTo ? ` Saved to ${savedTo}.` : ""}\n`,
      );
    }
    return 0;
  } finally {
    db.close();
  }
}

function keysList(args: string[], config: ReturnType<typeof loadConfig>, io: Io): number {
  const { values } = parse(args, { json: { type: "boolean" } });
  const db = openControl(config);
  try {
    const keys = listKeys(db);
    if (values.json) {
      io.stdout(
        `${JSON.stringify(
          keys.map((key) => ({
            id: key.id,
            account: key.accountName,
            scope: key.scope,
            createdAt: key.createdAt,
            revokedAt: key.revokedAt,
          })),
        )}\n`,
      );
      return 0;
    }
    if (keys.length === 0) io.stdout("no keys\n");
    for (const key of keys) {
      io.stdout(
        `${key.id}\t${key.accountName}\t${key.scope}\tcreated ${new Date(key.createdAt).toISOString()}${key.revokedAt ? `\trevoked ${new Date(key.revokedAt).toISOString()}` : ""}\n`,
      );
    }
    return 0;
  } finally {
    db.close();
  }
}

function keysRevoke(args: string[], config: ReturnType<typeof loadConfig>, io: Io): number {
  const { positionals } = parse(args, {});
  const id = positionals[0];
  if (!id) throw new UsageError("keys revoke needs a key id (see `txray keys list`)");
  const db = openControl(config);
  try {
    if (!revokeKey(db, id, Date.now())) {
      io.stderr(`txray: no active key ${id}\n`);
      return 1;
    }
    io.stdout(`revoked ${id}\n`);
    return 0;
  } finally {
    db.close();
  }
}

/**
 * `txray jobs run <name|all>`: the one way to run a job once outside the server. Exits 0 when every
 * step succeeded, 1 otherwise, printing each step's outcome as JSON. SIGTERM or SIGINT (`signal`)
 * stops the job at its next safe point (src/shared/stop.ts), and the run exits 1.
 */
async function jobsRun(args: string[], config: ReturnType<typeof loadConfig>, io: Io): Promise<number> {
  // --date belongs to landing-score alone and --full to tables alone; any other job refuses them.
  const options: Parameters<typeof parse>[1] = {};
  if (args.includes("landing-score")) options.date = { type: "string" };
  if (args.includes("tables")) options.full = { type: "boolean" };
  const { positionals, values } = parse(args, options);
  const name = positionals[0];
  if (!name) throw new UsageError("jobs run needs a job name");
  const date = values.date as string | undefined;
  if (date !== undefined) {
    const problem = checkDate(date, Date.now());
    if (problem) throw new UsageError(problem);
  }
  const job = name === "all" ? null : jobFor(name, { date, full: values.full === true });
  if (name !== "all" && job === undefined) {
    throw new UsageError(
      `unknown job: ${name} (jobs: ${[...JOBS, ...PUBLISHING_JOBS].map((known) => known.name).join(", ")}, all)`,
    );
  }
  const ctx = await createContext(config);
  const controller = new AbortController();
  const stop = () => controller.abort(new Stopped());
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, stop);
  try {
    // Live servers seal first; a tables run flushes first (src/jobs/cli-runs.ts, docs/lake.md).
    const ok = await runJobsFromOutside(
      ctx,
      planOutsideRun(job ? [job] : JOBS),
      {
        outcome: (outcome) => io.stdout(`${JSON.stringify(outcome)}\n`),
        warn: (text) => io.stderr(`txray: warning: ${text}\n`),
      },
      { signal: controller.signal },
    );
    return ok ? 0 : 1;
  } finally {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.off(signal, stop);
    ctx.close();
  }
}

async function idlAdd(args: string[], dataDir: string, io: Io): Promise<number> {
  const { positionals, values } = parse(args, { "from-slot": { type: "string" } });
  const [program, file] = positionals;
  if (!program || !file) throw new UsageError("idl add needs <program> <file> [--from-slot <slot>]");
  const { parseFromSlot, saveIdlFile } = await import("./idl");
  const summary = saveIdlFile(dataDir, program, file, parseFromSlot(values["from-slot"] as string | undefined));
  io.stdout(`${summary}\n`);
  return 0;
}

async function idlFetch(args: string[], config: ReturnType<typeof loadConfig>, io: Io): Promise<number> {
  const { positionals } = parse(args, {});
  const program = positionals[0];
  if (!program) throw new UsageError("idl fetch needs <program>");
  const { fetchIdlFromChain } = await import("./idl");
  const summary = await fetchIdlFromChain(config.dataDir, config.SOLANA_RPC_URL, program);
  if (summary === null) {
    io.stderr(`txray: ${program} publishes no Anchor IDL account on chain\n`);
    return 1;
  }
  io.stdout(`${summary}\n`);
  return 0;
}

// --- backup, verify and restore (src/ops/backup.ts, backup-verify.ts, restore.ts) ---
async function backup(args: string[], config: ReturnType<typeof loadConfig>, io: Io): Promise<number> {
  const { positionals } = parse(args, {});
  const target = positionals[0];
  if (!target || positionals.length > 1)
    throw new UsageError(
      "backup needs one target directory (to back up into a directory named verify, write ./verify)",
    );
  const paths = dataPaths(config.dataDir);
  const url = config.TXRAY_CONTROL_URL;
  if (!existsSync(url ? paths.root : paths.controlDb))
    throw new Error(
      `no txray instance at ${config.dataDir} (${url ? "no such directory" : "no control.sqlite"}): set TXRAY_DATA_DIR to the server's data directory`,
    );
  configureFault(config.TXRAY_FAULT_POINT);
  const { backupInstance } = await import("../ops/backup");
  const pgDump = url ? Bun.which("pg_dump", { PATH: io.env.PATH ?? process.env.PATH ?? "" }) : null;
  const control = openControl(config);
  try {
    const { files: _files, ...summary } = await backupInstance(
      {
        paths,
        control,
        snapshotsDir: config.snapshotsDir,
        clock: Date.now,
        postgres: url ? { url, pgDump } : undefined,
      },
      target,
    );
    io.stdout(`${JSON.stringify(summary)}\n`);
    return 0;
  } finally {
    control.close();
  }
}

/** Prints each problem on stderr (`txray: <file>: <problem>`). */
const reportProblems = (io: Io, problems: { file: string; problem: string }[]) => {
  for (const { file, problem } of problems) io.stderr(`txray: ${file}: ${problem}\n`);
};

async function backupVerify(args: string[], io: Io): Promise<number> {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new UsageError("backup verify needs one backup directory");
  const [{ verifyBackup }, { openDuck }] = await Promise.all([
    import("../ops/backup-verify"),
    import("../lake/duckdb"),
  ]);
  const duck = await openDuck();
  try {
    const { manifest: _manifest, ...report } = await verifyBackup(positionals[0], duck);
    io.stdout(`${JSON.stringify(report)}\n`);
    reportProblems(io, report.problems);
    if (!report.ok)
      io.stderr(
        `txray: backup ${positionals[0]} failed verification (${report.problems.length} problem${report.problems.length === 1 ? "" : "s"})\n`,
      );
    return report.ok ? 0 : 1;
  } finally {
    duck.close();
  }
}

async function restore(args: string[], config: ReturnType<typeof loadConfig>, io: Io): Promise<number> {
  const { positionals, values } = parse(args, { snapshots: { type: "string" } });
  if (positionals.length !== 2) throw new UsageError("restore needs <backup> <data dir>");
  configureFault(config.TXRAY_FAULT_POINT);
  const [{ restoreBackup, RestoreRefused }, { openDuck }] = await Promise.all([
    import("../ops/restore"),
    import("../lake/duckdb"),
  ]);
  const duck = await openDuck();
  try {
    const result = await restoreBackup(positionals[0], positionals[1], {
      duck,
      snapshotsDir: values.snapshots as string | undefined,
      controlUrl: config.TXRAY_CONTROL_URL,
    });
    io.stdout(`${JSON.stringify(result)}\n`);
    for (const command of result.byHand) io.stderr(`txray: restore by hand: ${command}\n`);
    if (result.snapshotsSkipped)
      io.stderr("txray: the backup's snapshots were not restored (pass --snapshots <dir> to restore them)\n");
    return 0;
  } catch (error) {
    if (error instanceof RestoreRefused) reportProblems(io, error.problems);
    throw error;
  } finally {
    duck.close();
  }
}
