// Writes a snapshot's files under <snapshots>/landing-score/: <date>.json, <date>.parquet and, when
// the date is the newest one there, latest.json and index.html. Each file is written to a temporary
// name in the same directory and renamed into place, so a reader (or a git commit) never sees half a
// file. Nothing here reads the wall clock: the same snapshot always gives the same bytes.

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../lake/duckdb";
import { writeFileDurably } from "../../shared/durable-files";
import { renderPage } from "./html";
import type { ScoreRow, Snapshot } from "./snapshot";

export type PublishedFiles = { dir: string; files: string[]; latest: boolean };

const DATED_JSON = /^(\d{4}-\d{2}-\d{2})\.json$/;

export function snapshotJson(snapshot: Snapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

export async function publishSnapshot(
  dir: string,
  snapshot: Snapshot,
  connect: () => Promise<DuckDBConnection>,
): Promise<PublishedFiles> {
  mkdirSync(dir, { recursive: true });
  removeStaleTemporaries(dir);
  const json = snapshotJson(snapshot);
  const files = [`${snapshot.date}.json`, `${snapshot.date}.parquet`];
  writeAtomically(dir, files[0], json);
  await writeParquet(dir, files[1], snapshot, connect);
  const newest = readdirSync(dir)
    .map((name) => DATED_JSON.exec(name)?.[1])
    .filter((date): date is string => date !== undefined)
    .sort()
    .at(-1);
  const latest = newest === snapshot.date;
  if (latest) {
    writeAtomically(dir, "latest.json", json);
    writeAtomically(dir, "index.html", renderPage(snapshot));
    files.push("latest.json", "index.html");
  }
  return { dir, files, latest };
}

const TEMP_PREFIX = ".tmp-";

function temporaryName(dir: string, name: string): string {
  return join(dir, `${TEMP_PREFIX}${process.pid}-${name}`);
}

function writeAtomically(dir: string, name: string, text: string): void {
  writeFileDurably(join(dir, name), text, temporaryName(dir, name));
}

/** Temporaries left by a run that died midway (never a complete file under its real name). */
function removeStaleTemporaries(dir: string): void {
  for (const name of readdirSync(dir)) if (name.startsWith(TEMP_PREFIX)) rmSync(join(dir, name), { force: true });
}

const PARQUET_COLUMNS = `date VARCHAR, "rank" INTEGER, program VARCHAR, "name" VARCHAR, "sampleRate" DOUBLE, sends BIGINT, landed BIGINT,
  "failedOnchain" BIGINT, dropped BIGINT, "landingRate" DOUBLE, ci95 DOUBLE[], "dropRate" DOUBLE,
  providers STRUCT("rpcLabel" VARCHAR, sends BIGINT, "share" DOUBLE)[], accounts INTEGER, "topAccountShare" DOUBLE`;

/** The rows as DuckDB writes them: the JSON rows' fields and names, plus the snapshot's date. */
async function writeParquet(
  dir: string,
  name: string,
  snapshot: Snapshot,
  connect: () => Promise<DuckDBConnection>,
): Promise<void> {
  const temporary = temporaryName(dir, name);
  const connection = await connect();
  try {
    await connection.run(`CREATE OR REPLACE TEMP TABLE landing_score_rows (${PARQUET_COLUMNS})`);
    for (let k = 0; k < snapshot.programs.length; k += 500) {
      const values = snapshot.programs.slice(k, k + 500).map((row) => rowValues(snapshot.date, row));
      await connection.run(`INSERT INTO landing_score_rows VALUES ${values.join(", ")}`);
    }
    // zstd, one row group, rows by rank; DuckDB writes no time into the file (created_by names its version).
    await connection.run(
      `COPY (SELECT * FROM landing_score_rows ORDER BY "rank") TO ${sqlString(temporary)} (FORMAT parquet, COMPRESSION zstd)`,
    );
    await connection.run("DROP TABLE landing_score_rows");
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  } finally {
    connection.closeSync();
  }
  const fd = openSync(temporary, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, join(dir, name));
}

/** A double as an exact SQL value (JS prints the shortest text that reads back as the same double). */
const double = (x: number) => `${sqlString(String(x))}::DOUBLE`;

function rowValues(date: string, row: ScoreRow): string {
  const providers = row.providers.map(
    (p) => `{'rpcLabel': ${sqlString(p.rpcLabel)}, 'sends': ${p.sends}, 'share': ${double(p.share)}}`,
  );
  return `(${[
    sqlString(date),
    row.rank,
    sqlString(row.program),
    row.name === null ? "NULL" : sqlString(row.name),
    double(row.sampleRate),
    row.sends,
    row.landed,
    row.failedOnchain,
    row.dropped,
    double(row.landingRate),
    `[${row.ci95.map(double).join(", ")}]`,
    double(row.dropRate),
    `[${providers.join(", ")}]::STRUCT("rpcLabel" VARCHAR, sends BIGINT, "share" DOUBLE)[]`,
    row.accounts,
    double(row.topAccountShare),
  ].join(", ")})`;
}
