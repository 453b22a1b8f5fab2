// The steps of a refresh (docs/serving.md#a-refresh-step-by-step), each a function of the state and
// the part of the plan (plan.ts) it acts on. build.ts runs them in order, times them and decides
// their transactions; none of them decides between a rebuild and an incremental refresh.

import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
import { anyFileHasColumn } from "../../lake/column-presence";
import { sqlString } from "../../lake/duckdb";
import type { DataPaths } from "../../lake/paths";
import { fault } from "../../shared/fault";
import { checkStop } from "../../shared/stop";
import { NewerDataError } from "../../shared/version";
import { answersFile, readPointer, removeServingFilesExcept, servingFile, writePointer } from "../serving/pointer";
import { WINDOW_NAMES, WINDOWS } from "../windows";
import { type ApplyContext, applyArrivals, applyLoadedDay, applyPayerChanges, applyResolutions } from "./apply";
import { ensureLoaded, type Repair } from "./edges";
import {
  envelopeRowsSql,
  envelopeSegments,
  filesResolving,
  fullDayRowsSql,
  type LakePart,
  parquetRows,
  type ReadPlan,
  resolutionRowsSql,
  type TakenInLake,
  type TakenPart,
} from "./intake";
import { refreshIssueWindows } from "./issue-windows";
import { applyIssueDeparturesSql } from "./issues";
import { scorePayers } from "./payers";
import { dayNumber, type RangePlan, RETENTION_DAYS, type ReleasePeriod, type StateFacts } from "./plan";
import { writeAnswers } from "./precompute-answers";
import { type PublicTrust, UNWEIGHTED } from "./public-weights";
import { writeRangeParts } from "./ranges";
import { forgetRecentSql } from "./recent";
import { ROLLUPS, unitTable } from "./rollups";
import { deployTablesSql, writeServingTables } from "./serving-tables";
import { openState, type StateDb } from "./state";
import { upgradeState } from "./upgrade";
import { BOT_SCORE_VERSION, SERVING_SCHEMA, STATE_SCHEMA } from "./versions";
import { DAY_MS, type WindowBounds } from "./window-bounds";

/** Runs `work` in one transaction of the state. */
export async function transaction<T>(state: StateDb, work: () => Promise<T>): Promise<T> {
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

/** Upgrades the state as far as upgrade.ts knows how, then says what it is. */
export async function readStateFacts(state: StateDb): Promise<StateFacts> {
  const upgraded = await upgradeState(state, STATE_SCHEMA);
  const schema = await state.meta("schema");
  // A newer txray's state is left as it is (rebuilding it here would downgrade it under the newer binary).
  if (schema !== null && Number(schema) > STATE_SCHEMA)
    throw new NewerDataError("serving state schema", Number(schema), STATE_SCHEMA);
  const clock = await state.meta("clock");
  return {
    upgraded,
    schema: schema === null ? null : Number(schema),
    clock: clock === null ? null : Number(clock),
  };
}

/**
 * A new, empty state. Issues' first and last seen outlive the lake's retention: they are carried
 * over from the current version (the rebuild merges them with what the lake still holds).
 */
export async function startFresh(state: StateDb, ctx: Context): Promise<StateDb> {
  state.close();
  const fresh = await openState(ctx.paths.tables, ctx.duckOptions("tables"), { fresh: true });
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
export async function takenParts(state: StateDb, paths: DataPaths): Promise<TakenPart[]> {
  const rows = await state.all<Omit<TakenPart, "path">>(
    "SELECT dataset, program, day, name, bytes, rows, segments FROM lake_parts",
  );
  return rows.map((row) => ({
    ...row,
    bytes: Number(row.bytes),
    rows: Number(row.rows),
    segments: row.segments ?? [],
    path: join(paths.dataset(row.dataset), `program=${row.program}`, `day=${row.day}`, row.name),
  }));
}

/** Footer rows of the files not in `known` yet, added to it. */
export async function countRows(state: StateDb, files: string[], known = new Map<string, number>()) {
  const missing = files.filter((file) => !known.has(file));
  for (const [file, rows] of await parquetRows(state, missing)) known.set(file, rows);
  return known;
}

/** The windows' definitions at the clock, the deploys and the release periods they cut (temp tables). */
export async function writeDeploys(state: StateDb, deployFiles: string[], clock: number): Promise<void> {
  const rows = WINDOW_NAMES.map((w) => `('${w}', ${clock - WINDOWS[w]}, ${clock}, ${WINDOWS[w]})`).join(", ");
  await state.run(`CREATE OR REPLACE TEMP TABLE windows_def AS SELECT * FROM (VALUES ${rows}) t(win, since, until, length_ms);
    CREATE OR REPLACE TEMP TABLE window_lengths AS SELECT win, length_ms FROM windows_def`);
  await deployTablesSql(state, deployFiles, clock);
}

/** The programs with deploys and the release periods writeDeploys cut. */
export async function readDeploys(state: StateDb): Promise<{ programs: string[]; periods: ReleasePeriod[] }> {
  const programs = (await state.all<{ program: string }>("SELECT DISTINCT program FROM deploys")).map((r) => r.program);
  const periods = await state.all<ReleasePeriod>(
    "SELECT program, slot, win, period, starts, ends FROM release_periods ORDER BY program, slot, win, period",
  );
  return {
    programs,
    periods: periods.map((p) => ({ ...p, slot: Number(p.slot), starts: Number(p.starts), ends: Number(p.ends) })),
  };
}

/** The ranges and their parts (temp tables `ranges`, `range_parts`) the version's figures merge. */
export async function writeRanges(state: StateDb, plan: Pick<RangePlan, "parts" | "rows">): Promise<void> {
  await writeRangeParts(state, plan.parts);
  await state.run(
    "CREATE OR REPLACE TEMP TABLE ranges (range INTEGER, program VARCHAR, kind VARCHAR, win VARCHAR, day VARCHAR, slot BIGINT, period VARCHAR)",
  );
  await state.insertRows(
    "ranges",
    ["integer", "varchar", "varchar", "varchar", "varchar", "bigint", "varchar"],
    plan.rows,
  );
}

/**
 * The hour units and edge rows the ranges need, read back from what the state took in, in the
 * lake's current parts (`taken`: intake.ts takenInLake; a fresh state has nothing to read: the
 * intake fills them). Returns the days read and the partitions read for what the state holds of
 * them (their parts disagree with its record).
 */
export function loadUnits(
  state: StateDb,
  input: {
    needs: RangePlan["needs"];
    taken: TakenInLake[];
    today: number;
    previousClock: number | null;
    fresh: boolean;
  },
): Promise<{ days: number; repaired: Repair[] }> {
  const previousToday = input.previousClock === null ? null : Math.floor(input.previousClock / DAY_MS);
  return ensureLoaded(state, input.needs, input.taken, input.today, previousToday, input.fresh);
}

/**
 * The failures the windows' starts passed since the previous refresh leave the issues' payer counts; the clock moves
 * with them.
 */
export async function applyDepartures(state: StateDb, bounds: WindowBounds): Promise<void> {
  await state.run(applyIssueDeparturesSql(bounds));
  await state.setMeta({ clock: bounds.clock });
}

export type IntakeCounts = { attempts: number; resolutions: number; partsRead: number };

/**
 * What arrived, chunk by chunk, as deltas (apply.ts); each chunk's parts are recorded as taken with
 * its changes (`inChunk` wraps a chunk in its transaction, or not when the refresh is one). The
 * envelope files' spool segments are gathered in `segments` for the bookkeeping.
 */
export async function takeInArrivals(
  state: StateDb,
  intake: { reads: ReadPlan[]; parts: LakePart[]; rows: Map<string, number> },
  context: ApplyContext,
  run: { inChunk: <T>(work: () => Promise<T>) => Promise<T>; segments: Map<string, string[]>; signal?: AbortSignal },
): Promise<IntakeCounts> {
  const counts = { attempts: 0, resolutions: 0, partsRead: 0 };
  for (const read of intake.reads) {
    checkStop(run.signal);
    counts.partsRead += read.files.length;
    await run.inChunk(async () => {
      if (read.dataset === "envelopes") {
        await state.run(envelopeRowsSql("chunk_envelopes", read.files, read.skipSegments));
        for (const [file, list] of await chunkSegments(state)) run.segments.set(file, list);
        await state.run(
          "ALTER TABLE chunk_envelopes DROP COLUMN spool_segment; ALTER TABLE chunk_envelopes DROP COLUMN filename",
        );
        const arrived = await applyArrivals(state, "chunk_envelopes", context);
        counts.attempts += arrived.attempts;
        counts.resolutions += arrived.resolutions;
      } else {
        const weighted = await anyFileHasColumn(state, read.files, "sample_weight");
        await state.run(resolutionRowsSql("chunk_resolutions", read.files, weighted));
        counts.resolutions += await applyResolutions(state, "chunk_resolutions", context, { hold: true });
      }
      await recordTaken(state, intake.parts, read.files, intake.rows, run.segments, read.skipSegments !== null);
    });
  }
  await state.run("DROP TABLE IF EXISTS chunk_envelopes; DROP TABLE IF EXISTS chunk_resolutions");
  return counts;
}

async function chunkSegments(state: StateDb): Promise<[string, string[]][]> {
  const rows = await state.all<{ filename: string; segments: string[] }>(
    "SELECT filename, list(DISTINCT spool_segment) AS segments FROM chunk_envelopes GROUP BY filename",
  );
  return rows.map((row) => [row.filename, row.segments]);
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
 * A rebuild's intake: each receipt day joined with its resolutions, as many days per transaction
 * as fit in `chunkRows`, then the later resolutions. The envelope files' spool segments are
 * gathered in `segments` for the bookkeeping.
 */
export async function rebuildFromLake(
  state: StateDb,
  listed: LakePart[],
  chunkRows: number,
  context: ApplyContext,
  segments: Map<string, string[]>,
): Promise<IntakeCounts> {
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
  return { attempts, resolutions: resolved, partsRead: listed.length };
}

/**
 * The payers' changes gathered by the intake merged into their units; `changed`: the payers they
 * touched are noted for scoring (a rebuild scores every payer).
 */
export async function mergePayerChanges(state: StateDb, rescore: "changed" | "all"): Promise<void> {
  if (rescore === "changed")
    await state.run("CREATE OR REPLACE TEMP TABLE changed_payers AS SELECT DISTINCT payer FROM payer_changes");
  await applyPayerChanges(state);
}

/**
 * Retention of the state: units and rows older than the kept days, those of `removedDays` (whole
 * days retention removed from the lake), and minute units older than a day before the clock.
 */
export async function forgetExpired(
  state: StateDb,
  input: { today: number; removedDays: number[]; clock: number },
): Promise<void> {
  await state.run(forgetSql(input.today, input.removedDays));
  await state.run(forgetRecentSql(input.clock));
}

/** Units and rows older than the kept days, and of the given days (removed from the lake). */
export function forgetSql(today: number, days: number[] = []): string {
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
    `DELETE FROM account_program_times WHERE ${onTime("last_seen")}`,
    `DELETE FROM unresolved WHERE ${onTime("received_at")}`,
    `DELETE FROM late_resolutions WHERE ${onTime("received_at")}`,
    // Held resolutions whose envelope never came (it left with retention, or it was applied before: apply.ts).
    `DELETE FROM early_resolutions WHERE ${onTime("resolved_at")}`,
    `DELETE FROM issue_examples WHERE ${onTime("received_at")}`,
  ].join(";\n");
}

/** Bot scores of the payers noted by mergePayerChanges (or of all), and top-issues' figures per segment after them. */
export async function scoreChangedPayers(
  state: StateDb,
  bounds: WindowBounds,
  rescore: "changed" | "all",
  trust: PublicTrust,
): Promise<void> {
  await scorePayers(state, bounds, rescore === "all", trust);
  await refreshIssueWindows(state, "payer_segments_before", rescore === "all");
  await state.run("DROP TABLE payer_segments_before");
}

/**
 * The state's record of the lake after this run: every listed part, with rows and spool segments.
 * Only partitions whose record differs from the listing are written (parts read were recorded with
 * their chunk; this covers a full rebuild, replaced partitions that needed no read, and gone ones).
 */
export async function recordParts(
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

/** The version's serving database (`file`, attached as serving_new) with the figures merged at the clock. */
export async function writeServing(
  state: StateDb,
  file: string,
  version: { version: number; clock: number },
  trust: PublicTrust = UNWEIGHTED,
) {
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  await state.run(`ATTACH ${sqlString(file)} AS serving_new`);
  await writeServingTables(state, "serving_new", {
    clock: version.clock,
    version: version.version,
    schema: SERVING_SCHEMA,
    botScoreVersion: BOT_SCORE_VERSION,
    since7d: version.clock - WINDOWS["7d"],
    trust,
  });
}

/** The public answers of the serving database attached as serving_new, into `file`; returns how many. */
export async function writeVersionAnswers(state: StateDb, clock: number, file: string): Promise<number> {
  const [{ name: catalog }] = await state.all<{ name: string }>("SELECT current_database() AS name");
  await state.run("DROP TABLE IF EXISTS deploys; DROP TABLE IF EXISTS release_periods; USE serving_new");
  try {
    return await writeAnswers(state.connection, clock, file);
  } finally {
    await state.run(`USE ${catalog}`);
  }
}

/** The serving database written out whole and let go. */
export async function closeServing(state: StateDb): Promise<void> {
  await state.run("CHECKPOINT serving_new; DETACH serving_new");
}

/**
 * Switches readers to the version (the pointer, written and renamed), then removes what no reader
 * needs: versions before the previous one (a reader may not have switched yet), and the first
 * wallet store, of state schemas before 8 (`wallets/`; today's store is wallet-store.ts's file).
 */
export function publishVersion(paths: DataPaths, version: { version: number; clock: number; builtAt: number }): void {
  const previous = readPointer(paths);
  writePointer(paths, {
    version: version.version,
    file: `serving-${version.version}.duckdb`,
    builtAt: version.builtAt,
    clock: version.clock,
    schema: SERVING_SCHEMA,
  });
  fault("tables:after-pointer");
  removeServingFilesExcept(paths, previous ? [version.version, previous.version] : [version.version]);
  rmSync(join(paths.tables, "wallets"), { recursive: true, force: true });
}

/** A failed run's files of its version. */
export function removeVersionFiles(paths: DataPaths, version: number): void {
  const file = servingFile(paths, version);
  for (const path of [file, `${file}.wal`, answersFile(paths.tables, version)]) rmSync(path, { force: true });
}
