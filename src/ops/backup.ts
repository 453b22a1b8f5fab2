// `txray backup <dir>`: a consistent copy of a running instance — the control database, the lake's
// Parquet parts, the spool's acknowledged-but-unflushed segments, the current serving tables, the
// IDLs and the snapshots — that restores by copying it back (docs/operations.md).
//
// Consistency: flush, resolve, compaction and retention change the lake and the control database
// together only under the "lake" lease. The backup takes that lease for a moment, snapshots the
// control database (snapshotControlDb), and hard-links every lake part, sealed spool segment,
// serving file and IDL into a staging directory beside them (instant, same filesystem; these files
// are never modified in place, only replaced); the acknowledged prefix of each active spool segment
// is copied. Then the lease is released and the staged files are copied to the target at leisure,
// while ingest and jobs go on. So the copy is one moment of the instance: every part the snapshot
// counts is there, no part it does not count is, and everything acknowledged by then is in the
// lake or the spool copy.

import { closeSync, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { controlDialect, lakeRowCount, openControlDbReadOnly, snapshotControlDb, withLease, type ControlDb } from "../control";
import { readPointer } from "../analytics/serving/pointer";
import type { DataPaths } from "../lake/paths";
import { VERSION } from "../shared/version";

export type BackupManifest = {
  format: 1;
  txrayVersion: string;
  createdAt: number;
  source: string;
  /** Envelopes the copied lake holds (as its control database counts them); spool segments add to it once flushed. */
  envelopes: number;
  lakeFiles: number;
  spoolSegments: number;
  servingVersion: number | null;
  idlFiles: number;
  snapshots: boolean;
  bytes: number;
  seconds: number;
};

export type BackupDeps = { paths: DataPaths; control: ControlDb; snapshotsDir: string; clock: () => number };

export async function backupInstance(deps: BackupDeps, targetDir: string): Promise<BackupManifest> {
  const started = performance.now();
  const target = resolve(targetDir);
  const source = resolve(deps.paths.root);
  if (target === source || target.startsWith(source + "/")) throw new Error(`backup target ${target} is inside the data directory ${source}`);
  if (existsSync(target) && readdirSync(target).length > 0) throw new Error(`backup target ${target} is not empty`);
  if (controlDialect(deps.control) === "postgres")
    throw new Error("txray backup copies an embedded (SQLite) control plane; this one is on PostgreSQL (TXRAY_CONTROL_URL): back it up with pg_dump and the data directory with a filesystem snapshot (docs/operations.md)");

  const stage = join(deps.paths.staging, `backup-${Bun.randomUUIDv7()}`);
  mkdirSync(stage, { recursive: true });
  try {
    const counts = await withLease(deps.control, "lake", () => {
      snapshotControlDb(deps.control, join(stage, "control.sqlite"));
      const lakeFiles = linkTree(deps.paths.lake, join(stage, "lake"), (name) => name.endsWith(".parquet"));
      const spoolSegments = stageSpool(deps.paths.spoolRoot, join(stage, "spool"));
      const servingVersion = stageServing(deps.paths, join(stage, "tables"));
      const idlFiles = linkTree(deps.paths.idl, join(stage, "idl"), (name) => name.endsWith(".json"));
      // The signature index (why, diagnose-drop) and the resolver's checkpoint of its open attempts:
      // both replaced by rename, never modified in place. Read under the lease, the checkpoint holds
      // no commit the control snapshot lacks (src/chain/resolve/checkpoint.ts).
      linkTree(deps.paths.signatureIndex, join(stage, "index", "signatures"), (name) => name.endsWith(".run"));
      linkTree(deps.paths.resolver, join(stage, "resolver"), (name) => name === "checkpoint.json");
      return { lakeFiles, spoolSegments, servingVersion, idlFiles };
    }, { ttlMs: 10 * 60_000 });
    const envelopes = countEnvelopes(join(stage, "control.sqlite"));

    mkdirSync(target, { recursive: true });
    copyTree(stage, join(target, "data"));
    const snapshots = existsSync(deps.snapshotsDir);
    if (snapshots) cpSync(deps.snapshotsDir, join(target, "snapshots"), { recursive: true });
    const manifest: BackupManifest = {
      format: 1,
      txrayVersion: VERSION,
      createdAt: deps.clock(),
      source,
      envelopes,
      ...counts,
      snapshots,
      bytes: treeSize(target),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
    writeFileSync(join(target, "backup.json"), JSON.stringify(manifest, null, 2) + "\n");
    return manifest;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function countEnvelopes(file: string): number {
  const db = openControlDbReadOnly(file);
  try {
    return lakeRowCount(db);
  } finally {
    db.close();
  }
}

/** Hard-links the files under `from` that `keep` accepts into `to`, keeping the layout; returns how many. */
function linkTree(from: string, to: string, keep: (name: string) => boolean): number {
  if (!existsSync(from)) return 0;
  let count = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && keep(entry.name)) {
        const destination = join(to, relative(from, path));
        mkdirSync(join(destination, ".."), { recursive: true });
        linkSync(path, destination);
        count++;
      }
    }
  };
  walk(from);
  return count;
}

/**
 * Sealed segments are linked; an active segment's acknowledged prefix (up to its last newline) is
 * copied as a sealed one, so the restored instance flushes it. The owner file is left out: the
 * restored spool belongs to whichever process opens it.
 */
function stageSpool(spoolRoot: string, to: string): number {
  if (!existsSync(spoolRoot)) return 0;
  let count = 0;
  for (const node of readdirSync(spoolRoot)) {
    const dir = join(spoolRoot, node);
    if (!statSync(dir).isDirectory()) continue;
    mkdirSync(join(to, node), { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      // A segment may be sealed (renamed) between the listing and the copy: list again.
      try {
        for (const name of readdirSync(dir)) {
          const destination = join(to, node, name.replace(/\.active$/, ".sealed"));
          if (existsSync(destination)) continue;
          if (name.endsWith(".sealed")) {
            linkSync(join(dir, name), destination);
            count++;
          } else if (name.endsWith(".active") && copyAcknowledged(join(dir, name), destination)) count++;
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 4) throw error;
      }
    }
  }
  return count;
}

/** Copies a file up to and including its last newline (every line before it is complete); false when empty. */
function copyAcknowledged(file: string, destination: string): boolean {
  const fd = openSync(file, "r");
  try {
    const size = statSync(file).size;
    const data = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, data, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const end = data.subarray(0, read).lastIndexOf(10) + 1;
    if (end === 0) return false;
    writeFileSync(destination, data.subarray(0, end));
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The current serving version's files and its pointer (null: none built yet, or replaced meanwhile: rebuild after restore). */
function stageServing(paths: DataPaths, to: string): number | null {
  const pointer = readPointer(paths);
  if (pointer === null) return null;
  const prefix = `serving-${pointer.version}.`;
  const files = existsSync(paths.tables) ? readdirSync(paths.tables).filter((name) => name.startsWith(prefix) && !name.endsWith(".wal")) : [];
  if (!files.includes(`serving-${pointer.version}.duckdb`)) return null;
  mkdirSync(to, { recursive: true });
  try {
    for (const name of files) linkSync(join(paths.tables, name), join(to, name));
  } catch {
    rmSync(to, { recursive: true, force: true });
    return null;
  }
  writeFileSync(join(to, "current.json"), JSON.stringify(pointer));
  return pointer.version;
}

/** Copies a tree file by file (the staged hard links become independent copies). */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const destination = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, destination);
    else if (entry.isFile()) copyFileSync(source, destination);
  }
}

function treeSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? treeSize(path) : entry.isFile() ? statSync(path).size : 0;
  }
  return total;
}
