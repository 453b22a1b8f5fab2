// GET /v1/status (public): service version, lake size and backlog, each job's last run and the data
// freshness, so an operator (or a monitor) sees at a glance whether txray is keeping up.

import { readPointer } from "../analytics/serving/pointer";
import { type ChainReading, chainReading } from "../chain/rpc";
import type { Context } from "../context";
import {
  alertCounts,
  consecutiveFailures,
  type JobRun,
  lakeRowCount,
  lastFlushAt,
  lastJobRuns,
  lastSuccessDetails,
  quarantineSummary,
  readSpoolIntegrity,
  recordedSchedule,
  resolverBacklog,
} from "../control";
import { unrecordedFailures } from "../jobs";
import { diskUsage } from "../ops/disk-usage";
import { reusedFor } from "../shared/reuse";
import { BUILD, VERSION } from "../shared/version";
import type { Spool } from "../spool";
import { servingFreshness } from "./freshness";

/** The resolver's backlog, counted at most once a second per data directory (the route is public). */
const reuseBacklog = reusedFor<ReturnType<typeof resolverBacklog>>(1_000);
const cachedResolverBacklog = (ctx: Context) =>
  reuseBacklog(ctx.paths.root, ctx.clock(), () => resolverBacklog(ctx.control, ctx.clock()));

/** The `deferredRows` of a tables run's details (0 when absent). */
const deferredRowsOf = (details: unknown) =>
  Number((details as { deferredRows?: unknown } | null)?.deferredRows ?? 0) || 0;

/**
 * Each job's latest run with its failed runs since its last success, and the failures this process could not record.
 * The resolve job's entry also counts its failed RPC requests of the last minute (`rpcFailuresLastMinute`): a run
 * waiting on an endpoint that does not answer has not failed yet, but its requests have.
 */
function jobRunsWithFailures(ctx: Context) {
  // consecutiveFailures: failed runs since the job's last success (the scheduler retries with backoff).
  const failures = consecutiveFailures(ctx.control);
  const jobs: Record<string, JobRun & { consecutiveFailures: number }> = Object.fromEntries(
    Object.entries(lastJobRuns(ctx.control)).map(([name, run]) => [
      name,
      { ...run, consecutiveFailures: failures[name] ?? 0 },
    ]),
  );
  // Failures this process could not record (the control database was not writable either).
  for (const [name, failure] of unrecordedFailures(ctx)) {
    const recorded = jobs[name];
    jobs[name] = {
      lastRunAt: failure.at,
      ok: false,
      durationMs: null,
      error: failure.error,
      details: null,
      lastFinished: null,
      consecutiveFailures: (recorded?.ok === false ? recorded.consecutiveFailures : 0) + failure.consecutive,
    };
  }
  const resolverRpc = resolverReading(ctx);
  if (jobs.resolve && resolverRpc)
    Object.assign(jobs.resolve, {
      rpcFailuresLastMinute: resolverRpc.failuresLastMinute,
      rpcLastError: resolverRpc.reachable === false ? resolverRpc.lastError : null,
    });
  return jobs;
}

/** The resolver's own RPC outcomes (its thread keeps them in the control database); null before it made a request. */
function resolverReading(ctx: Context): ChainReading | null {
  const reading = chainReading(ctx, "resolve");
  return reading.reachable === null ? null : reading;
}

/**
 * How old the analytical answers are, and why when stale (also what GET /readyz checks on a read node). The refresh
 * interval is the deployment's scheduler's as it recorded it; a process that runs none (`bun run mcp`) and finds no
 * record says so (`refreshEverySource: "unknown"`) and falls back on its own TABLES_INTERVAL_MS.
 */
function servingFreshnessOf(ctx: Context, jobs: ReturnType<typeof jobRunsWithFailures>, lakeEnvelopes: number) {
  const recorded = recordedSchedule(ctx.control)?.intervalsMs.tables;
  const freshness = servingFreshness({
    pointer: readPointer(ctx.paths),
    lastRun: jobs.tables,
    consecutiveFailures: jobs.tables?.consecutiveFailures ?? 0,
    deferredRows: deferredRowsOf(lastSuccessDetails(ctx.control, "tables")),
    lakeEnvelopes,
    refreshEveryMs: recorded ?? ctx.config.TABLES_INTERVAL_MS,
    now: ctx.clock(),
  });
  return { ...freshness, refreshEverySource: recorded === undefined ? ("unknown" as const) : ("scheduler" as const) };
}

/** `spool`: this process's spool (or anything that measures the backlog); null: not known here. */
export function serviceStatus(ctx: Context, spool: Pick<Spool, "backlogBytes"> | null) {
  const jobs = jobRunsWithFailures(ctx);
  const lastFlush = lastFlushAt(ctx.control);
  const envelopes = lakeRowCount(ctx.control);
  return {
    version: VERSION,
    // The git commit this process runs (two builds of one version tell apart); "unknown" outside a checkout.
    build: BUILD,
    lake: {
      envelopes,
      spoolBacklog: spool ? spool.backlogBytes() : null,
      lastFlushAt: lastFlush,
      // Batches flush skipped because their checksum failed (acknowledged data lost to corruption) and bytes of torn,
      // never-acknowledged batches.
      spoolIntegrity: readSpoolIntegrity(ctx.control),
      // Additive (docs/api.md): spool segments flush set aside because their rows cannot be read, and the envelopes
      // they hold.
      quarantine: quarantineSummary(ctx.control),
    },
    // Additive (docs/api.md): the resolver's open attempts and envelopes not yet taken in.
    resolver: cachedResolverBacklog(ctx),
    freshness: {
      lastFlushAt: lastFlush,
      lastResolveAt: jobs.resolve?.lastRunAt ?? null,
      lastTablesAt: jobs.tables?.lastRunAt ?? null,
      // Additive (docs/api.md): how old the analytical answers are, and why when they are stale.
      serving: servingFreshnessOf(ctx, jobs, envelopes),
    },
    // Additive (docs/api.md): whether the Solana RPC endpoint answers, as the resolver's and why's requests found it.
    chain: chainReading(ctx),
    jobs,
    // Additive (docs/api.md): bytes on disk by part and per attempt in the lake.
    disk: diskUsage(ctx.paths, envelopes, ctx.clock()),
    // Additive (docs/alerts.md#status): rules, firing subjects and deliveries, as counts only (this route is public).
    alerts: alertCounts(ctx.control, ctx.clock()),
  };
}
