// GET /metrics: the server's figures in the Prometheus text exposition format (version 0.0.4), for an
// operator's scraper (docs/operations.md, "Metrics and health"). Two kinds of figures:
// - what this process counts as requests pass (ingest, HTTP durations): `ServerMetrics`, a part the
//   context owns (ctx.own(SERVER_METRICS)), so two servers in one process never share counts;
// - what /v1/status computes (spool backlog, resolver lag, job runs, disk use): read from it at
//   each scrape, so the two never disagree.
// Label values are route patterns, job names and status codes: never a path, a signature or a key.

import { createHash, timingSafeEqual } from "node:crypto";
import type { ResolveSummary } from "../chain/resolve";
import { chainRequestCounts } from "../chain/rpc";
import type { Context, OwnedPart, TimerHandle } from "../context";
import { lakeRowCount } from "../control";
import { reusedFor } from "../shared/reuse";
import type { Spool } from "../spool";
import { serviceStatus } from "./status";

type Labels = Record<string, string>;

/** A label value escaped as the text format requires: backslash, double quote and line feed. */
export const escapeLabelValue = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** A help text escaped as the text format requires: backslash and line feed. */
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

const labelText = (labels: Labels) => {
  const pairs = Object.entries(labels);
  return pairs.length === 0
    ? ""
    : `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
};

/** A sample value as the text format writes it (`+Inf`, `-Inf`, `NaN` by name). */
const valueText = (value: number) =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value);

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

type Family = { name: string; help: string; type: "counter" | "gauge" | "histogram"; lines(): string[] };

/** One series per distinct label set, kept in first-seen order. */
class Series<T> {
  private readonly byKey = new Map<string, { labels: Labels; value: T }>();
  constructor(
    private readonly labelNames: readonly string[],
    private readonly initial: () => T,
  ) {}
  at(labels: Labels): T {
    const names = Object.keys(labels);
    if (names.length !== this.labelNames.length || !this.labelNames.every((name) => name in labels))
      throw new Error(`labels ${names.join(",")} do not match ${this.labelNames.join(",")}`);
    const key = this.labelNames.map((name) => labels[name]).join("\u0000");
    let entry = this.byKey.get(key);
    if (!entry) {
      entry = {
        labels: Object.fromEntries(this.labelNames.map((name) => [name, labels[name]])),
        value: this.initial(),
      };
      this.byKey.set(key, entry);
    }
    return entry.value;
  }
  entries() {
    return [...this.byKey.values()];
  }
}

const checkNames = (name: string, labelNames: readonly string[]) => {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
  for (const label of labelNames)
    if (!LABEL_NAME.test(label) || label.startsWith("__") || label === "le")
      throw new Error(`invalid label name ${label}`);
};

export class Counter implements Family {
  readonly type = "counter";
  private readonly series: Series<{ value: number }>;
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[] = [],
  ) {
    checkNames(name, labelNames);
    this.series = new Series(labelNames, () => ({ value: 0 }));
  }
  inc(labels: Labels = {}, by = 1) {
    if (!(by >= 0)) throw new Error(`a counter only goes up (${this.name} by ${by})`);
    this.series.at(labels).value += by;
  }
  lines() {
    return this.series
      .entries()
      .map(({ labels, value }) => `${this.name}${labelText(labels)} ${valueText(value.value)}`);
  }
}

export class Gauge implements Family {
  readonly type = "gauge";
  private readonly series: Series<{ value: number }>;
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[] = [],
  ) {
    checkNames(name, labelNames);
    this.series = new Series(labelNames, () => ({ value: 0 }));
  }
  set(value: number, labels: Labels = {}) {
    this.series.at(labels).value = value;
  }
  lines() {
    return this.series
      .entries()
      .map(({ labels, value }) => `${this.name}${labelText(labels)} ${valueText(value.value)}`);
  }
}

export class Histogram implements Family {
  readonly type = "histogram";
  private readonly series: Series<{ counts: number[]; sum: number; count: number }>;
  /** `buckets`: the upper bounds, ascending; `+Inf` is added. */
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    checkNames(name, labelNames);
    if (buckets.some((bound, i) => i > 0 && bound <= buckets[i - 1])) throw new Error("buckets must ascend");
    this.series = new Series(labelNames, () => ({ counts: buckets.map(() => 0), sum: 0, count: 0 }));
  }
  observe(value: number, labels: Labels = {}) {
    const entry = this.series.at(labels);
    for (const [i, bound] of this.buckets.entries()) if (value <= bound) entry.counts[i]++;
    entry.sum += value;
    entry.count++;
  }
  lines() {
    return this.series
      .entries()
      .flatMap(({ labels, value }) => [
        ...this.buckets.map(
          (bound, i) => `${this.name}_bucket${labelText({ ...labels, le: valueText(bound) })} ${value.counts[i]}`,
        ),
        `${this.name}_bucket${labelText({ ...labels, le: "+Inf" })} ${value.count}`,
        `${this.name}_sum${labelText(labels)} ${valueText(value.sum)}`,
        `${this.name}_count${labelText(labels)} ${value.count}`,
      ]);
  }
}

/** Families in the text format: each with its HELP and TYPE lines, then its samples. */
export function renderFamilies(families: readonly Family[]): string {
  return `${families
    .flatMap((family) => [
      `# HELP ${family.name} ${escapeHelp(family.help)}`,
      `# TYPE ${family.name} ${family.type}`,
      ...family.lines(),
    ])
    .join("\n")}\n`;
}

/** Whether an `authorization` header carries `Bearer <token>` (compared in constant time). */
export function bearerTokenMatches(authorization: string | null, token: string): boolean {
  const presented = authorization?.match(/^Bearer +(\S+) *$/i)?.[1];
  if (presented === undefined) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Request durations from 5 ms to 10 s: a read answers in milliseconds, a cold analytical query in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const STANDARD_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What this process counts as requests pass; one per context (SERVER_METRICS). */
export class ServerMetrics {
  /**
   * The figures of /v1/status a scrape reads, reused for a second while the lake's envelope count is
   * unchanged: /metrics is not rate limited, and a status walks the control plane (and, on a new
   * count, the data directory's size).
   */
  readonly statusFor = reusedFor<ReturnType<typeof serviceStatus>>(1_000);
  readonly ingestEnvelopes = new Counter(
    "txray_ingest_envelopes_accepted_total",
    "Envelopes accepted by POST /v1/ingest (answered 202, durable in the spool).",
  );
  readonly ingestRejected = new Counter(
    "txray_ingest_batches_rejected_total",
    "Batches POST /v1/ingest refused, by HTTP status (nothing of them was accepted).",
    ["status"],
  );
  readonly requestDuration = new Histogram(
    "txray_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route pattern (`unmatched`: no route) and status.",
    ["method", "route", "status"],
    DURATION_BUCKETS,
  );

  /** An ingest answer: its accepted envelopes when 202, else one rejected batch of its status. */
  ingestAnswered(status: number, accepted: number) {
    if (status === 202) this.ingestEnvelopes.inc({}, accepted);
    else this.ingestRejected.inc({ status: String(status) });
  }

  /**
   * A request refused before routing (a declared body above every route's limit): counted as an
   * ingest batch refused when it was one, so that the rejected family misses no refusal.
   */
  refusedBeforeRouting(request: Request, status: number) {
    if (request.method === "POST" && new URL(request.url).pathname === "/v1/ingest") this.ingestAnswered(status, 0);
  }

  /** `method`: any other than the standard ones is counted as `other` (a client chooses it: no label per value). */
  requestAnswered(method: string, route: string, status: number, seconds: number) {
    const known = STANDARD_METHODS.has(method) ? method : "other";
    this.requestDuration.observe(seconds, { method: known, route, status: String(status) });
  }
}

export const SERVER_METRICS: OwnedPart<ServerMetrics> = { name: "server metrics", make: () => new ServerMetrics() };

/** What the scrape reads of process.memoryUsage(); only `rss` is required of an injected one. */
type MemoryUsage = { rss: number; heapUsed?: number; heapTotal?: number; external?: number };

/**
 * The scrape: this process's counts, then the figures /v1/status computes. `spool`: this process's
 * spool (null without the ingest role: no backlog figure).
 */
export function metricsText(
  ctx: Context,
  spool: Pick<Spool, "backlogBytes"> | null,
  measured: { duckdbBytes?: number | null; memory?: () => MemoryUsage } = {},
): string {
  const memory = (measured.memory ?? (() => process.memoryUsage()))();
  const counted = ctx.own(SERVER_METRICS);
  const status = counted.statusFor("status", ctx.clock(), () => serviceStatus(ctx, spool), lakeRowCount(ctx.control));
  const gauge = (name: string, help: string, value: number | null, labels: Labels = {}) => {
    const family = new Gauge(name, help, Object.keys(labels));
    if (value !== null) family.set(value, labels);
    return family;
  };
  const spoolBacklog = gauge(
    "txray_spool_backlog_bytes",
    "Bytes acknowledged to clients and not yet flushed to the lake (this node's spool).",
    spool ? spool.backlogBytes() : null, // in memory: read at every scrape
  );
  const lakeEnvelopes = gauge("txray_lake_envelopes", "Envelopes in the lake.", status.lake.envelopes);
  const resolverLag = gauge(
    "txray_resolver_lag_seconds",
    "How long the oldest work the resolver has not done yet has waited (an attempt due, a segment not taken in).",
    status.resolver.lagMs / 1000,
  );
  const openAttempts = gauge(
    "txray_resolver_open_attempts",
    "Attempts the resolver holds open (neither landed nor expired yet).",
    status.resolver.pendingAttempts,
  );
  const awaitingIntake = gauge(
    "txray_resolver_awaiting_intake_envelopes",
    "Envelopes in the lake the resolver has not taken in yet.",
    status.resolver.awaitingIntake,
  );
  const servingStale = gauge(
    "txray_serving_stale",
    "1 when the analytical answers are older than they should be (/v1/status freshness.serving.stale), else 0.",
    status.freshness.serving.stale ? 1 : 0,
  );
  const servingAge = gauge(
    "txray_serving_age_seconds",
    "Age of the serving version the analytical routes answer from (absent before the first build).",
    status.freshness.serving.dataUntil === null
      ? null
      : Math.max(0, ctx.clock() - status.freshness.serving.dataUntil) / 1000,
  );
  const chainUnreachable = gauge(
    "txray_chain_unreachable",
    "1 when the latest Solana RPC request failed or got no answer in time (/v1/status chain.reachable false), else 0.",
    status.chain.reachable === false ? 1 : 0,
  );
  const chainFailures = gauge(
    "txray_chain_failures_last_minute",
    "Solana RPC requests that failed or got no answer in time in the last minute (resolver, deploys job and why).",
    status.chain.failuresLastMinute,
  );
  const jobLastRun = new Gauge("txray_job_last_run_timestamp_seconds", "When the job's latest run started.", ["job"]);
  const jobLastSuccess = new Gauge(
    "txray_job_last_run_success",
    "1 when the job's latest finished run succeeded, else 0.",
    ["job"],
  );
  const jobDuration = new Gauge("txray_job_last_duration_seconds", "Duration of the job's latest finished run.", [
    "job",
  ]);
  const jobFailures = new Gauge(
    "txray_job_consecutive_failures",
    "Failed runs of the job since its last success (0 while it succeeds).",
    ["job"],
  );
  for (const [job, run] of Object.entries(status.jobs)) {
    const finished = run.ok === null ? run.lastFinished : { ok: run.ok, durationMs: run.durationMs };
    jobLastRun.set(run.lastRunAt / 1000, { job });
    if (finished) {
      jobLastSuccess.set(finished.ok ? 1 : 0, { job });
      if (finished.durationMs !== null) jobDuration.set(finished.durationMs / 1000, { job });
    }
    jobFailures.set(run.consecutiveFailures, { job });
  }
  // The resolver's call budget as its latest finished run left it (the run reports it: the budget lives on the
  // resolver's thread). Not txray_rpc_requests_total over the rate: that counts HTTP requests, the budget each call
  // of a JSON-RPC batch.
  const resolveRun = status.jobs.resolve;
  const callBudget = (
    (resolveRun?.ok === null ? resolveRun.lastFinished?.details : resolveRun?.details) as
      | Partial<Pick<ResolveSummary, "callBudget">>
      | null
      | undefined
  )?.callBudget;
  const budgetRate = gauge(
    "txray_resolver_rpc_budget_calls_per_second",
    "RESOLVE_RPC_CALLS_PER_SECOND: JSON-RPC calls a second the resolver may make on average (absent without a limit).",
    ctx.config.RESOLVE_RPC_CALLS_PER_SECOND === 0 ? null : ctx.config.RESOLVE_RPC_CALLS_PER_SECOND,
  );
  const budgetAvailable = gauge(
    "txray_resolver_rpc_budget_available_calls",
    "Calls the resolver's budget held at the end of its latest finished run (at most 10 s of the rate; negative after a round that overspent).",
    callBudget?.availableCalls ?? null,
  );
  const budgetDeferred = gauge(
    "txray_resolver_sends_deferred_by_budget",
    "Sends the resolver's latest finished run left for later because its call budget could not pay for their look-up.",
    callBudget?.deferredSends ?? null,
  );
  const diskBytes = new Gauge("txray_disk_bytes", "Bytes on disk by part of the data directory.", ["part"]);
  for (const part of ["lake", "spool", "tables", "control", "idl", "retired", "staging"] as const)
    diskBytes.set(status.disk[`${part}Bytes`], { part });
  const resident = gauge("process_resident_memory_bytes", "Resident memory of this process, in bytes.", memory.rss);
  // The JavaScript heap apart from the rest of resident memory (DuckDB, SQLite, mapped files): a growing
  // resident figure with a flat heap points at native memory, and the other way round.
  const heapUsed = gauge(
    "nodejs_heap_size_used_bytes",
    "JavaScript heap in use on the main thread, in bytes (process.memoryUsage().heapUsed).",
    memory.heapUsed ?? null,
  );
  const heapTotal = gauge(
    "nodejs_heap_size_total_bytes",
    "JavaScript heap size on the main thread as the runtime reports it, in bytes (process.memoryUsage().heapTotal; Bun's can be below heapUsed).",
    memory.heapTotal ?? null,
  );
  const external = gauge(
    "nodejs_external_memory_bytes",
    "Memory outside the JavaScript heap that JavaScript objects hold (buffers), in bytes.",
    memory.external ?? null,
  );
  const duckdbMemory = gauge(
    "txray_duckdb_memory_bytes",
    "Memory this process's DuckDB instance holds (duckdb_memory()), in bytes; absent when it did not answer in time.",
    measured.duckdbBytes ?? null,
  );
  const flushAge = gauge(
    "txray_lake_last_flush_age_seconds",
    "Time since the latest flush of a spool segment into the lake (absent before the first).",
    status.lake.lastFlushAt === null ? null : Math.max(0, ctx.clock() - status.lake.lastFlushAt) / 1000,
  );
  const rpcRequests = new Counter(
    "txray_rpc_requests_total",
    "Solana RPC HTTP requests by source (resolve, deploys, why), JSON-RPC method (a batch's first) and result (ok or the failure's kind), since each process started.",
    ["source", "method", "result"],
  );
  for (const { source, method, result, count } of chainRequestCounts(ctx))
    rpcRequests.inc({ source, method, result }, count);
  const alertDeliveries = new Gauge(
    "txray_alert_deliveries_last24h",
    "Alert deliveries created in the last 24 hours, by outcome (sent, failed, summarized by the flood cap).",
    ["result"],
  );
  const alertsPending = gauge(
    "txray_alert_deliveries_pending",
    "Alert deliveries waiting to be sent or retried.",
    status.alerts?.pending ?? null,
  );
  if (status.alerts)
    for (const result of ["sent", "failed", "summarized"] as const)
      alertDeliveries.set(status.alerts.last24h[result], { result });
  return renderFamilies([
    counted.ingestEnvelopes,
    counted.ingestRejected,
    counted.requestDuration,
    spoolBacklog,
    lakeEnvelopes,
    resolverLag,
    openAttempts,
    awaitingIntake,
    servingStale,
    servingAge,
    chainUnreachable,
    chainFailures,
    jobLastRun,
    jobLastSuccess,
    jobDuration,
    jobFailures,
    budgetRate,
    budgetAvailable,
    budgetDeferred,
    diskBytes,
    resident,
    heapUsed,
    heapTotal,
    external,
    duckdbMemory,
    flushAge,
    rpcRequests,
    alertDeliveries,
    alertsPending,
  ]);
}

/** The DuckDB instance's memory (duckdb_memory()), or null when it does not answer within a second (a busy pool). */
export async function duckdbMemoryBytes(ctx: Context): Promise<number | null> {
  const query = ctx.duck
    .all<{ bytes: bigint | number | null }>("SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()")
    .then((rows) => (rows[0]?.bytes === null || rows[0]?.bytes === undefined ? null : Number(rows[0].bytes)))
    .catch(() => null);
  let timer: TimerHandle | null = null;
  const late = new Promise<null>((resolve) => {
    timer = ctx.timers.set(() => resolve(null), 1_000);
  });
  try {
    return await Promise.race([query, late]);
  } finally {
    if (timer) ctx.timers.clear(timer);
  }
}
