// Compaction: frequent flushes leave many small Parquet parts, and DuckDB reads many small files
// slowly (it parallelises over row groups; ~122,880-row groups in large files are its sweet spot).
// Parts are merged by size tier (an LSM's size-tiered merge): enough parts of one tier become one
// part of about the next, so a row is rewritten about once per tier, not at every run, and a day
// that is over is merged into one part per up to 128 MB. Each merged partition is swapped in
// atomically (exchange.ts) under the lake lease, so a reader never sees a row twice or not at all.
// Parts of segments not yet committed are carried over untouched.

import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type ControlDb,
  isResolutionBatchCommitted,
  isSegmentCommitted,
  lakeTakenBefore,
  whenLeaseFree,
  withLease,
} from "../control";
import { fault } from "../shared/fault";
import type { Logger } from "../shared/logger";
import { checkStop } from "../shared/stop";
import { anyFileHasColumn } from "./column-presence";
import { type Duck, sqlString } from "./duckdb";
import { exchangePaths } from "./exchange";
import type { DataPaths } from "./paths";
import { batchOfPart, rowGroupLimits } from "./publish";
import type { DatasetName } from "./schema";
import { sweepStaging } from "./staging";

export type CompactDeps = { paths: DataPaths; duck: Duck; control: ControlDb; logger: Logger };
export type CompactOptions = {
  /** Parts of one tier merged together once there are this many (also each tier's size factor). */
  minParts?: number;
  /** Parts this large or larger are left as they are. */
  smallPartBytes?: number;
  /**
   * The smallest tier's upper bound: parts under it are one tier; each next tier is `minParts`
   * times larger. `smallPartBytes` makes one tier of every small part (the single-tier policy that
   * bench compact measures against the tiers).
   */
  tierBaseBytes?: number;
  /** Graceful shutdown: stop between merges, and while the swaps wait. */
  signal?: AbortSignal;
  now?: number;
  /**
   * A lease held by a reader that must not see a partition swapped while it runs (the tables build,
   * which lists the lake's files and then reads them). The merges go on meanwhile; the swaps wait
   * for the lease, at most waitMs, and are given up (merges discarded) when it stays held.
   */
  swapsWaitFor?: { lease: string; waitMs: number };
};
/** `skipped`: why the merges were given up (nothing swapped in). */
export type CompactResult = { partitions: number; partsMerged: number; skipped?: string };

/**
 * Parts published after the tables job last took the lake in are left for a later run, so the job
 * never has to read a merged part again for the rows it had not read (docs/serving.md). A mark older
 * than this (the tables job not running) is ignored: small parts must not pile up meanwhile.
 */
const TAKEN_MARK_MAX_AGE_MS = 3_600_000;

/**
 * The order of a merged part's rows. A wallet page (queries/wallet-history.ts) filters envelopes on
 * one payer and resolutions on that payer's bucket (`payer_bucket`, lake version 4): sorted so, a
 * row group's min/max statistics let a reader skip every row group that cannot hold them (nothing
 * to skip in a day of one row group; most of a large day's). Resolutions of files before version 4
 * have no bucket (null, last), then come by attempt id as before. Readers never rely on an order
 * (docs/lake.md).
 */
export async function mergedOrder(duck: Pick<Duck, "all">, dataset: DatasetName, files: string[]): Promise<string> {
  if (dataset === "envelopes") return "ORDER BY payer, sent_at";
  if (dataset === "deploys") return "";
  return (await anyFileHasColumn(duck, files, "payer_bucket"))
    ? "ORDER BY payer_bucket, attempt_id"
    : "ORDER BY attempt_id";
}

/**
 * Rows per row group of a merged part: 30,720 rather than DuckDB's 122,880, so that one payer's rows
 * (sorted together) are in a group a quarter the size, and a wallet page reads a quarter of the
 * rows around them (on 6M envelopes and resolutions over 7 days: the payer's envelopes with their
 * signatures 59 ms of CPU instead of 190, its resolutions 60 ms instead of 93; bytes −0.2% and +0.4%;
 * bench/README.md, "wallet"). Deploys are a few rows.
 */
export const MERGED_ROW_GROUP_ROWS: Record<DatasetName, number> = {
  envelopes: 30_720,
  resolutions: 30_720,
  deploys: 122_880,
};

const COMPACTED_PREFIX = "part-c";

const TIER_BASE_BYTES = 1024 * 1024;

/**
 * One merge reads at most this many times `smallPartBytes` (four parts just under 64 MB would
 * otherwise be re-sorted into 256 MB at once: a long burst of CPU beside the resolver).
 */
const MAX_MERGE_FACTOR = 2;

/**
 * A day partition is merged whole (every small part into one, whatever its tier) once its day ended
 * this long ago: by then its sends have resolved (a blockhash expires in about 90 s; the resolver's
 * give-up is minutes), so the part is rarely rewritten again, and a reader of a past day opens one
 * file per up to 128 MB (and its parts of 64 MB or more) instead of a few per tier.
 */
const DAY_SETTLED_AFTER_MS = 3_600_000;

/** Whether a part is compaction's output (it replaces parts it merged) rather than a flush's or a resolve run's. */
export const isCompactedPart = (name: string) => name.startsWith(`${COMPACTED_PREFIX}-`);

/** A partition's groups of small parts merged (one file each) in a work directory, not yet swapped in. */
type Merge = { dir: string; candidates: string[]; work: string; next: string };

/**
 * Merges first, every partition's, then swaps them in: a merge only reads parts, so it runs beside
 * anything; only the swaps wait for `swapsWaitFor` (skipping the whole pass while a tables build
 * runs would never compact under load, where builds run back to back).
 */
export async function compactLake(deps: CompactDeps, options: CompactOptions = {}): Promise<CompactResult> {
  const minParts = options.minParts ?? 4;
  // A part of 64 MB or more is left as it is: DuckDB reads it well, and merging it again would
  // rewrite the whole partition at every run (a soak at 2,000 envelopes/s saw compaction runs grow
  // from 4 s to 41 s as each day's single compacted part was rewritten every two minutes).
  const smallPartBytes = options.smallPartBytes ?? 64 * 1024 * 1024;
  const tiers = { base: options.tierBaseBytes ?? TIER_BASE_BYTES, factor: Math.max(2, minParts) };
  sweepStaging(deps.paths, "compact"); // work directories of a killed run
  const now = options.now ?? Date.now();
  const mark = lakeTakenBefore(deps.control);
  const takenBefore = mark !== null && now - mark <= TAKEN_MARK_MAX_AGE_MS ? mark : Number.POSITIVE_INFINITY;
  const merges: Merge[] = [];
  try {
    for (const dataset of ["envelopes", "resolutions"] as DatasetName[]) {
      for (const dir of partitionDirs(deps.paths.dataset(dataset))) {
        checkStop(options.signal);
        const settled = isDaySettled(dir, now);
        const groups = partsToMerge(deps.control, dir, { minParts, smallPartBytes, takenBefore, tiers, settled });
        if (groups.length > 0) merges.push(await mergePartition(deps, dataset, dir, groups, options.signal));
      }
    }
    if (merges.length === 0) return { partitions: 0, partsMerged: 0 };
    const swapAll = async () => {
      let partitions = 0;
      let partsMerged = 0;
      for (const merge of merges) {
        const merged = await swapIn(deps, merge);
        if (merged > 0) {
          partitions++;
          partsMerged += merged;
        }
      }
      return { partitions, partsMerged };
    };
    if (!options.swapsWaitFor) return await swapAll();
    const { lease, waitMs } = options.swapsWaitFor;
    const attempt = await whenLeaseFree(deps.control, lease, swapAll, { waitMs, pollMs: 20, signal: options.signal });
    if (attempt.ran) return attempt.value;
    checkStop(options.signal); // stopped by shutdown while waiting: say so, not that the lease stayed held
    deps.logger.info("compaction gave up its merges: the lake's reader kept its lease", {
      lease,
      waitMs,
      partitions: merges.length,
    });
    return {
      partitions: 0,
      partsMerged: 0,
      skipped: `the ${lease} lease stayed held for ${waitMs} ms (a tables build reading the lake); ${merges.length} merged partitions are left for the next run`,
    };
  } finally {
    for (const merge of merges) rmSync(merge.work, { recursive: true, force: true });
  }
}

function partitionDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const program of readdirSync(root)) {
    if (!program.startsWith("program=")) continue;
    for (const day of readdirSync(join(root, program))) if (day.startsWith("day=")) out.push(join(root, program, day));
  }
  return out.sort();
}

/** Compacted parts, parts of committed spool segments and of committed resolution batches. */
function isCommitted(control: ControlDb, name: string): boolean {
  if (isCompactedPart(name)) return true;
  const batch = batchOfPart(name);
  if (batch === null) return false;
  return isSegmentCommitted(control, batch) || isResolutionBatchCommitted(control, batch);
}

type Tiers = { base: number; factor: number };

/** A part's size tier: 0 under `base`, then one per `factor` times larger. */
export function sizeTier(bytes: number, tiers: Tiers): number {
  return bytes < tiers.base ? 0 : 1 + Math.floor(Math.log(bytes / tiers.base) / Math.log(tiers.factor));
}

/** Whether a `day=YYYY-MM-DD` partition's day ended DAY_SETTLED_AFTER_MS before `now`. */
function isDaySettled(dir: string, now: number): boolean {
  const day = /day=(\d{4}-\d{2}-\d{2})$/.exec(dir)?.[1];
  const start = day ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  return Number.isFinite(start) && start + 86_400_000 + DAY_SETTLED_AFTER_MS <= now;
}

/**
 * The groups of a partition's parts to merge, each into one part: the small, committed parts the
 * tables job took in, by size tier, each tier with at least `minParts` of them (a settled day: all
 * of them, when there are two or more). Tiers keep a run from rewriting a day's growing compacted
 * part with the few new ones: with every small part one group, a run under load re-sorts up to
 * 64 MB per partition to add a few MB (a 10,000/s soak: 36 s merges, and freshness lag 10 s while
 * they run).
 */
function partsToMerge(
  control: ControlDb,
  dir: string,
  rule: { minParts: number; smallPartBytes: number; takenBefore: number; tiers: Tiers; settled: boolean },
): string[][] {
  // A part's ctime is when it was renamed into the lake (a rename changes it).
  const candidates: { name: string; bytes: number }[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".parquet")) continue;
    const stat = statSync(join(dir, name));
    if (stat.size < rule.smallPartBytes && stat.ctimeMs < rule.takenBefore && isCommitted(control, name))
      candidates.push({ name, bytes: stat.size });
  }
  // Smallest first, so a group bounded in size takes the most parts.
  candidates.sort((a, b) => a.bytes - b.bytes);
  const maxBytes = MAX_MERGE_FACTOR * rule.smallPartBytes;
  if (rule.settled) return boundedGroups(candidates, maxBytes, 2);
  const byTier = new Map<number, { name: string; bytes: number }[]>();
  for (const part of candidates) {
    const tier = sizeTier(part.bytes, rule.tiers);
    const parts = byTier.get(tier);
    if (parts) parts.push(part);
    else byTier.set(tier, [part]);
  }
  return [...byTier.keys()]
    .sort((a, b) => a - b)
    .flatMap((tier) => boundedGroups(byTier.get(tier)!, maxBytes, rule.minParts));
}

/** Consecutive groups of at most `maxBytes` (a part over it alone), those of `minCount` parts or more. */
function boundedGroups(parts: { name: string; bytes: number }[], maxBytes: number, minCount: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let bytes = 0;
  for (const part of parts) {
    if (group.length > 0 && bytes + part.bytes > maxBytes) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(part.name);
    bytes += part.bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups.filter((names) => names.length >= minCount);
}

/**
 * A partition's groups merged, each into one part, all in one work directory: the partition is
 * swapped once for all of them (a reader that listed it just before reads it again once).
 */
async function mergePartition(
  deps: CompactDeps,
  dataset: DatasetName,
  dir: string,
  groups: string[][],
  signal: AbortSignal | undefined,
): Promise<Merge> {
  const work = join(deps.paths.staging, `compact-${Bun.randomUUIDv7()}`);
  const next = join(work, "next");
  mkdirSync(next, { recursive: true });
  try {
    for (const group of groups) {
      checkStop(signal);
      const paths = group.map((name) => join(dir, name));
      const files = paths.map(sqlString).join(", ");
      const mergedName = `${COMPACTED_PREFIX}-${Bun.randomUUIDv7()}-0.parquet`;
      const order = await mergedOrder(deps.duck, dataset, paths);
      await deps.duck.run(
        // hive_partitioning = false: the partition's program and day must not become columns of the merged file (DuckDB
        // would infer day as DATE there, and every later read of the partition failed on the mixed types).
        `COPY (SELECT * FROM read_parquet([${files}], union_by_name = true, hive_partitioning = false) ${order}) TO ${sqlString(join(next, mergedName))}
         (FORMAT parquet, COMPRESSION zstd, ${rowGroupLimits(MERGED_ROW_GROUP_ROWS[dataset])})`,
      );
    }
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  fault("compact:after-merge");
  return { dir, candidates: groups.flat(), work, next };
}

/** Swaps a merged partition in under the lake lease; 0 when its parts changed meanwhile (merged again next time). */
async function swapIn(deps: CompactDeps, merge: Merge): Promise<number> {
  const { dir, candidates, next } = merge;
  return await withLease(deps.control, "lake", () => {
    const now = readdirSync(dir).filter((name) => name.endsWith(".parquet"));
    if (!candidates.every((name) => now.includes(name))) return 0; // changed under us: try next time
    for (const name of now) if (!candidates.includes(name)) linkSync(join(dir, name), join(next, name));
    exchangePaths(next, dir);
    fault("compact:after-swap");
    deps.logger.debug("compacted partition", { dir, parts: candidates.length });
    return candidates.length;
  });
}
