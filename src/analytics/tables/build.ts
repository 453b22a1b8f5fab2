// The tables job: refreshes the serving tables from what arrived in the lake since the last run
// (docs/serving.md). A refresh gathers what is known (the state's schema and clock, the lake's
// listing, the parts taken in), makes its plan (plan.ts: rebuild or continue, what to read, what to
// forget, how to commit), then runs its steps (steps.ts) in order: the clock, deploys and ranges,
// the units the ranges need, the intake of what arrived as deltas of per-unit rollups (rollups.ts,
// apply.ts), the payers, the bookkeeping of parts taken, the commit, then the version (a small
// DuckDB file of every window's, deploy's and day's figures merged from units, and the public
// answers) and the pointer's switch. The changes also go into the wallet-page store
// (wallet-store.ts), which a version reads with its own version number. A run's cost follows what arrived and the number of units a figure
// merges, not the history. A rebuild (`full`, or a state that is missing, of another schema, or
// behind a retention removal) reads the whole lake, day by day, with the same code and answers.
//
// Crash safety: the state changes in transactions (one per step of a large intake, one for a small
// one); the version's files are written after the last commit, then the pointer. Killed before a
// commit, the next run redoes that step's intake; after the last, the next run writes the next version.

import { mkdirSync, rmSync } from "node:fs";
import type { Context, OwnedPart } from "../../context";
import { recordLakeTakenBefore, withLease } from "../../control";
import { byteSize } from "../../lake/duckdb";
import { fault } from "../../shared/fault";
import { checkStop } from "../../shared/stop";
import { answersFile, nextVersion, readPointer, servingFile } from "../serving/pointer";
import type { ApplyContext } from "./apply";
import type { Repair } from "./edges";
import { deployFiles, type LakePart, listLakeParts, newestReceivedAt, partsToCount, takenInLake } from "./intake";
import { planRanges, planRefresh, programsOf, rebuildReason, refreshClock, stateRebuildReason } from "./plan";
import type { PublicTrust } from "./public-weights";
import { dayOf } from "./ranges";
import { openState } from "./state";
import {
  applyDepartures,
  closeServing,
  countRows,
  forgetExpired,
  loadUnits,
  mergePayerChanges,
  publishVersion,
  readDeploys,
  readStateFacts,
  rebuildFromLake,
  recordParts,
  removeVersionFiles,
  scoreChangedPayers,
  startFresh,
  takeInArrivals,
  takenParts,
  transaction,
  writeDeploys,
  writeRanges,
  writeServing,
  writeVersionAnswers,
} from "./steps";
import { STATE_SCHEMA } from "./versions";
import { removeUnreadWalletStores, WalletStoreWriter } from "./wallet-store";

export type BuildOptions = {
  /** Rebuild the state from the whole lake. */
  full?: boolean;
  /** Rows read per intake step (tests lower it); default from DUCKDB_MEMORY_LIMIT. */
  chunkRows?: number;
  /**
   * Rows (envelopes and resolutions) one refresh takes in at most; the rest is its `backlog`. Default from
   * DUCKDB_MEMORY_LIMIT.
   */
  maxRows?: number;
  /** Graceful shutdown: stop between steps (the transaction is rolled back; the pointer never moves). */
  signal?: AbortSignal;
};
export type BuildResult = {
  version: number;
  full: boolean;
  /** Envelopes and resolutions taken in by this run. */
  attempts: number;
  resolutions: number;
  partsRead: number;
  /** Days read back from the lake for hour units or edge rows. */
  daysLoaded: number;
  /**
   * Partitions of the days read back whose current parts disagreed with the state's record (compaction merged parts
   * the state had not taken in, or parts it took in are gone): read for what the state holds of them.
   */
  repaired: Repair[];
  /**
   * New rows left for the next refresh (more had arrived than one refresh takes in: `maxRows`); the scheduler runs it
   * at once.
   */
  deferredRows: number;
  backlog: boolean;
  answers: number;
  clock: number;
  seconds: number;
  steps: Record<string, number>;
};

/**
 * Runs the refreshes of one context one at a time (across processes the tables job's lease
 * serialises them): a refresh asked for while one runs starts after it.
 */
export class TablesBuilder {
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly ctx: Context) {}

  build(options: BuildOptions = {}): Promise<BuildResult> {
    if (this.stopped) return Promise.reject(new Error("tables: the builder is stopped"));
    const build = this.queue.then(() => refreshListingAgain(this.ctx, options));
    this.queue = build.catch(() => undefined);
    return build;
  }

  /** Takes no new refresh; resolves once the ones queued have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
  }
}

/**
 * The builder of each context, a part the context owns: callers that hold only the context share
 * its queue, and closing the context stops it.
 */
const TABLES_BUILDER: OwnedPart<TablesBuilder> = {
  name: "tables builder",
  make: (ctx) => new TablesBuilder(ctx),
  close: (builder) => void builder.stop(),
};

export const tablesBuilderOf = (ctx: Context): TablesBuilder => ctx.own(TABLES_BUILDER);

/** One refresh with the context's builder (queued behind the one running). */
export function buildServingTables(ctx: Context, options: BuildOptions = {}): Promise<BuildResult> {
  return tablesBuilderOf(ctx).build(options);
}

/** A read that found a listed part gone: removed between the listing and the read by something not waiting for the job. */
const isPartGone = (error: unknown) =>
  /No files found that match the pattern|No such file or directory/.test(String((error as Error)?.message ?? error));

/**
 * One refresh; run once more from a new listing when a part it listed was gone when read. Compaction
 * swaps partitions only while the tables job's lease is free, but a refresh called without the
 * job's lease, or the lake changed from outside (retention, an operator), can still take a part
 * away under it. The failed step's transaction was rolled back and the steps committed before it
 * left a state a run continues from (as after a crash), so the second run is an ordinary refresh.
 */
async function refreshListingAgain(ctx: Context, options: BuildOptions): Promise<BuildResult> {
  try {
    return await refreshOnce(ctx, options);
  } catch (error) {
    if (!isPartGone(error)) throw error;
    ctx.logger.warn("tables: a part listed was gone when read; refreshing again from a new listing", {
      error: (error as Error).message,
    });
    return await refreshOnce(ctx, options);
  }
}

/** Makes the plan, runs its steps in order, records what they did. */
async function refreshOnce(ctx: Context, options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const steps: Record<string, number> = {};
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    checkStop(options.signal);
    fault("tables:mid-build");
    const at = performance.now();
    try {
      return await work();
    } catch (error) {
      // Name the step: "Out of Memory" alone does not tell an operator where to look.
      throw new Error(`tables step ${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      steps[name] = (steps[name] ?? 0) + Math.round(performance.now() - at);
    }
  };
  mkdirSync(ctx.paths.tables, { recursive: true });
  // ~2 KB per attempt row in flight (joins, deltas), generously.
  const memoryRows = Math.max(100_000, Math.floor(byteSize(ctx.config.DUCKDB_MEMORY_LIMIT) / 2048));
  const chunkRows = options.chunkRows ?? memoryRows;
  // A refresh's end (payers) holds all it took in, in one transaction: 1.2M new
  // attempts on a 5M lake run the default 1 GB out of memory there, every retry (bench/README.md, "burst").
  const maxRows = options.maxRows ?? memoryRows;

  let state = await openState(ctx.paths.tables, ctx.duckOptions("tables"));
  // A state without its wallet store (removed, or kept before there was one) is rebuilt like a missing state: the
  // store holds what the state took in.
  const readFacts = await readStateFacts(state);
  const stateFacts = (await WalletStoreWriter.kept(state, ctx.paths.tables))
    ? readFacts
    : { ...readFacts, clock: null };
  const full = options.full === true;
  const continuable = stateRebuildReason(full, stateFacts) === null;
  if (!continuable) state = await startFresh(state, ctx);
  const version = nextVersion(ctx.paths);
  const previousVersion = readPointer(ctx.paths)?.version ?? null;
  let wallets: WalletStoreWriter | null = null;
  let result: BuildResult;
  try {
    // What arrived: listed under the lake lease, so no publish or compaction is half seen.
    let listedAt = 0;
    const listed = await step("list", () =>
      withLease(
        ctx.control,
        "lake",
        (): LakePart[] => {
          listedAt = Date.now();
          return listLakeParts(ctx.paths);
        },
        { waitMs: 120_000 },
      ),
    );
    const taken = continuable ? await takenParts(state, ctx.paths) : null;
    const now = ctx.clock();
    // Partitions that left the lake (retention): whole days before every window are forgotten like
    // the state's own old days; anything else (a day a window still covers, part of a day) starts over.
    const rebuild = rebuildReason({ full, state: stateFacts, listed, taken, now });
    if (continuable && rebuild !== null) state = await startFresh(state, ctx);
    wallets = await WalletStoreWriter.open(state, ctx.paths.tables, version);
    const plan = await step("plan", async () => {
      const rows = await countRows(state, partsToCount(listed, rebuild === null ? (taken ?? []) : []));
      return planRefresh({ full, state: stateFacts, listed, taken, rows, now, chunkRows, maxRows });
    });

    const inStep = <T>(work: () => Promise<T>) => (plan.oneTransaction ? work() : transaction(state, work));
    if (plan.oneTransaction) await state.run("BEGIN TRANSACTION");
    const newest = await step("clock", () => newestReceivedAt(state, plan.clockFiles));
    const clock = refreshClock(ctx.clock(), newest, plan.previousClock);
    await step("deploys", () => writeDeploys(state, deployFiles(ctx.paths), clock));
    const deploys = await readDeploys(state);
    const ranges = planRanges({
      clock,
      previousClock: plan.previousClock,
      programs: programsOf(listed, deploys.programs, dayOf(clock)),
      periods: deploys.periods,
    });
    await step("ranges", () => writeRanges(state, ranges));
    // One transaction per step of work: a transaction holds its changes in memory until it commits
    // (one over a whole rebuild ran out of DUCKDB_MEMORY_LIMIT). Each leaves a state the next run
    // can continue from: the clock moves with the departures it caused, a chunk's parts are
    // recorded as taken with its changes, and what a refresh gathers for its end (payer changes)
    // is kept in tables until that end commits.
    // What the state took in, in the lake's parts as listed: compaction retires the names it recorded.
    const takenNow = plan.full ? [] : takenInLake(listed, taken ?? [], plan.intake.rows);
    const { days: daysLoaded, repaired } = await step("load", () =>
      inStep(async () => {
        const loaded = await loadUnits(state, {
          needs: ranges.needs,
          taken: takenNow,
          today: ranges.today,
          previousClock: plan.previousClock,
          fresh: plan.full,
        });
        if (plan.departures) await applyDepartures(state, ranges.bounds);
        return loaded;
      }),
    );

    if (repaired.length > 0)
      ctx.logger.warn("tables: the state's record of the lake disagreed with it; the days read back were repaired", {
        repaired,
      });

    const context: ApplyContext = { bounds: ranges.bounds, full: plan.full, wallets };
    const segments = new Map<string, string[]>();
    const intake = await step("intake", () =>
      plan.intakeStep === "rebuild"
        ? rebuildFromLake(state, listed, chunkRows, context, segments)
        : takeInArrivals(state, plan.intake, context, { inChunk: inStep, segments, signal: options.signal }),
    );
    if (!plan.oneTransaction) await state.run("BEGIN TRANSACTION");
    await step("payers", async () => {
      await mergePayerChanges(state, plan.rescore);
      await forgetExpired(state, { today: ranges.today, removedDays: plan.forgetDays, clock });
      wallets?.forget(ranges.today, plan.forgetDays);
      await scoreChangedPayers(state, ranges.bounds, plan.rescore, publicTrust(ctx.config));
    });
    await step("bookkeeping", () => recordParts(state, plan.intake.parts, plan.intake.rows, segments));
    await state.setMeta({ schema: STATE_SCHEMA, clock, version, wallet_store: wallets.base });
    await step("commit", () => state.run("COMMIT"));
    // Everything published before the listing is taken in, or (some left for the next refresh)
    // before the first part left: compaction may merge it. A refresh that is behind under steady
    // load leaves parts at every run; a mark kept back then let no part be merged (nor wallet pages
    // skip any) until the mark was an hour old.
    recordLakeTakenBefore(ctx.control, Math.min(listedAt, plan.deferredFrom ?? Number.POSITIVE_INFINITY));

    // The version: the serving database and its answers.
    await step("serving", () =>
      writeServing(state, servingFile(ctx.paths, version), { version, clock }, publicTrust(ctx.config)),
    );
    const answers = await step("answers", () =>
      writeVersionAnswers(state, clock, answersFile(ctx.paths.tables, version)),
    );
    await step("checkpoint", () => closeServing(state));
    steps.wallets = Math.round(wallets.ms); // within intake: the wallet-page store's writes
    result = {
      version,
      full: plan.full,
      attempts: intake.attempts,
      resolutions: intake.resolutions,
      partsRead: intake.partsRead,
      daysLoaded,
      repaired,
      deferredRows: plan.deferredRows,
      backlog: plan.deferredRows > 0,
      answers,
      clock,
      seconds: 0, // the whole run's, once the version is published
      steps,
    };
  } catch (error) {
    await state.run("ROLLBACK").catch(() => undefined); // the open transaction, if any
    state.close();
    wallets?.close();
    removeVersionFiles(ctx.paths, version);
    throw error;
  }
  state.close();
  rmSync(`${servingFile(ctx.paths, version)}.wal`, { force: true });
  fault("tables:after-build");
  publishVersion(ctx.paths, { version, clock: result.clock, builtAt: Date.now() });
  if (wallets) {
    // The versions kept on disk are this one and the previous: rows replaced before the previous are read by neither.
    try {
      if (previousVersion !== null) wallets.collect(previousVersion);
    } finally {
      wallets.close();
    }
    const kept = previousVersion === null ? [version] : [version, previousVersion];
    removeUnreadWalletStores(ctx.paths.tables, kept, wallets.base);
  }
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

/** The public figures' weighting settings (public-weights.ts). */
function publicTrust(config: Context["config"]): PublicTrust {
  return {
    maxAccountShare: config.PUBLIC_MAX_ACCOUNT_SHARE,
    unconfirmedPerConfirmed: config.PUBLIC_UNCONFIRMED_PER_CONFIRMED,
  };
}
