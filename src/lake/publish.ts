// Writing rows into a lake dataset the same way everywhere: DuckDB writes Hive-partitioned, zstd
// Parquet into a staging directory, then the parts are renamed into place under the lake lease.
// Part names carry a batch name, so a redo after a crash overwrites instead of duplicating.

import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { ControlDb } from "../control";
import { withLease } from "../control";
import { type Duck, sqlString } from "./duckdb";
import type { DataPaths } from "./paths";
import type { DatasetName } from "./schema";

export type StagedPart = { path: string; partitionDir: string; name: string; day: string | null };

/**
 * The batch a part was published with (`part-<batch>-<i>.parquet`, as DuckDB's writer names them here); null for
 * another name.
 */
export function batchOfPart(name: string): string | null {
  return /^part-(.+)-(\d+)\.parquet$/.exec(name)?.[1] ?? null;
}

/**
 * Row groups for every Parquet part txray writes: 122,880 rows suit readers (DuckDB's guidance), but
 * DuckDB holds a row group per writing thread in memory, and resolution rows carry their program
 * logs (kilobytes each): 122,880 of them ran a compaction out of a 1 GB ceiling. The byte limit
 * closes a row group at 32 MB first (peak ~0.5 GB for the same merge, measured).
 */
export const rowGroupLimits = (rows: number) => `ROW_GROUP_SIZE ${rows}, ROW_GROUP_SIZE_BYTES '32MB'`;

/**
 * Runs `selectSql` (which must yield the dataset's columns plus its partition columns) into staging.
 * Row groups of 122,880 rows suit readers (DuckDB's guidance); a writer that compaction will rewrite
 * anyway may ask for smaller ones, which DuckDB writes faster across many partitions.
 */
export async function stagePartitioned(
  duck: Duck,
  paths: DataPaths,
  batch: string,
  selectSql: string,
  partitions: readonly string[],
  rowGroupSize = 122_880,
): Promise<{ staging: string; parts: StagedPart[] }> {
  const staging = join(paths.staging, batch);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(paths.staging, { recursive: true });
  await duck.run(
    `COPY (${selectSql}) TO ${sqlString(staging)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1,
       PARTITION_BY (${partitions.join(", ")}), FILENAME_PATTERN ${sqlString(`part-${batch}-{i}`)}, ${rowGroupLimits(rowGroupSize)})`,
  );
  return { staging, parts: existsSync(staging) ? listStaged(staging) : [] };
}

/**
 * Under the lake lease: replaces any parts a previous attempt of this batch left, renames the staged
 * parts into the dataset, then runs `commit` (the control-database step that makes them count).
 */
export async function publishStaged(
  control: ControlDb,
  paths: DataPaths,
  dataset: DatasetName,
  batch: string,
  parts: StagedPart[],
  commit: () => void,
  beforeCommit?: () => void,
): Promise<void> {
  const root = paths.dataset(dataset);
  await withLease(control, "lake", () => {
    for (const part of parts) {
      const target = join(root, part.partitionDir);
      mkdirSync(target, { recursive: true });
      for (const old of readdirSync(target)) if (old.startsWith(`part-${batch}-`)) unlinkSync(join(target, old));
    }
    for (const part of parts) renameSync(part.path, join(root, part.partitionDir, part.name));
    beforeCommit?.();
    commit();
  });
}

/** Deletes every part of a batch from a dataset (an interrupted batch that will be redone). */
export function removeBatchParts(paths: DataPaths, dataset: DatasetName, batch: string, partitionDirs: string[]): void {
  for (const dir of partitionDirs) {
    const target = join(paths.dataset(dataset), dir);
    if (!existsSync(target)) continue;
    for (const name of readdirSync(target)) if (name.startsWith(`part-${batch}-`)) unlinkSync(join(target, name));
  }
}

function listStaged(staging: string): StagedPart[] {
  const parts: StagedPart[] = [];
  const walk = (dir: string, relative: string[]) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), [...relative, entry.name]);
      else if (entry.name.endsWith(".parquet")) {
        const dayDir = relative.find((segment) => segment.startsWith("day="));
        parts.push({
          path: join(dir, entry.name),
          partitionDir: join(...relative),
          name: entry.name,
          day: dayDir ? dayDir.slice(4) : null,
        });
      }
    }
  };
  walk(staging, []);
  return parts;
}
