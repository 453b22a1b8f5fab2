// Brings a lake written by an older layout to LAKE_VERSION in place, before anything of this
// version reads or writes it. DuckDB cannot read INT64 and TIMESTAMP parts of one column in one
// read_parquet (it casts every file to one type and BIGINT → TIMESTAMP WITH TIME ZONE is no cast it
// has), so a lake is either all version 4 or all version 5: every part whose instant columns are bare
// INT64 is rewritten with them as TIMESTAMP (UTC), same name, same rows in the same order, same row
// group size. Deploy parts move from program=<p>/ into program=<p>/day=<UTC day of detected_at>/, so
// every dataset has the same partition levels. `lake/.version` records that the lake is done, so a
// process start reads one small file.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ControlDb, withLease } from "../control";
import type { Logger } from "../shared/logger";
import { type Duck, readLake, sqlString } from "./duckdb";
import { type DataPaths, utcDay } from "./paths";
import { rowGroupLimits } from "./publish";
import { DATASETS, type DatasetName, instantColumns, instantSql, LAKE_VERSION } from "./schema";

export type LakeUpgrade = { paths: DataPaths; duck: Duck; control: ControlDb; logger?: Logger };

/** The file that records the layout version the whole lake is in (absent: older than version 5). */
export const lakeVersionFile = (paths: DataPaths) => join(paths.lake, ".version");

/** The layout version the lake records; 4 when it records none (every lake before version 5). */
export function recordedLakeVersion(paths: DataPaths): number {
  const file = lakeVersionFile(paths);
  if (!existsSync(file)) return 4;
  const version = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(version) ? version : 4;
}

/** Upgrades the lake when it records an older version; the number of parts rewritten or moved. */
export async function upgradeLake({ paths, duck, control, logger }: LakeUpgrade): Promise<number> {
  if (recordedLakeVersion(paths) >= LAKE_VERSION) return 0;
  let changed = 0;
  for (const dataset of Object.keys(DATASETS) as DatasetName[]) {
    for (const part of await partsWithIntegerInstants(duck, paths, dataset)) {
      if (await rewriteWithInstants(duck, control, part)) changed++;
    }
  }
  changed += await partitionDeploysByDay(duck, control, paths);
  writeFileSync(lakeVersionFile(paths), `${LAKE_VERSION}\n`);
  if (changed > 0) logger?.info("lake upgraded", { version: LAKE_VERSION, partsRewrittenOrMoved: changed });
  return changed;
}

type OldPart = { file: string; columns: string[]; rowGroupRows: number };

/** The dataset's parts whose instant columns are INT64 without a logical type, with those columns. */
async function partsWithIntegerInstants(duck: Duck, paths: DataPaths, dataset: DatasetName): Promise<OldPart[]> {
  if (!existsSync(paths.dataset(dataset))) return [];
  const instants = instantColumns(dataset).map(sqlString).join(", ");
  const glob = sqlString(paths.datasetGlob(dataset));
  try {
    return await readLake<OldPart>(
      duck,
      `SELECT s.file_name AS file, list(s.name ORDER BY s.name) AS columns, any_value(m.rows) AS "rowGroupRows"
       FROM parquet_schema(${glob}) s
       JOIN (SELECT file_name, max(row_group_num_rows) AS rows FROM parquet_metadata(${glob}) GROUP BY file_name) m USING (file_name)
       WHERE s.name IN (${instants}) AND s.type = 'INT64' AND s.logical_type IS NULL
       GROUP BY s.file_name ORDER BY s.file_name`,
    );
  } catch (error) {
    if (/No files found/i.test(String(error))) return [];
    throw error;
  }
}

/**
 * Rewrites one part beside itself, then renames it over the original under the lake lease, unless
 * the original changed or went away meanwhile (compaction merged it: its rows are in a part that
 * has its own turn). Rows keep their order (readers address rows by file_row_number).
 */
async function rewriteWithInstants(duck: Duck, control: ControlDb, part: OldPart): Promise<boolean> {
  const before = statSync(part.file, { throwIfNoEntry: false });
  if (!before) return false;
  const temp = join(dirname(part.file), `.upgrade-${process.pid}-${Date.now()}.parquet.tmp`);
  const replaced = part.columns.map((name) => `${instantSql(name)} AS ${name}`).join(", ");
  try {
    try {
      await duck.run(
        `COPY (SELECT * EXCLUDE (file_row_number) REPLACE (${replaced})
           FROM read_parquet(${sqlString(part.file)}, hive_partitioning = false, file_row_number = true) ORDER BY file_row_number)
         TO ${sqlString(temp)} (FORMAT parquet, COMPRESSION zstd, ${rowGroupLimits(Math.max(2048, part.rowGroupRows))})`,
      );
    } catch (error) {
      // Another process starting at the same time rewrote it first, or compaction merged it away.
      if (!existsSync(part.file) || !(await hasIntegerInstants(duck, part))) return false;
      throw error;
    }
    return await withLease(control, "lake", () => {
      const now = statSync(part.file, { throwIfNoEntry: false });
      if (!now || now.size !== before.size || now.mtimeMs !== before.mtimeMs) return false;
      renameSync(temp, part.file);
      return true;
    });
  } finally {
    rmSync(temp, { force: true });
  }
}

async function hasIntegerInstants(duck: Duck, part: OldPart): Promise<boolean> {
  const [row] = await duck.all<{ n: number }>(
    `SELECT count(*) AS n FROM parquet_schema(${sqlString(part.file)})
     WHERE name IN (${part.columns.map(sqlString).join(", ")}) AND type = 'INT64' AND logical_type IS NULL`,
  );
  return row.n > 0;
}

/**
 * Moves each deploy part written directly under its program's directory (before version 5) into the
 * day partition of its detection time; a part of the same name already there is the same deploy
 * recorded again, and the older copy goes.
 */
async function partitionDeploysByDay(duck: Duck, control: ControlDb, paths: DataPaths): Promise<number> {
  const root = paths.dataset("deploys");
  if (!existsSync(root)) return 0;
  let moved = 0;
  for (const program of readdirSync(root).filter((name) => name.startsWith("program="))) {
    for (const name of readdirSync(join(root, program)).filter((file) => file.endsWith(".parquet"))) {
      const file = join(root, program, name);
      const [row] = await duck.all<{ at: number | null }>(
        `SELECT min(epoch_ms(detected_at)) AS at FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`,
      );
      const dir = join(root, program, `day=${utcDay(row?.at ?? statSync(file).mtimeMs)}`);
      await withLease(control, "lake", () => {
        if (!existsSync(file)) return;
        mkdirSync(dir, { recursive: true });
        if (existsSync(join(dir, name))) rmSync(file);
        else renameSync(file, join(dir, name));
      });
      moved++;
    }
  }
  return moved;
}
