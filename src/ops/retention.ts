// Retention (TXRAY_RETENTION_DAYS): removes lake partitions whose whole day is older than the
// retention period, and the control-plane rows that describe those attempts, without ever showing a
// reader half a partition.
//
// Discipline, the same as compaction's (src/lake/compact.ts): the tables and compaction jobs are
// held off through their job leases (so neither is listing or merging a partition while it goes),
// and under the lake lease each expired `day=` directory is renamed out of the lake in one step
// into `data/retired/<time>-<id>/…` — a reader listing the lake sees the whole day or none of it,
// and a reader that already opened a file keeps reading it. Retired directories are deleted on a
// later run, once RETIRED_GRACE_MS has passed. Deploys (one small partition per program, needed by
// release-diff to find the previous release) are kept. The serving tables drop the removed days at
// the next tables build, which the retention job starts at once when it removed something.

import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { readCheckpoint } from "../chain/resolve";
import {
  CONTROL_HISTORY_MS,
  type ControlDb,
  forgetBlockHeightsBefore,
  forgetPrunedSegmentRowsBefore,
  forgetResolvedHoursBefore,
  forgetSegmentsBefore,
  forgetTransactionsFetchedBefore,
  pruneJobRuns,
  pruneLakeSegments,
  pruneResolutionBatches,
  pruneSealRequests,
  SEAL_REQUEST_HISTORY_MS,
  withLease,
} from "../control";
import { type Duck, sqlString } from "../lake/duckdb";
import { type DataPaths, utcDay } from "../lake/paths";
import { batchOfPart } from "../lake/publish";
import { isBase58Address } from "../shared/base58";
import type { Logger } from "../shared/logger";
import type { SignatureIndex } from "../signature-index";
import { segmentNameOf } from "../spool";

/** Retired partitions are deleted once they have been out of the lake this long. */
export const RETIRED_GRACE_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
const RETIRED_NAME = /^(\d{13})-[0-9a-f-]+$/;
/** Datasets partitioned by day (deploys are not: they are kept). */
const DAY_PARTITIONED = ["envelopes", "resolutions"] as const;

export type RetentionDeps = { paths: DataPaths; control: ControlDb; duck: Duck; logger: Logger; clock: () => number };
export type RetentionOptions = { days: number | undefined; graceMs?: number; leaseWaitMs?: number };
export type RetentionResult =
  | { skipped: string; purgedRetired: number }
  | {
      cutoffDay: string;
      partitionsRemoved: number;
      envelopesRemoved: number;
      resolutionsRemoved: number;
      controlRowsRemoved: Record<string, number>;
      retiredTo: string | null;
      purgedRetired: number;
    };

export const retiredRoot = (paths: DataPaths) => join(paths.root, "retired");

/** The first day kept: partitions of earlier days go. */
export function cutoffDay(now: number, days: number): string {
  return utcDay(now - days * DAY_MS);
}

export async function applyRetention(deps: RetentionDeps, options: RetentionOptions): Promise<RetentionResult> {
  const now = deps.clock();
  const purgedRetired = purgeRetired(deps.paths, now, options.graceMs ?? RETIRED_GRACE_MS);
  if (options.days === undefined) return { skipped: "TXRAY_RETENTION_DAYS is off: everything is kept", purgedRetired };
  const cutoff = cutoffDay(now, options.days);
  const cutoffMs = Date.parse(`${cutoff}T00:00:00Z`);
  const lease = { ttlMs: 30 * 60_000, waitMs: options.leaseWaitMs ?? 30 * 60_000 };

  // job:compact first, then job:tables: a compaction run holds job:compact while its swaps wait for
  // job:tables, so taking them the other way round deadlocks with it until the compaction gives up
  // (two minutes with the tables job held off, every hour).
  return await withLease(
    deps.control,
    "job:compact",
    () =>
      withLease(
        deps.control,
        "job:tables",
        async () => {
          const expired = expiredPartitions(deps.paths, cutoff);
          const rows = { envelopes: 0, resolutions: 0 };
          for (const partition of expired) rows[partition.dataset] += await partitionRows(deps.duck, partition.dir);
          let retiredTo: string | null = null;
          if (expired.length > 0) {
            retiredTo = join(retiredRoot(deps.paths), `${now}-${Bun.randomUUIDv7()}`);
            await withLease(deps.control, "lake", () => {
              for (const partition of expired) {
                const target = join(retiredTo!, partition.dataset, partition.program, partition.day);
                mkdirSync(join(retiredTo!, partition.dataset, partition.program), { recursive: true });
                renameSync(partition.dir, target);
                removeIfEmpty(join(deps.paths.dataset(partition.dataset), partition.program));
              }
            });
          }
          const controlRowsRemoved = forgetControlRows(deps.control, cutoff, cutoffMs);
          if (expired.length > 0)
            deps.logger.info("retention removed partitions", {
              cutoffDay: cutoff,
              partitions: expired.length,
              envelopes: rows.envelopes,
            });
          return {
            cutoffDay: cutoff,
            partitionsRemoved: expired.length,
            envelopesRemoved: rows.envelopes,
            resolutionsRemoved: rows.resolutions,
            controlRowsRemoved,
            retiredTo,
            purgedRetired,
          };
        },
        lease,
      ),
    lease,
  );
}

type Partition = { dataset: (typeof DAY_PARTITIONED)[number]; program: string; day: string; dir: string };

/** `day=` directories before the cutoff, recognised strictly by name (anything else is left alone). */
function expiredPartitions(paths: DataPaths, cutoff: string): Partition[] {
  const out: Partition[] = [];
  for (const dataset of DAY_PARTITIONED) {
    const root = paths.dataset(dataset);
    if (!existsSync(root)) continue;
    for (const program of readdirSync(root)) {
      if (!program.startsWith("program=") || !isBase58Address(program.slice(8))) continue;
      for (const day of readdirSync(join(root, program))) {
        const match = /^day=(\d{4}-\d{2}-\d{2})$/.exec(day);
        if (match && match[1] < cutoff) out.push({ dataset, program, day, dir: join(root, program, day) });
      }
    }
  }
  return out;
}

/** Rows in a partition's Parquet parts, from their footers (no data is read). */
async function partitionRows(duck: Duck, dir: string): Promise<number> {
  const files = readdirSync(dir).filter((name) => name.endsWith(".parquet"));
  if (files.length === 0) return 0;
  const list = files.map((name) => sqlString(join(dir, name))).join(", ");
  const rows = await duck.all<{ n: number | bigint | null }>(
    `SELECT sum(num_rows) AS n FROM parquet_file_metadata([${list}])`,
  );
  return Number(rows[0]?.n ?? 0);
}

function removeIfEmpty(dir: string) {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // gone already, or refilled by a flush
  }
}

/**
 * The control plane's rows about removed attempts: hourly provider and issue counts, chain
 * observations, and the records of spool segments whose every day is gone (so /v1/status counts
 * what the lake holds). Accounts, keys and per-account program totals are kept. (The signature
 * index that why / diagnose-drop read keeps no more than the retention either: the resolver drops
 * its runs older than the cutoff, src/chain/resolve/signatures.ts.)
 */
function forgetControlRows(control: ControlDb, cutoff: string, cutoffMs: number): Record<string, number> {
  return control
    .transaction(() => {
      const removed: Record<string, number> = {};
      removed.resolvedHours = forgetResolvedHoursBefore(control, Math.floor(cutoffMs / 3_600_000));
      removed.rpcTransactions = forgetTransactionsFetchedBefore(control, cutoffMs);
      removed.blockHeights = forgetBlockHeightsBefore(control, cutoffMs);
      removed.lakeSegments = forgetSegmentsBefore(control, cutoff);
      forgetPrunedSegmentRowsBefore(control, cutoff);
      return removed;
    })
    .immediate();
}

/** Deletes retired directories older than the grace period; returns how many went. */
export function purgeRetired(paths: DataPaths, now: number, graceMs: number): number {
  const root = retiredRoot(paths);
  if (!existsSync(root)) return 0;
  let purged = 0;
  for (const name of readdirSync(root)) {
    const match = RETIRED_NAME.exec(name);
    if (!match || Number(match[1]) > now - graceMs) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    purged++;
  }
  return purged;
}

export type ControlPruningDeps = {
  paths: DataPaths;
  control: ControlDb;
  signatures: SignatureIndex;
  clock: () => number;
};

/**
 * The control database's bookkeeping pruned by each table's rule (src/control/pruning.ts), whatever
 * TXRAY_RETENTION_DAYS says. What the rules must not lose is gathered first: the resolver
 * checkpoint's time, and the publish batches still named by a lake part or a signature index run.
 * Returns the rows removed per table.
 */
export function pruneControlPlane(deps: ControlPruningDeps): Record<string, number> {
  const now = deps.clock();
  const references = {
    checkpointThrough: readCheckpoint(deps.paths)?.through ?? null,
    batchesInUse: batchesInUse(deps.paths, deps.signatures),
    segmentsInSpool: segmentsInSpool(deps.paths),
  };
  return {
    resolutionBatches: pruneResolutionBatches(deps.control, now - CONTROL_HISTORY_MS, references),
    lakeSegments: pruneLakeSegments(deps.control, now - CONTROL_HISTORY_MS, references),
    jobRuns: pruneJobRuns(deps.control),
    sealRequests: pruneSealRequests(deps.control, now - SEAL_REQUEST_HISTORY_MS),
  };
}

/** Segments with a file in any node's spool directory (sealed or active), by name. */
function segmentsInSpool(paths: DataPaths): Set<string> {
  const names = new Set<string>();
  if (!existsSync(paths.spoolRoot)) return names;
  for (const file of readdirSync(paths.spoolRoot, { recursive: true, encoding: "utf8" }))
    if (/\.(sealed|active)$/.test(file)) names.add(segmentNameOf(file));
  return names;
}

/** Publish batches named by a Parquet part anywhere in the lake or by a signature index run. */
function batchesInUse(paths: DataPaths, signatures: SignatureIndex): Set<string> {
  const batches = new Set<string>();
  if (existsSync(paths.lake))
    for (const file of readdirSync(paths.lake, { recursive: true, encoding: "utf8" })) {
      const batch = file.endsWith(".parquet") ? batchOfPart(basename(file)) : null;
      if (batch !== null) batches.add(batch);
    }
  // Only the footers are read: every run is declined once its batch is noted. A run merged away
  // between the listing and its opening (the index's upkeep runs beside this) means listing again.
  for (let tries = 0; ; tries++) {
    try {
      [
        ...signatures.scan((footer) => {
          if (footer.batch !== null) batches.add(footer.batch);
          return false;
        }),
      ];
      return batches;
    } catch (error) {
      if (tries >= 2 || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}
