// Whether the Solana RPC endpoint answers (docs/operations.md, "When the chain cannot be reached"):
// every HTTP request of the RPC clients ends as a success or a failure (an error, a 5xx, a 429, or
// no answer within the client's timeout), and each context keeps one record of them per source
// (`resolve`, `why`, `deploys`). Each source's record is also kept in the control database (at once
// on a change between reachable and unreachable, at most once a second otherwise), so /v1/status,
// answered by the server, sees what the resolver's thread saw. One reading for every surface:
// `chainReading` merges the sources, and the latest outcome of any of them decides reachability.

import type { Context, OwnedPart } from "../../context";
import { readChainHealthRecords, writeChainHealthRecord } from "../../control";

/** A failure's kind, short and free of URLs (an RPC URL may carry an API key). */
export type ChainFailure = "timeout" | "connection" | "http_429" | "http_5xx" | "http_4xx" | "bad_reply";

/** How one HTTP request ended; `method`: the JSON-RPC method it carried (a batch's first), for the counts. */
export type ChainOutcome = ({ ok: true } | { ok: false; failure: ChainFailure }) & { method?: string };

/** One source's record, as kept in the control database. */
export type ChainHealthRecord = {
  reachable: boolean;
  /** When the source's outcomes last changed between success and failure (its first outcome, before that). */
  since: number;
  lastOkAt: number | null;
  lastFailureAt: number | null;
  lastError: ChainFailure | null;
  /** Times of its failures within the last minute (the newest FAILURES_KEPT). */
  failures: number[];
  /**
   * Requests since this context started, by `method result` (result: `ok` or a ChainFailure): the
   * counters /metrics shows. Methods are the few txray calls, so the keys stay few.
   */
  requests?: Record<string, number>;
};

/** What /v1/status shows (`chain`), merged over the sources. */
export type ChainReading = {
  /** null: no RPC request has ended yet. */
  reachable: boolean | null;
  since: number | null;
  lastError: ChainFailure | null;
  lastOkAt: number | null;
  failuresLastMinute: number;
};

const MINUTE_MS = 60_000;
const FAILURES_KEPT = 500;
const WRITE_EVERY_MS = 1_000;

/** One source's outcomes in this context, and the spans during which it failed (for height observations). */
export class ChainHealth {
  private record: ChainHealthRecord | null = null;
  private writtenAt = Number.NEGATIVE_INFINITY;
  /** Spans [from, to] during which this source's requests failed; `to` null while it still fails. */
  private readonly outages: { from: number; to: number | null }[] = [];

  constructor(
    private readonly source: string,
    private readonly clock: () => number,
    private readonly persist: ((source: string, record: ChainHealthRecord) => void) | null,
  ) {}

  note(outcome: ChainOutcome): void {
    const at = this.clock();
    const previous = this.record;
    const changed = previous === null || previous.reachable !== outcome.ok;
    const failures = (previous?.failures ?? []).filter((t) => t > at - MINUTE_MS);
    if (!outcome.ok) {
      failures.push(at);
      if (failures.length > FAILURES_KEPT) failures.splice(0, failures.length - FAILURES_KEPT);
    }
    const requests = { ...previous?.requests };
    const key = `${outcome.method ?? "unknown"} ${outcome.ok ? "ok" : outcome.failure}`;
    requests[key] = (requests[key] ?? 0) + 1;
    this.record = {
      requests,
      reachable: outcome.ok,
      since: changed ? at : previous.since,
      lastOkAt: outcome.ok ? at : (previous?.lastOkAt ?? null),
      lastFailureAt: outcome.ok ? (previous?.lastFailureAt ?? null) : at,
      lastError: outcome.ok ? (previous?.lastError ?? null) : outcome.failure,
      failures,
    };
    if (!outcome.ok && changed) {
      this.outages.push({ from: at, to: null });
      if (this.outages.length > 100) this.outages.shift();
    } else if (outcome.ok && changed && this.outages.length > 0) this.outages[this.outages.length - 1].to = at;
    if (changed || at - this.writtenAt >= WRITE_EVERY_MS) {
      this.writtenAt = at;
      try {
        this.persist?.(this.source, this.record);
      } catch {
        // The control database not writable: this context's own reading still holds.
      }
    }
  }

  /** This source's record (null before its first outcome). */
  current(): ChainHealthRecord | null {
    return this.record;
  }

  /** Whether this source saw a failure at any time within [from, to] (an outage overlapping it). */
  failedWithin(from: number, to: number): boolean {
    return this.outages.some((span) => span.from <= to && (span.to === null || span.to >= from));
  }
}

/** The records of each source in this context (one ChainHealth per source). */
const CHAIN_HEALTH: OwnedPart<Map<string, ChainHealth>> = { name: "chain health", make: () => new Map() };

/** The record of `source`'s RPC outcomes in this context (give its `note` to createRpcClient as `onOutcome`). */
export function chainHealth(ctx: Context, source: string): ChainHealth {
  const sources = ctx.own(CHAIN_HEALTH);
  let health = sources.get(source);
  if (!health) {
    health = new ChainHealth(source, ctx.clock, (name, record) => writeChainHealthRecord(ctx.control, name, record));
    sources.set(source, health);
  }
  return health;
}

/** Each source's record: those kept in the control database, this context's own newer ones over them. */
function sourceRecords(ctx: Context): Map<string, ChainHealthRecord> {
  const records = new Map<string, ChainHealthRecord>();
  try {
    for (const [source, record] of readChainHealthRecords(ctx.control))
      records.set(source, record as ChainHealthRecord);
  } catch {
    // An unreadable control database: this context's records answer alone.
  }
  for (const [source, health] of ctx.own(CHAIN_HEALTH)) {
    const record = health.current();
    if (record) records.set(source, record);
  }
  return records;
}

/**
 * The chain's reachability over every source's record (this context's and those kept in the control database), or
 * over one source's.
 */
export function chainReading(ctx: Context, onlySource?: string): ChainReading {
  const records = sourceRecords(ctx);
  if (onlySource !== undefined) {
    const one = records.get(onlySource);
    return mergeReadings(one ? [one] : [], ctx.clock());
  }
  return mergeReadings([...records.values()], ctx.clock());
}

/** RPC requests by source, method and result (ok or a failure's kind), over every source's record: /metrics's counters. */
export function chainRequestCounts(ctx: Context): { source: string; method: string; result: string; count: number }[] {
  const records = sourceRecords(ctx);
  return [...records].flatMap(([source, record]) =>
    Object.entries(record.requests ?? {}).map(([key, count]) => {
      const [method, result] = key.split(" ");
      return { source, method, result, count };
    }),
  );
}

/** The latest outcome of any source decides; `since` is when the merged state began. */
export function mergeReadings(records: ChainHealthRecord[], now: number): ChainReading {
  const lastOkAt = maxOf(records.map((r) => r.lastOkAt));
  const lastFailureAt = maxOf(records.map((r) => r.lastFailureAt));
  const failuresLastMinute = records.reduce((n, r) => n + r.failures.filter((t) => t > now - MINUTE_MS).length, 0);
  if (lastOkAt === null && lastFailureAt === null)
    return { reachable: null, since: null, lastError: null, lastOkAt: null, failuresLastMinute };
  const reachable = lastFailureAt === null || (lastOkAt !== null && lastOkAt > lastFailureAt);
  const latestFailure = records.find((r) => r.lastFailureAt === lastFailureAt) ?? null;
  // Unreachable since the first failure after the last success anywhere; reachable since the first
  // success after the last failure anywhere (each source's `since` bounds when its state began).
  const current = records.filter((r) => r.reachable === reachable);
  const began = Math.min(...current.map((r) => r.since));
  const since = reachable ? Math.max(began, lastFailureAt ?? began) : Math.max(began, lastOkAt ?? began);
  return {
    reachable,
    since,
    lastError: latestFailure?.lastError ?? null,
    lastOkAt,
    failuresLastMinute,
  };
}

function maxOf(values: (number | null)[]): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && (best === null || v > best)) best = v;
  return best;
}

/** A failed request's kind, from what fetch threw or the HTTP status. */
export function failureOf(error: unknown, status: number | null): ChainFailure {
  if (status !== null) return status === 429 ? "http_429" : status >= 500 ? "http_5xx" : "http_4xx";
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") return "timeout";
  if (error instanceof SyntaxError) return "bad_reply";
  return "connection";
}

/** A failure's kind in words (pages, `why`'s messages). */
export const FAILURE_WORDS: Record<ChainFailure, string> = {
  timeout: "no answer within the timeout",
  connection: "connection failed",
  http_429: "rate limited (HTTP 429)",
  http_5xx: "server error (HTTP 5xx)",
  http_4xx: "request refused (HTTP 4xx)",
  bad_reply: "unreadable answer",
};
