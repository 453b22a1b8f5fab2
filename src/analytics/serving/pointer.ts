// Which serving database is current. The tables job builds `data/tables/serving-<n>.duckdb` and
// then replaces `current.json` by write-to-temp + rename (atomic on POSIX), so a reader in any
// process sees either the old or the new version, never a half-built one. Files older than the
// previous version are removed; a reader that still holds one open keeps reading it (Linux keeps
// an unlinked file alive while it is open) and switches on its next pointer check. A version has
// side files next to its database (precomputed answers `serving-<n>.answers`); they live and go
// with it. (`serving-<n>.wallets.json` is a side file of versions before state schema 8, when wallet
// pages had their own store: removed with its version.)

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "../../lake/paths";

export type ServingPointer = { version: number; file: string; builtAt: number; clock: number; schema: number };

const SERVING_FILE = /^serving-(\d+)\.(?:duckdb(?:\.wal)?|wallets(?:\.idx|\.json)?|answers)$/;

export const pointerPath = (paths: DataPaths) => join(paths.tables, "current.json");
export const servingFile = (paths: DataPaths, version: number) => join(paths.tables, `serving-${version}.duckdb`);

/** The precomputed answers side file of a version (tables/precompute-answers.ts writes it, serving/precomputed-answers.ts reads it). */
export const answersFile = (tablesDir: string, version: number) => join(tablesDir, `serving-${version}.answers`);

export function readPointer(paths: DataPaths): ServingPointer | null {
  try {
    const pointer = JSON.parse(readFileSync(pointerPath(paths), "utf8")) as ServingPointer;
    return typeof pointer.version === "number" && typeof pointer.file === "string" ? pointer : null;
  } catch {
    return null;
  }
}

export function writePointer(paths: DataPaths, pointer: ServingPointer): void {
  mkdirSync(paths.tables, { recursive: true });
  const temp = `${pointerPath(paths)}.tmp-${process.pid}`;
  writeFileSync(temp, JSON.stringify(pointer));
  renameSync(temp, pointerPath(paths));
}

/** A version number no existing file or pointer uses. */
export function nextVersion(paths: DataPaths): number {
  let highest = readPointer(paths)?.version ?? 0;
  if (existsSync(paths.tables)) {
    for (const name of readdirSync(paths.tables)) {
      const match = SERVING_FILE.exec(name);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
  }
  return highest + 1;
}

/** Removes serving files (and their side files) other than the listed versions (and half-built ones of dead builds). */
export function removeServingFilesExcept(paths: DataPaths, keep: number[]): string[] {
  if (!existsSync(paths.tables)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(paths.tables)) {
    const match = SERVING_FILE.exec(name);
    if (!match || keep.includes(Number(match[1]))) continue;
    rmSync(join(paths.tables, name), { force: true });
    removed.push(name);
  }
  return removed;
}
