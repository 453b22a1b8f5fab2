// The Parquet parts of a program/day-partitioned dataset (envelopes, resolutions), by program and
// day, as listed on disk: what the tables job takes in and the Landing Score reads.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export type PartitionFiles = Map<string, Map<string, string[]>>; // program → day → files (sorted)

export function listPartitions(root: string): PartitionFiles {
  const out: PartitionFiles = new Map();
  if (!existsSync(root)) return out;
  for (const programDir of readdirSync(root).sort()) {
    if (!programDir.startsWith("program=")) continue;
    const byDay = new Map<string, string[]>();
    for (const dayDir of readdirSync(join(root, programDir)).sort()) {
      if (!dayDir.startsWith("day=")) continue;
      const dir = join(root, programDir, dayDir);
      const files = readdirSync(dir)
        .filter((name) => name.endsWith(".parquet"))
        .sort()
        .map((name) => join(dir, name));
      if (files.length > 0) byDay.set(dayDir.slice(4), files);
    }
    out.set(programDir.slice(8), byDay);
  }
  return out;
}

/** The Parquet parts of one partition directory, sorted; none when it does not exist. */
export function partitionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".parquet"))
    .sort()
    .map((name) => join(dir, name));
}

/** The UTC day `days` after `day` (YYYY-MM-DD). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
