// The jobs' Solana JSON-RPC client (SOLANA_RPC_URL): plain JSON-RPC 2.0 over fetch with request
// batching, a concurrency limit, and retries with exponential backoff (honouring Retry-After) on
// 429, 5xx and network errors. Every HTTP request is counted, so the resolver's cost per attempt is
// measurable (bench resolve: rpcRequestsPer1000Attempts).

import type { Logger } from "../../shared/logger";
import { retryAfterMs as parseRetryAfter } from "../../shared/retry-after";
import { rpcOrigin } from "../../shared/rpc-identity";
import { type ChainOutcome, failureOf } from "./health";

export type RpcCall = { method: string; params: unknown[] };

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export type RpcClientOptions = {
  url: string;
  concurrency?: number;
  maxRetries?: number;
  /** Base backoff in ms (doubles each retry, with jitter). */
  backoffMs?: number;
  /** Longest wait for one HTTP request (a hung endpoint counts as a failure and is retried); default 30 s. */
  timeoutMs?: number;
  /**
   * Longest time one call or batch may take, retries included: no retry starts past it and the last
   * request's timeout is cut to it (`why` answers within a few seconds; the jobs have no deadline).
   */
  deadlineMs?: number;
  /** Told how each HTTP request ended (chain health, health.ts): a hung request is a `timeout` failure. */
  onOutcome?: (outcome: ChainOutcome) => void;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Wall time for the deadline (the context's clock). */
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
};

export type RpcClient = {
  /** One JSON-RPC call (one HTTP request). */
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** Many calls in one HTTP request; each result or its RpcError, in order. */
  batch<T>(calls: RpcCall[]): Promise<(T | RpcError)[]>;
  stats(): { httpRequests: number; calls: number; retries: number };
};

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const concurrency = options.concurrency ?? 4;
  const maxRetries = options.maxRetries ?? 5;
  const backoffMs = options.backoffMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms));
  const clock = options.clock ?? Date.now;
  const stats = { httpRequests: 0, calls: 0, retries: 0 };
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  let nextId = 1;

  async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (inFlight >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
    try {
      return await work();
    } finally {
      inFlight--;
      waiting.shift()?.();
    }
  }

  /** `method`: the JSON-RPC method the request carries (a batch's first), for the outcome's counts. */
  async function post(body: unknown, method: string): Promise<unknown> {
    const deadline = options.deadlineMs === undefined ? Number.POSITIVE_INFINITY : clock() + options.deadlineMs;
    for (let attempt = 0; ; attempt++) {
      let retryAfterMs: number | null = null;
      let failure: string;
      try {
        stats.httpRequests++;
        const response = await withSlot(() =>
          doFetch(options.url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(Math.max(1, Math.min(timeoutMs, deadline - clock()))),
          }),
        );
        if (response.ok) {
          const reply = await response.json().catch((error: unknown) => {
            options.onOutcome?.({ ok: false, failure: failureOf(error, null), method });
            throw new RpcError(`unreadable answer from ${redact(options.url)}`, null);
          });
          options.onOutcome?.({ ok: true, method });
          return reply;
        }
        options.onOutcome?.({ ok: false, failure: failureOf(null, response.status), method });
        failure = `HTTP ${response.status}`;
        retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        if (response.status !== 429 && response.status < 500)
          throw new RpcError(`${failure} from ${redact(options.url)}`, null);
      } catch (error) {
        if (error instanceof RpcError) throw error;
        options.onOutcome?.({ ok: false, failure: failureOf(error, null), method });
        failure = error instanceof Error ? error.message : String(error);
      }
      const delay = Math.min(retryAfterMs ?? backoffMs * 2 ** attempt * (0.5 + Math.random()), 30_000);
      if (attempt >= maxRetries || clock() + delay >= deadline)
        throw new RpcError(`${failure} from ${redact(options.url)} after ${attempt + 1} attempts`, null);
      stats.retries++;
      options.logger?.debug("rpc retry", { failure, delay });
      await sleep(delay);
    }
  }

  function unwrap(reply: { result?: unknown; error?: { code: number; message: string; data?: unknown } }): unknown {
    if (reply.error) return new RpcError(reply.error.message, reply.error.code, reply.error.data);
    return reply.result;
  }

  return {
    async call<T>(method: string, params: unknown[] = []) {
      stats.calls++;
      const reply = (await post({ jsonrpc: "2.0", id: nextId++, method, params }, method)) as Parameters<
        typeof unwrap
      >[0];
      const value = unwrap(reply);
      if (value instanceof RpcError) throw value;
      return value as T;
    },
    async batch<T>(calls: RpcCall[]) {
      if (calls.length === 0) return [];
      stats.calls += calls.length;
      const firstId = nextId;
      nextId += calls.length;
      const replies = (await post(
        calls.map((c, i) => ({ jsonrpc: "2.0", id: firstId + i, method: c.method, params: c.params })),
        calls[0].method,
      )) as unknown;
      if (!Array.isArray(replies)) {
        const single = unwrap(replies as Parameters<typeof unwrap>[0]);
        throw single instanceof RpcError ? single : new RpcError("batch answered with a single reply", null);
      }
      const byId = new Map<number, Parameters<typeof unwrap>[0]>();
      for (const reply of replies) byId.set(reply.id, reply);
      return calls.map((_, i) => {
        const reply = byId.get(firstId + i);
        return (reply ? unwrap(reply) : new RpcError("missing reply in batch", null)) as T | RpcError;
      });
    },
    stats: () => ({ ...stats }),
  };
}

/** An RPC URL may carry an API key in its path or query: never log more than the origin. */
const redact = (url: string): string => rpcOrigin(url, "rpc");
