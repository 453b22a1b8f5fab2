// The tables job's unit of incremental work: one (program, day) envelope partition. A unit's
// signature covers its envelope files and the resolution files of the same program for that day
// and the next RESOLUTION_LAG_DAYS days (where its attempts' outcomes land), by name, size and
// mtime. A unit whose signature is unchanged since the previous build is copied, not re-joined.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "../../lake/paths";

/** Attempts resolved more than this many days after their receipt day count as pending until a full build. */
export const RESOLUTION_LAG_DAYS = 3;

export type PartitionFiles = Map<string, Map<string, string[]>>; // program → day → files
export type LakeUnit = { program: string; day: string; envelopeFiles: string[]; resolutionFiles: string[]; signature: string };

/** Parquet files of a program/day-partitioned dataset, by program and day. */
export function listPartitions(root: string): PartitionFiles {
  const out: PartitionFiles = new Map();
  if (!existsSync(root)) return out;
  for (const programDir of readdirSync(root)) {
    if (!programDir.startsWith("program=")) continue;
    const byDay = new Map<string, string[]>();
    for (const dayDir of readdirSync(join(root, programDir))) {
      if (!dayDir.startsWith("day=")) continue;
      const dir = join(root, programDir, dayDir);
      const files = readdirSync(dir).filter((name) => name.endsWith(".parquet")).sort().map((name) => join(dir, name));
      if (files.length > 0) byDay.set(dayDir.slice(4), files);
    }
    out.set(programDir.slice(8), byDay);
  }
  return out;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function fileStamp(file: string): string {
  try {
    const stat = statSync(file);
    return `${file}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return `${file}:gone`;
  }
}

/** Every unit with a receipt day in [fromDay, toDay]. */
export function lakeUnits(paths: DataPaths, fromDay: string, toDay: string): LakeUnit[] {
  const envelopes = listPartitions(paths.dataset("envelopes"));
  const resolutions = listPartitions(paths.dataset("resolutions"));
  const units: LakeUnit[] = [];
  for (const [program, byDay] of [...envelopes].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [day, envelopeFiles] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
      if (day < fromDay || day > toDay) continue;
      const resolutionFiles: string[] = [];
      for (let k = 0; k <= RESOLUTION_LAG_DAYS; k++) resolutionFiles.push(...(resolutions.get(program)?.get(addDays(day, k)) ?? []));
      const hash = createHash("sha256");
      for (const file of [...envelopeFiles, "|", ...resolutionFiles]) hash.update(file === "|" ? "|" : fileStamp(file)).update("\n");
      units.push({ program, day, envelopeFiles, resolutionFiles, signature: hash.digest("hex").slice(0, 32) });
    }
  }
  return units;
}

/** Every deploy part file (data/lake/deploys/program=<p>/part-*.parquet). */
export function deployFiles(paths: DataPaths): string[] {
  const root = paths.dataset("deploys");
  if (!existsSync(root)) return [];
  const files: string[] = [];
  for (const programDir of readdirSync(root)) {
    if (!programDir.startsWith("program=")) continue;
    for (const name of readdirSync(join(root, programDir))) if (name.endsWith(".parquet")) files.push(join(root, programDir, name));
  }
  return files.sort();
}
