// The Parquet parts of a dataset's day partitions (every program), listed from the directory tree:
// a read of a few days names only their files, and a day no program has yet is simply absent
// (DuckDB fails a glob that matches nothing).

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "./paths";
import type { DatasetName } from "./schema";

export function partsOfDays(paths: DataPaths, dataset: DatasetName, days: Iterable<string>): string[] {
  const root = paths.dataset(dataset);
  if (!existsSync(root)) return [];
  const wanted = new Set(days);
  const files: string[] = [];
  for (const program of readdirSync(root)) {
    if (!program.startsWith("program=")) continue;
    for (const day of wanted) {
      const dir = join(root, program, `day=${day}`);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) if (name.endsWith(".parquet")) files.push(join(dir, name));
    }
  }
  return files.sort();
}

/** The UTC days from `from` to `to` (Unix ms), both included. */
export function daysBetween(from: number, to: number): string[] {
  const days: string[] = [];
  for (let at = Math.floor(from / 86_400_000) * 86_400_000; at <= to; at += 86_400_000)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}
