// The deploys dataset (data/lake/deploys/program=<p>/part-<slot>.parquet, columns DEPLOY_COLUMNS):
// the latest recorded slot per program, and appending a newly seen deploy. Part names are the slot,
// so recording the same deploy twice rewrites the same file; writes go to a temp name then rename.

import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Duck, sqlString } from "../../lake/duckdb";
import type { DataPaths } from "../../lake/paths";
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
  const dir = paths.partition("deploys", program);
  if (!existsSync(dir)) return null;
  let latest: number | null = null;
  for (const name of readdirSync(dir)) {
    const match = PART.exec(name);
    if (match) latest = Math.max(latest ?? 0, Number(match[1]));
  }
  return latest;
}

export async function recordDeploy(paths: DataPaths, duck: Duck, deploy: DeployRecord): Promise<string> {
  const dir = paths.partition("deploys", deploy.program);
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
  } finally {
    rmSync(temp, { force: true });
  }
  return target;
}
