// The txray client SDK (`import { createTxray } from "txray/sdk"`): one line in a dapp and every send
// attempt becomes a telemetry envelope (docs/sdk.md, docs/architecture.md "The envelope"). Runs in browsers, Node ≥ 20
// and Bun; no server code and no runtime dependency (web3.js and kit are the dapp's own: the SDK
// only wraps the objects it is handed). Usage and exactly what is sent: docs/sdk.md.
//
// Contract with the dapp: its calls return the same values and throw the same errors as without
// the SDK; nothing the SDK does on its own (parsing, hashing, HTTP) can throw into a send, block it
// or delay it beyond a few microseconds. After createTxray has validated its options, no SDK method
// throws.

import { resolveApiKey, resolveEndpoint } from "./config";
import { rpcHash, rpcLabel, UNKNOWN_RPC } from "./identity";
import { instrumentKitRpc } from "./kit";
import { Recorder, type Source } from "./recorder";
import { type FetchLike, Transport, type TransportStats } from "./transport";
import { SDK_VERSION } from "./version";
import { instrumentConnection, type Web3ConnectionLike } from "./web3";

export type { Envelope } from "../shared/envelope-fields";
export type { FetchLike, TransportStats };
export { rpcHash, rpcLabel, SDK_VERSION };

export interface TxrayOptions {
  /**
   * Ingest key (`txr_ingest_…`; an admin key `txr_live_…` works too, but never ship one in a
   * browser). Default: TXRAY_API_KEY, else the CLI's config file (server runtimes).
   */
  apiKey?: string;
  /** txray base URL. Default: TXRAY_ENDPOINT, else http://127.0.0.1:8790. */
  endpoint?: string;
  /** Your programs: an attempt's `program` is the first instruction's program among them. */
  programs?: string[];
  /** "hash": send a salted SHA-256 of the payer instead of its address. Default "plain". */
  privacy?: "plain" | "hash";
  /** Salt of the payer hash; required with privacy "hash". */
  salt?: string;
  /** Wallet adapter name, or a function read for each attempt (e.g. `() => wallet?.adapter.name`). */
  walletAdapter?: string | (() => string | null | undefined);
  /** Envelopes per request (default 50, at most 1000). */
  batchSize?: number;
  /** Longest time an envelope waits before its batch is sent (default 2000 ms). */
  flushIntervalMs?: number;
  /** Most envelopes kept while the service is unreachable; the oldest are dropped (default 1000). */
  maxQueue?: number;
  /** Longest flush() and close() take (default 5000 ms). */
  flushTimeoutMs?: number;
  /** Report simulateTransaction calls that fail as preflight attempts (default true). */
  reportSimulationFailures?: boolean;
  /** fetch to use (default globalThis.fetch). */
  fetch?: FetchLike;
  /** Where the SDK's rare warnings go (default console.warn). */
  onWarning?: (message: string) => void;
}

export interface TxrayStats extends TransportStats {
  /** Attempts observed that could not become an envelope (unparsable bytes, no block height). */
  skipped: number;
}

export interface Txray {
  /** Instruments a @solana/web3.js 1.x Connection in place and returns it. */
  instrument<C extends Web3ConnectionLike>(connection: C): C;
  /** Returns an instrumented @solana/kit RPC (createSolanaRpc); pass its URL for rpcHash/rpcLabel. */
  instrumentRpc<R extends object>(rpc: R, rpcUrl?: string): R;
  /** Sends everything observed so far; resolves within flushTimeoutMs even when the service is down. */
  flush(): Promise<void>;
  /** Flushes (bounded), then stops: later attempts are no longer reported. */
  close(): Promise<void>;
  stats(): TxrayStats;
  readonly sdkVersion: string;
}

const positive = (name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER) => {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`txray: ${name} must be a positive number`);
  return Math.min(Math.floor(value), max);
};

export function createTxray(options: TxrayOptions = {}): Txray {
  const privacy = options.privacy ?? "plain";
  if (privacy !== "plain" && privacy !== "hash") throw new TypeError('txray: privacy must be "plain" or "hash"');
  if (privacy === "hash" && !options.salt) throw new TypeError('txray: privacy "hash" needs a salt');
  const endpoint = resolveEndpoint(options.endpoint);
  try {
    new URL(endpoint);
  } catch {
    throw new TypeError(`txray: endpoint is not a URL`);
  }
  const batchSize = positive("batchSize", options.batchSize, 50, 1000);
  const maxQueue = positive("maxQueue", options.maxQueue, 1000);
  const flushTimeoutMs = positive("flushTimeoutMs", options.flushTimeoutMs, 5000);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const wallet = options.walletAdapter;
  const walletAdapter = typeof wallet === "function" ? () => wallet() ?? "" : () => wallet ?? "";

  const transport = new Transport({
    endpoint,
    apiKey: resolveApiKey(options.apiKey),
    batchSize,
    flushIntervalMs: positive("flushIntervalMs", options.flushIntervalMs, 2000),
    maxQueue,
    requestTimeoutMs: 10_000,
    maxBackoffMs: 60_000,
    fetch: options.fetch,
    warn,
  });
  const recorder = new Recorder(
    {
      programs: options.programs ? new Set(options.programs) : null,
      privacy,
      salt: options.salt ?? "",
      walletAdapter,
      maxPending: maxQueue,
    },
    transport,
  );
  const simulationFailures = options.reportSimulationFailures ?? true;

  // One Source per RPC origin; rpcHash is computed lazily (off the send path), once.
  const makeSource = (url: string, blockHeight: () => Promise<number>): Source => {
    let hash: string | null = null;
    let label: string | null = null;
    return {
      get rpcHash() {
        if (hash === null) {
          try {
            hash = rpcHash(url);
          } catch {
            hash = rpcHash(UNKNOWN_RPC);
          }
        }
        return hash;
      },
      get rpcLabel() {
        return (label ??= rpcLabel(url));
      },
      blockHeight,
    };
  };

  // Browsers: hand the queue to sendBeacon when the page is hidden or unloaded.
  const hide = () => {
    try {
      recorder.drainSync();
      transport.beacon();
    } catch {}
  };
  const onVisibility = () => {
    if ((globalThis as { document?: { visibilityState?: string } }).document?.visibilityState === "hidden") hide();
  };
  const win = globalThis as {
    addEventListener?: typeof addEventListener;
    removeEventListener?: typeof removeEventListener;
    document?: Document;
  };
  const browser = typeof win.document !== "undefined" && typeof win.addEventListener === "function";
  if (browser) {
    win.addEventListener!("pagehide", hide);
    win.document!.addEventListener("visibilitychange", onVisibility);
  }

  // Server runtimes: a script that ends without close() still sends what it queued (bounded).
  const flushAll = async () => {
    try {
      const deadline = Date.now() + flushTimeoutMs;
      await withDeadline(recorder.settle(), deadline);
      await transport.flush(Math.max(0, deadline - Date.now()));
    } catch {}
  };
  const flushAtExit = flushAll;
  if (!browser) atExit.add(flushAtExit);

  let closed = false;
  return {
    sdkVersion: SDK_VERSION,
    instrument(connection) {
      try {
        return instrumentConnection(connection, recorder, makeSource, simulationFailures);
      } catch {
        return connection;
      }
    },
    instrumentRpc(rpc, rpcUrl) {
      try {
        return instrumentKitRpc(
          rpc,
          recorder,
          (blockHeight) => makeSource(rpcUrl ?? UNKNOWN_RPC, blockHeight),
          simulationFailures,
        );
      } catch {
        return rpc;
      }
    },
    flush: flushAll,
    async close() {
      if (closed) return;
      closed = true;
      atExit.delete(flushAtExit);
      try {
        const deadline = Date.now() + flushTimeoutMs;
        await withDeadline(recorder.settle(), deadline);
        recorder.closed = true;
        await transport.close(Math.max(0, deadline - Date.now()));
        if (browser) {
          win.removeEventListener!("pagehide", hide);
          win.document!.removeEventListener("visibilitychange", onVisibility);
        }
      } catch {}
    },
    stats() {
      return { ...transport.stats, skipped: recorder.skipped };
    },
  };
}

/** Flushes of live SDK instances, run once when a Node/Bun process is about to exit (beforeExit). */
const atExit = new Set<() => Promise<void>>();
{
  const p = (globalThis as { process?: { once?: (event: string, listener: () => void) => void } }).process;
  if (typeof p?.once === "function" && typeof (globalThis as { document?: unknown }).document === "undefined") {
    p.once("beforeExit", () => {
      for (const flush of atExit) flush().catch(() => {});
      atExit.clear();
    });
  }
}

function withDeadline(promise: Promise<unknown>, deadline: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
  ]).finally(() => clearTimeout(timer));
}
