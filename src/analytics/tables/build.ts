// Builds the serving tables: DuckDB SQL over the lake (envelopes ⋈ resolutions, deploys) into a
// NEW database file, then switches the pointer (serving/pointer.ts). Readers never see a
// half-built table and never share a file with the writer (DuckDB locks a file it writes).
//
// Incremental: the joined attempts are kept per (program, day) unit; a unit whose lake files are
// unchanged (tables/lake-units.ts) is copied from the previous serving file instead of re-joined.
// The windowed aggregates (1d/7d/30d relative to ctx.clock) are rebuilt from the attempts every
// time: their windows move with the clock, and they are cheap next to the join. So are the
// precomputed public answers (tables/answers.ts) and the wallet pages side files
// (tables/wallet-pages.ts), which belong to the version like its database file.

import { mkdirSync, rmSync } from "node:fs";
import type { Context } from "../../context";
import { byteSize, openDuck, plainRow, sqlString } from "../../lake/duckdb";
import { utcDay } from "../../lake/paths";
import { sqlFile } from "../sql";
import { answersFile, nextVersion, readPointer, removeServingFilesExcept, servingFile, walletPagesFiles, writePointer } from "../serving/pointer";
import { writeAnswers } from "./answers";
import { deployFiles, lakeUnits, type LakeUnit } from "./lake-units";
import { removeWalletPages, writeWalletPages, type WalletPagesResult } from "./wallet-pages";
import { WINDOWS } from "../windows";
import { checkStop } from "../../shared/stop";
import { fault } from "../../shared/fault";

/** Bump when the serving tables change shape: the next build is then a full one. */
export const SERVING_SCHEMA = 3;
/** Days of attempts kept in the serving file: the 30-day window plus room for release diffs. */
export const RETENTION_DAYS = 45;
export { WINDOWS, type WindowName } from "../windows";
export const BOT_SCORE_VERSION = "bot-v2";
/** Wallet adapters that indicate a script rather than a person (lower-cased). */
export const SCRIPTED_ADAPTERS = ["", "unknown", "none", "keypair", "keypair-wallet", "local-keypair", "node", "cli", "server", "script", "bot"];

type Session = { run(sql: string): Promise<void>; all<T = Record<string, unknown>>(sql: string): Promise<T[]> };

/** full: ignore the previous build; walletLineMaxItems: see tables/wallet-pages.ts (tests lower it). */
export type BuildOptions = { full?: boolean; walletLineMaxItems?: number; /** Attempts per wallet-lines aggregate (tables/wallet-pages.ts); tests lower it. */ walletAttemptsPerPart?: number; /** Graceful shutdown: stop between statements (the half-built file is removed; the pointer never moves). */ signal?: AbortSignal };
export type BuildResult = {
  version: number; units: number; rebuiltUnits: number; copiedUnits: number; attempts: number; seconds: number; steps: Record<string, number>;
  answers: number; walletPages: WalletPagesResult;
};

/** The serving attempts' columns (an empty typed template for "no rows" views). */
const ATTEMPTS_TEMPLATE = `CREATE TEMP TABLE attempts_template (wallet_key UBIGINT, attempt_key UBIGINT, account_id VARCHAR,
  program VARCHAR, day VARCHAR, received_at BIGINT, sent_at BIGINT, sig VARCHAR, payer VARCHAR, rpc_label VARCHAR, rpc_hash VARCHAR,
  wallet_adapter VARCHAR, kind VARCHAR, outcome VARCHAR, drop_class VARCHAR, instruction VARCHAR, err_code BIGINT, err_name VARCHAR,
  failing_program VARCHAR, fingerprint VARCHAR, cu_used BIGINT, cu_requested BIGINT, compute_exceeded BOOLEAN, block_time BIGINT, sample_weight DOUBLE)`;

const NO_RESOLUTION_ROWS = `CREATE OR REPLACE TEMP VIEW resolution_rows AS SELECT NULL::VARCHAR AS attempt_id, NULL::VARCHAR AS outcome,
  NULL::VARCHAR AS drop_class, NULL::VARCHAR AS instruction, NULL::BIGINT AS err_code, NULL::VARCHAR AS err_name,
  NULL::VARCHAR AS failing_program, NULL::VARCHAR AS fingerprint, NULL::BIGINT AS cu_used, NULL::BIGINT AS cu_requested,
  NULL::BOOLEAN AS compute_exceeded, NULL::BIGINT AS block_time, NULL::DOUBLE AS sample_weight WHERE false`;

const EMPTY_DEPLOYS = `CREATE TABLE deploys (program VARCHAR, slot BIGINT, deployed_at BIGINT, detected_at BIGINT, authority VARCHAR,
  effective_at BIGINT, previous_at BIGINT, previous_slot BIGINT, next_at BIGINT)`;

/**
 * Builds run one at a time per process (across processes the tables job's lease serialises them):
 * two overlapping builds would pick the same next version and write one file from two DuckDB
 * instances (DuckDB's file lock does not stop a second instance in the same process), and each
 * would delete the other's half-built file as a dead build's.
 */
let buildQueue: Promise<unknown> = Promise.resolve();

export function buildServingTables(ctx: Context, options: BuildOptions = {}): Promise<BuildResult> {
  const build = buildQueue.then(() => buildOnce(ctx, options));
  buildQueue = build.catch(() => undefined);
  return build;
}

async function buildOnce(ctx: Context, options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const clock = ctx.clock();
  const units = lakeUnits(ctx.paths, utcDay(clock - RETENTION_DAYS * 86_400_000), utcDay(clock + 86_400_000));
  const previous = readPointer(ctx.paths);
  const usePrevious = !options.full && previous !== null && previous.schema === SERVING_SCHEMA;
  const version = nextVersion(ctx.paths);
  const file = servingFile(ctx.paths, version);
  const walletFiles = walletPagesFiles(ctx.paths.tables, version);
  mkdirSync(ctx.paths.tables, { recursive: true });
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });

  const duck = await openDuck(file, ctx.duckOptions(`tables-${version}`));
  const connection = await duck.connect();
  // One connection for the whole build: temp views and the attached previous file live on it.
  const steps: Record<string, number> = {};
  const session: Session = {
    run: async (sql) => {
      checkStop(options.signal);
      fault("tables:mid-build");
      const at = performance.now();
      const step = stepName(sql);
      try {
        await connection.run(sql);
      } catch (error) {
        // Name the step: "Out of Memory" alone does not tell an operator which table to look at.
        throw new Error(`tables step ${step}: ${(error as Error).message}`, { cause: error });
      }
      steps[step] = (steps[step] ?? 0) + Math.round(performance.now() - at);
    },
    all: async <T>(sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS().map((row) => plainRow(row) as T),
  };
  let attempts = 0;
  let answers = 0;
  let walletPages: WalletPagesResult = { skipped: "not built" };
  let rebuilt: LakeUnit[] = units;
  try {
    const previousSignatures = usePrevious ? await attachPrevious(session, servingFile(ctx.paths, previous.version)) : null;
    rebuilt = previousSignatures ? units.filter((u) => previousSignatures.get(`${u.program}/${u.day}`) !== u.signature) : units;
    const copied = previousSignatures ? units.filter((u) => previousSignatures.get(`${u.program}/${u.day}`) === u.signature) : [];
    await fillAttempts(session, rebuilt, copied);
    attempts = Number((await session.all<{ n: number }>("SELECT count(*) AS n FROM attempts"))[0].n);
    await buildAggregates(session, clock, ctx, previousSignatures !== null);
    const answersStarted = performance.now();
    answers = await writeAnswers(connection, clock, answersFile(ctx.paths.tables, version));
    steps.answers = Math.round(performance.now() - answersStarted);
    walletPages = await writeWalletPages(session, walletFiles, {
      since: clock - WINDOWS["30d"],
      until: clock,
      maxItems: options.walletLineMaxItems,
      // ~2 KB per attempt, generously (a line item is 150–250 bytes; the join and aggregate around it).
      attemptsPerPart: options.walletAttemptsPerPart ?? Math.max(100_000, Math.floor(byteSize(ctx.config.DUCKDB_MEMORY_LIMIT) / 2048)),
    });
    if ("skipped" in walletPages) ctx.logger.warn("tables: no wallet pages for this version", { reason: walletPages.skipped });
    await writeMeta(session, { version, clock, units });
    if (previousSignatures) await session.run("DETACH prev");
    await session.run("CHECKPOINT");
  } catch (error) {
    connection.closeSync();
    duck.close();
    rmSync(file, { force: true });
    rmSync(`${file}.wal`, { force: true });
    removeWalletPages(walletFiles);
    rmSync(answersFile(ctx.paths.tables, version), { force: true });
    throw error;
  }
  connection.closeSync();
  duck.close();
  rmSync(`${file}.wal`, { force: true });
  fault("tables:after-build");
  writePointer(ctx.paths, { version, file: `serving-${version}.duckdb`, builtAt: Date.now(), clock, schema: SERVING_SCHEMA });
  fault("tables:after-pointer");
  // Keep the previous file for readers that have not switched yet; anything older goes.
  removeServingFilesExcept(ctx.paths, previous ? [version, previous.version] : [version]);
  return {
    version,
    units: units.length,
    rebuiltUnits: rebuilt.length,
    copiedUnits: units.length - rebuilt.length,
    attempts,
    seconds: (performance.now() - started) / 1000,
    steps,
    answers,
    walletPages,
  };
}

/** A short label for a build statement (for the per-step timings the job reports). */
function stepName(sql: string): string {
  const match = /CREATE (?:OR REPLACE )?(?:TEMP )?(?:TABLE|VIEW) (\w+)|INSERT INTO (\w+)(?:[^\n]*?\b(prev|read_parquet))?|^\s*(\w+)/.exec(sql.replace(/--[^\n]*\n/g, ""));
  if (!match) return "other";
  if (match[1]) return match[1];
  if (match[2]) return match[3] ? `${match[2]}:${match[3] === "prev" ? "copied" : "joined"}` : match[2];
  return match[4].toLowerCase();
}

/** Attaches the previous serving file; its unit signatures, or null when it cannot be reused. */
async function attachPrevious(duck: Session, file: string): Promise<Map<string, string> | null> {
  try {
    await duck.run(`ATTACH ${sqlString(file)} AS prev (READ_ONLY)`);
    const rows = await duck.all<{ program: string; day: string; signature: string }>("SELECT program, day, signature FROM prev.build_units");
    return new Map(rows.map((r) => [`${r.program}/${r.day}`, r.signature]));
  } catch {
    try {
      await duck.run("DETACH DATABASE IF EXISTS prev");
    } catch {
      // nothing attached
    }
    return null;
  }
}

async function fillAttempts(session: Session, rebuilt: LakeUnit[], copied: LakeUnit[]): Promise<void> {
  await session.run(ATTEMPTS_TEMPLATE);
  if (copied.length > 0) {
    await session.run(
      `CREATE TEMP TABLE unchanged_units AS SELECT * FROM (VALUES ${copied.map((u) => `(${sqlString(u.program)}, ${sqlString(u.day)})`).join(", ")}) t(program, day)`,
    );
    await session.run(sqlFile("attempts_unchanged"));
  } else {
    await session.run("CREATE OR REPLACE TEMP VIEW copied_attempts AS SELECT * FROM attempts_template");
  }
  if (rebuilt.length > 0) {
    const resolutionFiles = [...new Set(rebuilt.flatMap((u) => u.resolutionFiles))];
    await session.run(resolutionFiles.length > 0 ? sqlFile("resolution_rows", { resolutionFiles }) : NO_RESOLUTION_ROWS);
    await session.run(sqlFile("attempts_from_lake", { envelopeFiles: rebuilt.flatMap((u) => u.envelopeFiles) }));
  } else {
    await session.run("CREATE OR REPLACE TEMP VIEW rebuilt_attempts AS SELECT * FROM attempts_template");
  }
  await session.run(sqlFile("attempts_sorted"));
}

async function buildAggregates(duck: Session, clock: number, ctx: Context, hasPrevious: boolean): Promise<void> {
  const windowRows = Object.entries(WINDOWS).map(([win, length]) => `(${sqlString(win)}, ${clock - length}, ${clock}, ${length})`);
  await duck.run(`CREATE TABLE windows AS SELECT * FROM (VALUES ${windowRows.join(", ")}) t(win, since, until, length_ms);
    CREATE TEMP TABLE window_lengths AS SELECT win, length_ms FROM windows`);
  await duck.run(
    sqlFile("windowed_attempts", { since1d: clock - WINDOWS["1d"], since7d: clock - WINDOWS["7d"], since30d: clock - WINDOWS["30d"], until: clock }),
  );
  const since30 = clock - WINDOWS["30d"];
  await duck.run(sqlFile("payer_scores", { since: since30, until: clock, scriptedAdapters: SCRIPTED_ADAPTERS }));
  for (const name of ["rates", "issues", "issue_totals", "cu_instructions", "providers", "programs"]) await duck.run(sqlFile(name));
  await duck.run(sqlFile("cu_trend", { since: since30, until: clock }));

  let hasLifetimes = false;
  if (hasPrevious) {
    const found = await duck.all("SELECT 1 FROM duckdb_tables() WHERE database_name = 'prev' AND table_name = 'issue_lifetimes'");
    hasLifetimes = found.length > 0;
  }
  await duck.run(
    hasLifetimes
      ? "CREATE TEMP TABLE issue_lifetimes_prev AS SELECT program, scope, fingerprint, first_seen, last_seen FROM prev.issue_lifetimes"
      : "CREATE TEMP TABLE issue_lifetimes_prev (program VARCHAR, scope VARCHAR, fingerprint VARCHAR, first_seen BIGINT, last_seen BIGINT)",
  );
  await duck.run(sqlFile("issue_lifetimes"));

  const deploys = deployFiles(ctx.paths);
  await duck.run(deploys.length > 0 ? sqlFile("deploys", { deployFiles: deploys }) : EMPTY_DEPLOYS);
  await duck.run(sqlFile("release_periods", { until: clock }));
  for (const name of ["release_rates", "release_issues", "release_instructions"]) await duck.run(sqlFile(name));
}

async function writeMeta(duck: Session, info: { version: number; clock: number; units: LakeUnit[] }): Promise<void> {
  const meta: Record<string, string> = {
    version: String(info.version),
    clock: String(info.clock),
    schema: String(SERVING_SCHEMA),
    botScoreVersion: BOT_SCORE_VERSION,
  };
  await duck.run(
    `CREATE TABLE meta AS SELECT * FROM (VALUES ${Object.entries(meta).map(([k, v]) => `(${sqlString(k)}, ${sqlString(v)})`).join(", ")}) t(key, value)`,
  );
  await duck.run("CREATE TABLE build_units (program VARCHAR, day VARCHAR, signature VARCHAR)");
  if (info.units.length > 0) {
    await duck.run(
      `INSERT INTO build_units VALUES ${info.units.map((u) => `(${sqlString(u.program)}, ${sqlString(u.day)}, ${sqlString(u.signature)})`).join(", ")}`,
    );
  }
}
