// Disk use of a data directory, by part (lake, spool, serving tables, control database, IDLs,
// retired partitions awaiting deletion, staging), and per attempt held in the lake: what an operator
// needs to size a disk and to pick TXRAY_RETENTION_DAYS. A file with several hard links (a backup's
// staging links lake parts) is counted once, in the first part that holds it: staging shows only
// the bytes it alone keeps on disk (e.g. parts a dead backup still pins after compaction removed them). Walking a large
// lake costs a few milliseconds per thousand files, so a result is reused for CACHE_MS (GET /v1/status is public).

import { existsSync, lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "../lake/paths";
import { reusedFor } from "../shared/reuse";
import { retiredRoot } from "./retention";

const CACHE_MS = 30_000;

export type DiskUsage = {
  lakeBytes: number;
  spoolBytes: number;
  tablesBytes: number;
  controlBytes: number;
  idlBytes: number;
  retiredBytes: number;
  /** data/staging: work in progress of jobs and backups, and what killed ones left until it is swept. */
  stagingBytes: number;
  totalBytes: number;
  /** totalBytes / envelopes in the lake; null while the lake is empty. */
  bytesPerAttempt: number | null;
  measuredAt: number;
};

const reuse = reusedFor<DiskUsage>(CACHE_MS);

/** Measured at most every CACHE_MS per data directory, and again when the lake's envelope count changed. */
export function diskUsage(paths: DataPaths, envelopes: number, now: number): DiskUsage {
  return reuse(paths.root, now, () => measure(paths, envelopes, now), envelopes);
}

function measure(paths: DataPaths, envelopes: number, now: number): DiskUsage {
  const linked = new Set<string>();
  const parts = {
    lakeBytes: treeBytes(paths.lake, linked),
    spoolBytes: treeBytes(paths.spoolRoot, linked),
    tablesBytes: treeBytes(paths.tables, linked),
    controlBytes: ["", "-wal", "-shm"].reduce((sum, suffix) => sum + treeBytes(paths.controlDb + suffix, linked), 0),
    idlBytes: treeBytes(paths.idl, linked),
    retiredBytes: treeBytes(retiredRoot(paths), linked),
    stagingBytes: treeBytes(paths.staging, linked),
  };
  const totalBytes = Object.values(parts).reduce((sum, n) => sum + n, 0);
  return {
    ...parts,
    totalBytes,
    bytesPerAttempt: envelopes > 0 ? Math.round((totalBytes / envelopes) * 10) / 10 : null,
    measuredAt: now,
  };
}

/**
 * Bytes of the regular files under a path (symbolic links are not followed; vanishing files are
 * skipped). With `linked`, a file of several hard links already counted (its device and inode in
 * the set) is not counted again.
 */
export function treeBytes(path: string, linked?: Set<string>): number {
  if (!existsSync(path)) return 0;
  let total = 0;
  const visit = (at: string) => {
    let stat: Stats;
    try {
      stat = lstatSync(at);
    } catch {
      return; // removed while we walked
    }
    if (stat.isFile()) {
      if (linked && stat.nlink > 1) {
        const id = `${stat.dev}:${stat.ino}`;
        if (linked.has(id)) return;
        linked.add(id);
      }
      total += stat.size;
    } else if (stat.isDirectory()) {
      let names: string[] = [];
      try {
        names = readdirSync(at);
      } catch {
        return;
      }
      for (const name of names) visit(join(at, name));
    }
  };
  visit(path);
  return total;
}
