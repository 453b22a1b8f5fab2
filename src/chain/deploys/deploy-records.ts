// The deploys dataset (data/lake/deploys/program=<p>/day=<UTC day of detected_at>/part-<slot>.parquet,
// columns DEPLOY_COLUMNS): the latest recorded slot per program, and appending a newly seen deploy.
// Part names are the slot, so recording the same deploy twice leaves one file (a copy under another
// day is removed); writes go to a temp name then rename.

import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Duck, sqlString } from "../../lake/duckdb";
import { type DataPaths, utcDay } from "../../lake/paths";
import { DEPLOY_COLUMNS, inputType, storedSql } from "../../lake/schema";

export type DeployRecord = {
  program: string;
  slot: number;
  deployedAt: number | null;
  detectedAt: number;
  authority: string | null;
};

const PART = /^part-(\d+)\.parquet$/;

/** The highest deploy slot recorded for the program, from the part names (no file reads). */
export function latestRecordedSlot(paths: DataPaths, program: string): number | null {
  let latest: number | null = null;
  for (const { name } of deployParts(paths, program)) {
    const match = PART.exec(name);
    if (match) latest = Math.max(latest ?? 0, Number(match[1]));
  }
  return latest;
}

/** The program's deploy parts in its day partitions. */
function deployParts(paths: DataPaths, program: string): { dir: string; name: string }[] {
  const root = paths.partition("deploys", program);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((day) => day.startsWith("day="))
    .flatMap((day) => readdirSync(join(root, day)).map((name) => ({ dir: join(root, day), name })));
}

export async function recordDeploy(paths: DataPaths, duck: Duck, deploy: DeployRecord): Promise<string> {
  const dir = paths.partition("deploys", deploy.program, utcDay(deploy.detectedAt));
  mkdirSync(dir, { recursive: true });
  const target = join(dir, `part-${deploy.slot}.parquet`);
  const temp = join(dir, `.part-${deploy.slot}.parquet.tmp-${process.pid}`);
  const value = (v: number | string | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : sqlString(v));
  const values: Record<string, string> = {
    slot: value(deploy.slot),
    deployed_at: value(deploy.deployedAt),
    detected_at: value(deploy.detectedAt),
    authority: value(deploy.authority),
  };
  const select = DEPLOY_COLUMNS.map(
    (c) => `${storedSql(c, `CAST(${values[c.name]} AS ${inputType(c)})`)} AS ${c.name}`,
  ).join(", ");
  try {
    await duck.run(`COPY (SELECT ${select}) TO ${sqlString(temp)} (FORMAT parquet, COMPRESSION zstd)`);
    renameSync(temp, target);
    for (const part of deployParts(paths, deploy.program))
      if (part.name === `part-${deploy.slot}.parquet` && part.dir !== dir) rmSync(join(part.dir, part.name));
  } finally {
    rmSync(temp, { force: true });
  }
  return target;
}
