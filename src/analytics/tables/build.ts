// The tables job: refreshes the serving tables from what arrived in the lake since the last run
// (docs/serving.md). It takes the new parts (intake.ts) into its state (state.ts) as deltas of
// per-unit rollups (rollups.ts, apply.ts), then writes a new version: a small DuckDB file of every
// window's, deploy's and day's figures merged from units (ranges.ts, serving-tables.ts), the public
// answers (answers.ts), and switches the pointer (serving/pointer.ts). Wallet pages are read from
// the lake at query time (queries/wallet-history.ts). A run's cost follows what arrived and the number of units a figure merges,
// not the history. `full` (or a state that is missing, of another schema, or behind a retention
// removal) rebuilds the state from the whole lake, day by day, with the same code and answers.
//
// Crash safety: the state changes in transactions (one per step of a large intake, one for a small
// one); the version's files are written after the last commit, then the pointer. Killed before a commit, the next run redoes that step's intake;
// after the last, the next run writes the next version.

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
import { byteSize, sqlString } from "../../lake/duckdb";
import { anyFileHasColumn } from "../../lake/column-presence";
import { recordLakeTakenBefore, withLease } from "../../control";
import {
  answersFile,
  nextVersion,
  readPointer,
  removeServingFilesExcept,
  servingFile,
  writePointer,
} from "../serving/pointer";
import { WINDOWS, WINDOW_NAMES } from "../windows";
import { checkStop } from "../../shared/stop";
import { fault } from "../../shared/fault";
import { writeAnswers } from "./answers";
import { applyArrivals, applyLoadedDay, applyPayerChanges, applyResolutions, type ApplyContext } from "./apply";
import { ensureLoaded, type Needs } from "./edges";
import {
  deployFiles,
  envelopeRowsSql,
  envelopeSegments,
  filesResolving,
  fullDayRowsSql,
  limitIntake,
  listLakeParts,
  newestReceivedAt,
  parquetRows,
  planIntake,
  resolutionRowsSql,
  type LakePart,
  type TakenPart,
} from "./intake";
import { applyIssueDeparturesSql } from "./issues";
import { refreshIssueWindows } from "./issue-windows";
import { scorePayers } from "./payers";
import { dayOf, partNeeds, rangeParts, writeRangeParts, type Range } from "./ranges";
import { forgetRecentSql } from "./recent";
import { ROLLUPS, unitTable } from "./rollups";
import { deployTablesSql, writeServingTables, type RangeKind } from "./serving-tables";
import { openState, STATE_SCHEMA, stateIsUsable, type StateDb } from "./state";
import { upgradeState } from "./upgrade";
import { DAY_MS, HOUR_MS, windowBounds } from "./window-bounds";

/** Bump when the serving tables change shape (readers check it). */
export const SERVING_SCHEMA = 6;
/** Days of units kept: the 30-day window plus room for release diffs. */
export const RETENTION_DAYS = 45;
export { WINDOWS, type WindowName } from "../windows";
export const BOT_SCORE_VERSION = "bot-v2";
export { SCRIPTED_ADAPTERS } from "./payers";

export type BuildOptions = {
  /** Rebuild the state from the whole lake. */
  full?: boolean;
  /** Rows read per intake step (tests lower it); default from DUCKDB_MEMORY_LIMIT. */
  chunkRows?: number;
  /** Rows (envelopes and resolutions) one refresh takes in at most; the rest is its `backlog`. Default from DUCKDB_MEMORY_LIMIT. */
  maxRows?: number;
  /** Graceful shutdown: stop between steps (the transaction is rolled back; the pointer never moves). */
  signal?: AbortSignal;
};
export type BuildResult = {
  version: number;
  full: boolean;
  /** Envelopes and resolutions taken in by this run. */
  attempts: number;
  resolutions: number;
  partsRead: number;
  /** Days read back from the lake for hour units or edge rows. */
  daysLoaded: number;
  /** New rows left for the next refresh (more had arrived than one refresh takes in: `maxRows`); the scheduler runs it at once. */
  deferredRows: number;
  backlog: boolean;
  answers: number;
  clock: number;
  seconds: number;
  steps: Record<string, number>;
};

/** Runs one at a time per process (across processes the tables job's lease serialises them). */
let buildQueue: Promise<unknown> = Promise.resolve();

export function buildServingTables(ctx: Context, options: BuildOptions = {}): Promise<BuildResult> {
  const build = buildQueue.then(() => refreshOnce(ctx, options));
  buildQueue = build.catch(() => undefined);
  return build;
}

async function refreshOnce(ctx: Context, options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const steps: Record<string, number> = {};
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    checkStop(options.signal);
    fault("tables:mid-build");
    const at = performance.now();
    try {
      return await work();
    } catch (error) {
      // Name the step: "Out of Memory" alone does not tell an operator where to look.
      throw new Error(`tables step ${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      steps[name] = (steps[name] ?? 0) + Math.round(performance.now() - at);
    }
  };
  const tablesDir = ctx.paths.tables;
  mkdirSync(tablesDir, { recursive: true });
  // ~2 KB per attempt row in flight (joins, deltas), generously.
  const memoryRows = Math.max(100_000, Math.floor(byteSize(ctx.config.DUCKDB_MEMORY_LIMIT) / 2048));
  const chunkRows = options.chunkRows ?? memoryRows;
  // A refresh's end (payers) holds all it took in, in one transaction: 1.2M new
  // attempts on a 5M lake run the default 1 GB out of memory there, every retry (bench/README.md, "burst").
  const maxRows = options.maxRows ?? memoryRows;
  const planRows = Math.min(chunkRows, maxRows);

  let state = await openState(tablesDir, ctx.duckOptions("tables"));
  let full = options.full === true || !(await upgradeState(state, STATE_SCHEMA)) || !(await stateIsUsable(state));
  if (full) state = await reopenFresh(state, tablesDir, ctx);
  const version = nextVersion(ctx.paths);
  const result = { attempts: 0, resolutions: 0, partsRead: 0, daysLoaded: 0, deferredRows: 0, answers: 0 };
  let clock = 0;
  let listedAt = 0;
  try {
    // What arrived: listed under the lake lease, so no publish or compaction is half seen.
    const listed = await step("list", () =>
      withLease(
        ctx.control,
        "lake",
        () => {
          listedAt = Date.now();
          return listLakeParts(ctx.paths);
        },
        { waitMs: 120_000 },
      ),
    );
    let taken = full ? [] : await takenParts(state, ctx);
    let plan = await step("plan", () => planIntake(listed, taken, (files) => parquetRows(state, files), planRows));
    // Partitions that left the lake (retention): whole days before every window are forgotten like
    // the state's own old days; anything else (a day a window still covers, part of a day) starts over.
    let goneDays: number[] = [];
    if (!full && plan.gone.length > 0) {
      goneDays = forgettableDays(plan.gone, listed, Math.max(ctx.clock(), Number(await state.meta("clock"))));
      if (goneDays.length === 0) {
        full = true;
        state = await reopenFresh(state, tablesDir, ctx);
        taken = [];
        plan = await step("plan", () => planIntake(listed, taken, (files) => parquetRows(state, files), planRows));
      }
    }
    let deferredFrom: number | undefined;
    if (!full) ({ plan, deferredRows: result.deferredRows, deferredFrom } = limitIntake(plan, maxRows));
    // A refresh that takes in little runs in one transaction: what its steps gather for its end
    // (payer changes, intermediate versions) then never reaches the write-ahead log.
    const oneTransaction = !full && plan.reads.reduce((sum, read) => sum + read.rows, 0) <= chunkRows / 4;
    if (oneTransaction) await state.run("BEGIN TRANSACTION");
    const inStep = <T>(work: () => Promise<T>) => (oneTransaction ? work() : transaction(state, work));
    const previousClock = full ? null : Number(await state.meta("clock"));
    const envelopeFiles = full
      ? listed.filter((p) => p.dataset === "envelopes").map((p) => p.path)
      : plan.reads.filter((r) => r.dataset === "envelopes").flatMap((r) => r.files);
    const newest = await step("clock", () => newestReceivedAt(state, envelopeFiles));
    // Windows end at the clock; no attempt taken in is after it, and it never moves back.
    clock = Math.max(ctx.clock(), newest ?? 0, previousClock ?? 0);
    const bounds = windowBounds(clock, previousClock);
    const today = dayOf(clock);

    // The ranges every figure merges (they decide which hours and days must be at hand).
    const deploys = deployFiles(ctx.paths);
    await step("deploys", async () => {
      await state.run(windowTablesSql(clock));
      await deployTablesSql(state, deploys, clock);
    });
    const programs = [
      ...new Set([
        ...listed
          .filter(
            (p) => p.dataset === "envelopes" && Date.parse(`${p.day}T00:00:00Z`) >= (today - RETENTION_DAYS) * DAY_MS,
          )
          .map((p) => p.program),
        ...(await state.all<{ program: string }>("SELECT DISTINCT program FROM deploys")).map((r) => r.program),
      ]),
    ].sort();
    const ranges = await rangesOf(state, programs, bounds.since, clock);
    const parts = ranges.list.flatMap((range) => rangeParts(range, today));
    const needs = needsOf(parts, bounds, today);

    await step("ranges", async () => {
      await writeRangeParts(state, parts);
      await state.run(
        "CREATE OR REPLACE TEMP TABLE ranges (range INTEGER, program VARCHAR, kind VARCHAR, win VARCHAR, day VARCHAR, slot BIGINT, period VARCHAR)",
      );
      await state.insertRows(
        "ranges",
        ["integer", "varchar", "varchar", "varchar", "varchar", "bigint", "varchar"],
        ranges.described,
      );
    });
    // One transaction per step of work: a transaction holds its changes in memory until it commits
    // (one over a whole rebuild ran out of DUCKDB_MEMORY_LIMIT). Each leaves a state the next run
    // can continue from: the clock moves with the departures it caused, a chunk's parts are
    // recorded as taken with its changes, and what a refresh gathers for its end (payer changes)
    // is kept in tables until that end commits.
    result.daysLoaded = await step("load", () =>
      inStep(async () => {
        const loaded = await ensureLoaded(
          state,
          needs,
          taken,
          today,
          previousClock === null ? null : dayOf(previousClock),
          full,
        );
        if (!full) {
          await state.run(applyIssueDeparturesSql(bounds));
          await state.setMeta({ clock });
        }
        return loaded;
      }),
    );

    const context: ApplyContext = { bounds, full };
    const segments = new Map<string, string[]>();
    if (full) {
      await step("intake", async () => {
        const counts = await fullIntake(state, listed, chunkRows, context, segments);
        result.attempts = counts.attempts;
        result.resolutions = counts.resolutions;
        result.partsRead = listed.length;
      });
    } else {
      await step("intake", async () => {
        for (const read of plan.reads) {
          checkStop(options.signal);
          result.partsRead += read.files.length;
          await inStep(async () => {
            if (read.dataset === "envelopes") {
              await state.run(envelopeRowsSql("chunk_envelopes", read.files, read.skipSegments));
              for (const [file, list] of await chunkSegments(state)) segments.set(file, list);
              await state.run(
                "ALTER TABLE chunk_envelopes DROP COLUMN spool_segment; ALTER TABLE chunk_envelopes DROP COLUMN filename",
              );
              const arrived = await applyArrivals(state, "chunk_envelopes", context);
              result.attempts += arrived.attempts;
              result.resolutions += arrived.resolutions;
            } else {
              const weighted = await anyFileHasColumn(state, read.files, "sample_weight");
              await state.run(resolutionRowsSql("chunk_resolutions", read.files, weighted));
              result.resolutions += await applyResolutions(state, "chunk_resolutions", context, { hold: true });
            }
            await recordTaken(state, plan.parts, read.files, plan.rows, segments, read.skipSegments !== null);
          });
        }
        await state.run("DROP TABLE IF EXISTS chunk_envelopes; DROP TABLE IF EXISTS chunk_resolutions");
      });
    }
    if (!oneTransaction) await state.run("BEGIN TRANSACTION");
    await step("payers", async () => {
      // The payers whose attempts changed are scored again (a rebuild scores every payer).
      if (!full)
        await state.run("CREATE OR REPLACE TEMP TABLE changed_payers AS SELECT DISTINCT payer FROM payer_changes");
      await applyPayerChanges(state);
      await state.run(forgetSql(today, goneDays));
      await state.run(forgetRecentSql(clock));
      await scorePayers(state, bounds, full);
      await refreshIssueWindows(state, "payer_segments_before", full);
      await state.run("DROP TABLE payer_segments_before");
    });

    await step("bookkeeping", () => recordParts(state, plan.parts, plan.rows, segments));
    await state.setMeta({ schema: STATE_SCHEMA, clock, version });
    await step("commit", () => state.run("COMMIT"));
    // Everything published before the listing is taken in, or (some left for the next refresh)
    // before the first part left: compaction may merge it. A refresh that is behind under steady
    // load leaves parts at every run; a mark kept back then let no part be merged (nor wallet pages
    // skip any) until the mark was an hour old.
    recordLakeTakenBefore(ctx.control, Math.min(listedAt, deferredFrom ?? Number.POSITIVE_INFINITY));

    // The version: the serving database and its answers.
    const file = servingFile(ctx.paths, version);
    rmSync(file, { force: true });
    rmSync(`${file}.wal`, { force: true });
    const catalog = (await state.all<{ name: string }>("SELECT current_database() AS name"))[0].name;
    await step("serving", async () => {
      await state.run(`ATTACH ${sqlString(file)} AS serving_new`);
      await writeServingTables(state, "serving_new", {
        clock,
        version,
        schema: SERVING_SCHEMA,
        botScoreVersion: BOT_SCORE_VERSION,
        since7d: clock - WINDOWS["7d"],
      });
    });
    result.answers = await step("answers", async () => {
      await state.run("DROP TABLE IF EXISTS deploys; DROP TABLE IF EXISTS release_periods; USE serving_new");
      try {
        return await writeAnswers(state.connection, clock, answersFile(tablesDir, version));
      } finally {
        await state.run(`USE ${catalog}`);
      }
    });
    await step("checkpoint", () => state.run("CHECKPOINT serving_new; DETACH serving_new"));
  } catch (error) {
    await state.run("ROLLBACK").catch(() => undefined); // the open transaction, if any
    state.close();
    removeVersionFiles(ctx, version);
    throw error;
  }
  state.close();
  rmSync(`${servingFile(ctx.paths, version)}.wal`, { force: true });
  fault("tables:after-build");
  const previous = readPointer(ctx.paths);
  writePointer(ctx.paths, {
    version,
    file: `serving-${version}.duckdb`,
    builtAt: Date.now(),
    clock,
    schema: SERVING_SCHEMA,
  });
  fault("tables:after-pointer");
  // Keep the previous version for readers that have not switched yet; anything older goes.
  const kept = previous ? [version, previous.version] : [version];
  removeServingFilesExcept(ctx.paths, kept);
  // The wallet store of versions before 8 (wallet pages are read from the lake now).
  rmSync(join(tablesDir, "wallets"), { recursive: true, force: true });
  return {
    version,
    full,
    attempts: result.attempts,
    resolutions: result.resolutions,
    partsRead: result.partsRead,
    daysLoaded: result.daysLoaded,
    deferredRows: result.deferredRows,
    backlog: result.deferredRows > 0,
    answers: result.answers,
    clock,
    seconds: (performance.now() - started) / 1000,
    steps,
  };
}

/** Runs `work` in one transaction of the state. */
async function transaction<T>(state: StateDb, work: () => Promise<T>): Promise<T> {
  await state.run("BEGIN TRANSACTION");
  try {
    const value = await work();
    await state.run("COMMIT");
    return value;
  } catch (error) {
    await state.run("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Records the parts a chunk read as taken (a replaced partition: its replaced parts go). */
async function recordTaken(
  state: StateDb,
  listed: LakePart[],
  files: string[],
  rows: Map<string, number>,
  segments: Map<string, string[]>,
  replaced: boolean,
): Promise<void> {
  const parts = listed.filter((p) => files.includes(p.path));
  for (const part of parts) {
    const partition = `dataset = ${sqlString(part.dataset)} AND program = ${sqlString(part.program)} AND day = ${sqlString(part.day)}`;
    if (replaced) {
      const current = listed
        .filter((p) => p.dataset === part.dataset && p.program === part.program && p.day === part.day)
        .map((p) => sqlString(p.name));
      // The segments of the parts it replaced stay with the partition (the replacement holds their rows).
      const [kept] = await state.all<{ segments: string[] | null }>(
        `SELECT flatten(list(segments)) AS segments FROM lake_parts WHERE ${partition}`,
      );
      segments.set(part.path, [...new Set([...(kept?.segments ?? []), ...(segments.get(part.path) ?? [])])]);
      await state.run(`DELETE FROM lake_parts WHERE ${partition} AND name NOT IN (${current.join(", ")})`);
    }
    await state.run(`DELETE FROM lake_parts WHERE ${partition} AND name = ${sqlString(part.name)};
      INSERT INTO lake_parts VALUES (${sqlString(part.dataset)}, ${sqlString(part.program)}, ${sqlString(part.day)}, ${sqlString(part.name)}, ${part.bytes},
        ${rows.get(part.path) ?? 0}, [${(part.dataset === "envelopes" ? (segments.get(part.path) ?? []) : []).map(sqlString).join(", ")}]::VARCHAR[])`);
  }
}

/**
 * A new, empty state. Issues' first and last seen outlive the lake's retention: they are carried
 * over from the current version (the rebuild merges them with what the lake still holds).
 */
async function reopenFresh(state: StateDb, tablesDir: string, ctx: Context): Promise<StateDb> {
  state.close();
  const fresh = await openState(tablesDir, ctx.duckOptions("tables"), { fresh: true });
  const current = readPointer(ctx.paths);
  const file = current ? servingFile(ctx.paths, current.version) : null;
  if (file && existsSync(file)) {
    try {
      await fresh.run(`ATTACH ${sqlString(file)} AS previous_version (READ_ONLY)`);
      const [found] = await fresh.all<{ n: number }>(
        "SELECT count(*) AS n FROM duckdb_columns() WHERE database_name = 'previous_version' AND table_name = 'issue_lifetimes' AND column_name IN ('program', 'scope', 'fingerprint', 'first_seen', 'last_seen')",
      );
      if (Number(found?.n) === 5) {
        await fresh.run(
          "INSERT INTO issue_lifetimes SELECT program, scope, fingerprint, first_seen, last_seen FROM previous_version.issue_lifetimes WHERE scope <> '*'",
        );
      }
    } catch (error) {
      ctx.logger.warn("tables: issues' first seen not carried over from the current version", {
        error: (error as Error).message,
      });
    } finally {
      await fresh.run("DETACH DATABASE IF EXISTS previous_version").catch(() => undefined);
    }
  }
  return fresh;
}

/** The parts the state took in (with their paths). */
async function takenParts(state: StateDb, ctx: Context): Promise<TakenPart[]> {
  const rows = await state.all<Omit<TakenPart, "path">>(
    "SELECT dataset, program, day, name, bytes, rows, segments FROM lake_parts",
  );
  return rows.map((row) => ({
    ...row,
    bytes: Number(row.bytes),
    rows: Number(row.rows),
    segments: row.segments ?? [],
    path: join(ctx.paths.dataset(row.dataset), `program=${row.program}`, `day=${row.day}`, row.name),
  }));
}

async function chunkSegments(state: StateDb): Promise<[string, string[]][]> {
  const rows = await state.all<{ filename: string; segments: string[] }>(
    "SELECT filename, list(DISTINCT spool_segment) AS segments FROM chunk_envelopes GROUP BY filename",
  );
  return rows.map((row) => [row.filename, row.segments]);
}

/**
 * The state's record of the lake after this run: every listed part, with rows and spool segments.
 * Only partitions whose record differs from the listing are written (parts read were recorded with
 * their chunk; this covers a full rebuild, replaced partitions that needed no read, and gone ones).
 */
async function recordParts(
  state: StateDb,
  listed: LakePart[],
  rows: Map<string, number>,
  segments: Map<string, string[]>,
): Promise<void> {
  const taken = await state.all<{
    dataset: string;
    program: string;
    day: string;
    name: string;
    bytes: number;
    rows: number;
    segments: string[] | null;
  }>("SELECT dataset, program, day, name, bytes, rows, segments FROM lake_parts");
  const key = (p: { dataset: string; program: string; day: string }) => `${p.dataset}/${p.program}/${p.day}`;
  const before = new Map<string, Map<string, (typeof taken)[number]>>();
  for (const part of taken) before.set(key(part), (before.get(key(part)) ?? new Map()).set(part.name, part));
  const now = new Map<string, LakePart[]>();
  for (const part of listed) now.set(key(part), [...(now.get(key(part)) ?? []), part]);
  // Partitions to rewrite, then one delete and a few inserts (thousands of small statements in one
  // transaction ran a 150 MB ceiling out of memory).
  const rewrite: string[] = [];
  const values: string[] = [];
  for (const [partition, parts] of now) {
    const old = before.get(partition) ?? new Map();
    before.delete(partition);
    if (parts.length === old.size && parts.every((p) => Number(old.get(p.name)?.bytes) === p.bytes)) continue;
    rewrite.push(partition);
    // A replaced partition's new parts that were not read hold the segments of the parts they replaced.
    const oldSegments = [...new Set([...old.values()].flatMap((p) => p.segments ?? []))];
    for (const part of parts) {
      const same = old.get(part.name);
      const partRows = same && Number(same.bytes) === part.bytes ? Number(same.rows) : (rows.get(part.path) ?? 0);
      const partSegments =
        part.dataset !== "envelopes"
          ? []
          : same && Number(same.bytes) === part.bytes
            ? (same.segments ?? [])
            : (segments.get(part.path) ?? oldSegments);
      values.push(
        `(${sqlString(part.dataset)}, ${sqlString(part.program)}, ${sqlString(part.day)}, ${sqlString(part.name)}, ${part.bytes}, ${partRows}, [${partSegments.map(sqlString).join(", ")}]::VARCHAR[])`,
      );
    }
  }
  rewrite.push(...before.keys()); // gone
  if (rewrite.length === 0) return;
  await state.run("CREATE OR REPLACE TEMP TABLE rewritten (partition VARCHAR)");
  for (let at = 0; at < rewrite.length; at += 2000)
    await state.run(
      `INSERT INTO rewritten VALUES ${rewrite
        .slice(at, at + 2000)
        .map((p) => `(${sqlString(p)})`)
        .join(", ")}`,
    );
  await state.run(
    "DELETE FROM lake_parts WHERE dataset || '/' || program || '/' || day IN (SELECT partition FROM rewritten); DROP TABLE rewritten",
  );
  for (let at = 0; at < values.length; at += 2000)
    await state.run(`INSERT INTO lake_parts VALUES ${values.slice(at, at + 2000).join(", ")}`);
}

/** A full rebuild's intake: each receipt day joined with its resolutions, then the later resolutions. */
async function fullIntake(
  state: StateDb,
  listed: LakePart[],
  chunkRows: number,
  context: ApplyContext,
  segments: Map<string, string[]>,
): Promise<{ attempts: number; resolutions: number }> {
  const envelopes = listed.filter((p) => p.dataset === "envelopes");
  const resolutions = listed.filter((p) => p.dataset === "resolutions");
  for (const [file, list] of await envelopeSegments(
    state,
    envelopes.map((p) => p.path),
  ))
    segments.set(file, list);
  // Days in order, as many per step as fit in chunkRows (a day's attempts resolve within it and the next few days).
  const rowsOf = await parquetRows(
    state,
    envelopes.map((p) => p.path),
  );
  const days = [...new Set(envelopes.map((p) => p.day))].sort();
  const chunks: string[][] = [];
  let rowsInChunk = 0;
  for (const day of days) {
    const n = envelopes.filter((p) => p.day === day).reduce((sum, p) => sum + (rowsOf.get(p.path) ?? 0), 0);
    if (chunks.length === 0 || rowsInChunk + n > chunkRows) {
      chunks.push([]);
      rowsInChunk = 0;
    }
    chunks[chunks.length - 1].push(day);
    rowsInChunk += n;
  }
  let attempts = 0;
  for (const chunk of chunks) {
    const first = dayNumber(chunk[0]);
    const last = dayNumber(chunk[chunk.length - 1]);
    const resolutionDays = new Set(
      Array.from({ length: last - first + 4 }, (_, k) => new Date((first + k) * DAY_MS).toISOString().slice(0, 10)),
    );
    const resolutionFiles = resolutions.filter((p) => resolutionDays.has(p.day)).map((p) => p.path);
    const weighted = resolutionFiles.length > 0 && (await anyFileHasColumn(state, resolutionFiles, "sample_weight"));
    await transaction(state, async () => {
      await state.run(
        fullDayRowsSql(
          envelopes.filter((p) => chunk.includes(p.day)).map((p) => p.path),
          resolutionFiles,
          weighted,
        ),
      );
      attempts += await applyLoadedDay(state, "day_rows", context);
      await applyPayerChanges(state); // whole days: a chunk's arrivals never interleave with another's
      await state.run("DROP TABLE day_rows");
    });
  }
  // Resolutions stored more than three days after their attempt's day (only the files holding one are read whole).
  let resolved = 0;
  const late = await filesResolving(
    state,
    resolutions.map((p) => p.path),
    "unresolved",
  );
  for (let at = 0; at < late.length; at += 200) {
    const files = late.slice(at, at + 200);
    await transaction(state, async () => {
      await state.run(
        resolutionRowsSql("chunk_resolutions", files, await anyFileHasColumn(state, files, "sample_weight")),
      );
      await state.run("DELETE FROM chunk_resolutions WHERE attempt_key NOT IN (SELECT attempt_key FROM unresolved)");
      resolved += await applyResolutions(state, "chunk_resolutions", context);
    });
  }
  await state.run("DROP TABLE IF EXISTS chunk_resolutions");
  return { attempts, resolutions: resolved };
}

/**
 * Days removed from the lake that can be forgotten as the state forgets its own old days: whole days
 * (no part of the day left in the lake) before the 30-day window's first day and the day before it
 * (no window, edge or bot score reads them). Empty when any gone partition is not such a day.
 */
function forgettableDays(gone: { day: string }[], listed: LakePart[], clockAtLeast: number): number[] {
  const firstNeeded = dayOf(clockAtLeast - WINDOWS["30d"]) - 1;
  const listedDays = new Set(listed.map((p) => p.day));
  const days = [...new Set(gone.map((g) => g.day))];
  if (days.some((day) => listedDays.has(day) || dayNumber(day) >= firstNeeded)) return [];
  return days.map(dayNumber);
}

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;

/** Units and rows older than the kept days, and of the given days (removed from the lake). */
function forgetSql(today: number, days: number[] = []): string {
  const cutoff = today - RETENTION_DAYS;
  // A condition on a day number column and one on a time column.
  const onDay = (column: string) => [`${column} < ${cutoff}`, ...days.map((d) => `${column} = ${d}`)].join(" OR ");
  const onTime = (column: string) =>
    [
      `${column} < ${cutoff * DAY_MS}`,
      ...days.map((d) => `(${column} >= ${d * DAY_MS} AND ${column} < ${(d + 1) * DAY_MS})`),
    ].join(" OR ");
  return [
    ...ROLLUPS.flatMap((r) => [
      `DELETE FROM ${unitTable(r, "d")} WHERE ${onDay("day")}`,
      `DELETE FROM ${unitTable(r, "h")} WHERE ${onDay("hour // 24")}`,
    ]),
    `DELETE FROM payer_d WHERE ${onDay("day")}`,
    `DELETE FROM payer_gaps_d WHERE ${onDay("day")}`,
    `DELETE FROM payer_programs WHERE ${onTime("last_seen")}`,
    `DELETE FROM unresolved WHERE ${onTime("received_at")}`,
    `DELETE FROM late_resolutions WHERE ${onTime("received_at")}`,
    // Held resolutions whose envelope never came (it left with retention, or it was applied before: apply.ts).
    `DELETE FROM early_resolutions WHERE ${onTime("resolved_at")}`,
    `DELETE FROM issue_examples WHERE ${onTime("received_at")}`,
  ].join(";\n");
}

/** windows_def (win, since, until, length_ms) and window_lengths, for the serving tables and release periods. */
function windowTablesSql(clock: number): string {
  const rows = WINDOW_NAMES.map((w) => `('${w}', ${clock - WINDOWS[w]}, ${clock}, ${WINDOWS[w]})`).join(", ");
  return `CREATE OR REPLACE TEMP TABLE windows_def AS SELECT * FROM (VALUES ${rows}) t(win, since, until, length_ms);
    CREATE OR REPLACE TEMP TABLE window_lengths AS SELECT win, length_ms FROM windows_def`;
}

/** Every range a version's figures merge (windows, trend days, all kept days, deploy periods), and each one's row of `ranges`. */
async function rangesOf(
  state: StateDb,
  programs: string[],
  since: Record<string, number>,
  clock: number,
): Promise<{ list: Range[]; described: (string | number | null)[][] }> {
  const list: Range[] = [];
  const described: (string | number | null)[][] = [];
  const add = (
    program: string,
    from: number,
    to: number | null,
    kind: RangeKind,
    extra: { win?: string; day?: string; slot?: number; period?: string },
  ) => {
    const id = list.length;
    list.push({ id, program, from, to });
    described.push([id, program, kind, extra.win ?? null, extra.day ?? null, extra.slot ?? null, extra.period ?? null]);
  };
  const today = dayOf(clock);
  const trendFrom = since["30d"];
  for (const program of programs) {
    for (const win of WINDOW_NAMES) add(program, since[win], null, "window", { win });
    for (let day = dayOf(trendFrom); day <= today; day++) {
      const from = Math.max(day * DAY_MS, trendFrom);
      add(program, from, day === today ? null : (day + 1) * DAY_MS, "trend", {
        day: new Date(day * DAY_MS).toISOString().slice(0, 10),
      });
    }
    add(program, (today - RETENTION_DAYS) * DAY_MS, null, "all", {});
  }
  const periods = await state.all<{
    program: string;
    slot: number;
    win: string;
    period: string;
    starts: number;
    ends: number;
  }>("SELECT program, slot, win, period, starts, ends FROM release_periods ORDER BY program, slot, win, period");
  for (const p of periods)
    add(p.program, Number(p.starts), Number(p.ends) > clock ? null : Number(p.ends), "release", {
      win: p.win,
      slot: Number(p.slot),
      period: p.period,
    });
  return { list, described };
}

/** What must be at hand: the ranges' hours and edges, today's and yesterday's hours, the departures' edges, the bot score's days. */
function needsOf(parts: ReturnType<typeof rangeParts>, bounds: ReturnType<typeof windowBounds>, today: number): Needs {
  const { hourDays, edgeHours } = partNeeds(parts);
  // Ranges name programs; what every program needs is kept once, for all ('*').
  const all = (set: Set<string>, unit: number) => set.add(`*\t${unit}`);
  all(hourDays, today);
  all(hourDays, today - 1);
  for (const w of WINDOW_NAMES) {
    all(hourDays, dayOf(bounds.since[w]));
    all(hourDays, dayOf(bounds.since[w]) + 1); // the next start day, at hand before the window reaches it
    all(edgeHours, Math.floor(bounds.since[w] / HOUR_MS));
    for (
      let hour = Math.floor(bounds.previousSince[w] / HOUR_MS);
      hour <= Math.floor(bounds.since[w] / HOUR_MS);
      hour++
    )
      all(edgeHours, hour);
  }
  // Program-specific needs covered by '*' need nothing more.
  for (const set of [hourDays, edgeHours])
    for (const key of [...set]) if (!key.startsWith("*\t") && set.has(`*\t${key.split("\t")[1]}`)) set.delete(key);
  const startDay = dayOf(bounds.since["30d"]);
  return { hourDays, edgeHours, payerDays: new Set([today, today - 1, startDay, startDay + 1]) };
}

/** A failed run's files of its version. */
function removeVersionFiles(ctx: Context, version: number): void {
  const file = servingFile(ctx.paths, version);
  for (const path of [file, `${file}.wal`, answersFile(ctx.paths.tables, version)]) rmSync(path, { force: true });
}
