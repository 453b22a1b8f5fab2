// Gets envelopes to POST {endpoint}/v1/ingest without ever blocking or failing the dapp: a bounded
// queue (the oldest envelopes are dropped, and counted, when the service stays unreachable),
// batches by size and by interval, the key in the body (what lets sendBeacon work, docs/sdk.md),
// exponential backoff with jitter that honours Retry-After on 429 and 5xx, a per-request timeout,
// `navigator.sendBeacon` (else fetch keepalive) when the page is hidden, and flush/close bounded in
// time. Timers are unref'd in server runtimes, so the SDK never keeps a process alive.

import type { Envelope } from "../shared/envelope-fields";
import { retryAfterMs } from "../shared/retry-after";

/** The subset of fetch the SDK uses. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  endpoint: string;
  apiKey: Promise<string | undefined>;
  batchSize: number;
  flushIntervalMs: number;
  maxQueue: number;
  requestTimeoutMs: number;
  maxBackoffMs: number;
  fetch?: FetchLike;
  warn: (message: string) => void;
}

export interface TransportStats {
  /** Envelopes not yet acknowledged: waiting in the queue, or in a request still in flight. */
  queued: number;
  /** Envelopes the service acknowledged (202). */
  sent: number;
  /** Envelopes handed to sendBeacon / keepalive fetch on page hide (no answer can be read). */
  beaconed: number;
  /** Envelopes dropped: queue overflow while the service was unreachable, or no API key. */
  dropped: number;
  /** Envelopes the service refused for good (400, 401, 403, 413). */
  rejected: number;
  /** Batches retried after 429, 5xx, a timeout or a network error. */
  retries: number;
  lastError: string | null;
}

/** Largest body of one regular request (the service accepts 1 MiB by default). */
const MAX_BODY_BYTES = 512 * 1024;
/** Browsers cap keepalive/beacon bodies in flight at 64 KiB per page. */
const MAX_BEACON_BYTES = 60 * 1024;

type Timer = ReturnType<typeof setTimeout>;

export function unref(timer: Timer): Timer {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

const isBrowser = () => typeof (globalThis as { document?: unknown }).document !== "undefined";

const INGEST_KEY_PREFIX = "txr_ingest_";
/** A page's window (a key given here is in code anyone can read), whether or not it has a document yet. */
const inBrowserWindow = () => typeof (globalThis as { window?: unknown }).window !== "undefined";

export class Transport {
  private queue: Envelope[] = [];
  private timer: Timer | null = null;
  private timerDue = 0;
  private inFlight: Promise<void> | null = null;
  private backoffUntil = 0;
  private failures = 0;
  private key: string | undefined | null = null;
  private warned = new Set<string>();
  private aborters = new Set<AbortController>();
  private closed = false;
  /** Envelopes of the request in flight (taken off the queue, not yet answered). */
  private sending = 0;
  readonly stats: TransportStats = {
    queued: 0,
    sent: 0,
    beaconed: 0,
    dropped: 0,
    rejected: 0,
    retries: 0,
    lastError: null,
  };
  readonly url: string;

  constructor(private readonly options: TransportOptions) {
    this.url = `${options.endpoint}/v1/ingest`;
    options.apiKey.then(
      (key) => {
        this.key = key;
        if (key === undefined)
          this.warnOnce(
            "no-key",
            "txray: no API key (option apiKey, TXRAY_API_KEY or `txray keys create`); envelopes are dropped",
          );
        else if (inBrowserWindow() && !key.startsWith(INGEST_KEY_PREFIX))
          // Whatever a page ships, anyone can read: only an ingest key is harmless there.
          this.warnOnce(
            "browser-key",
            "txray: this key is not an ingest key (txr_ingest_…), and a key in browser code is public: create one with `txray keys create --kind ingest` (docs/security.md)",
          );
      },
      () => (this.key = undefined),
    );
  }

  enqueue(envelope: Envelope): void {
    if (this.closed) return;
    this.queue.push(envelope);
    this.trim();
    this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
  }

  /** Removes queued envelopes that `match` (not yet sent). */
  discard(match: (envelope: Envelope) => boolean): void {
    this.queue = this.queue.filter((envelope) => !match(envelope));
    this.countQueued();
  }

  private trim(): void {
    const excess = this.queue.length - this.options.maxQueue;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.stats.dropped += excess;
    }
    this.countQueued();
  }

  /** `queued` counts the batch in flight too: a flush that ends during a request has not delivered it. */
  private countQueued(): void {
    this.stats.queued = this.queue.length + this.sending;
  }

  private warnOnce(id: string, message: string): void {
    if (this.warned.has(id)) return;
    this.warned.add(id);
    try {
      this.options.warn(message);
    } catch {}
  }

  private schedule(delay: number): void {
    if (this.closed) return;
    const due = Math.max(Date.now() + delay, this.backoffUntil);
    if (this.timer !== null && this.timerDue <= due) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = unref(
      setTimeout(
        () => {
          this.timer = null;
          this.pump();
        },
        Math.max(0, due - Date.now()),
      ),
    );
  }

  /** Starts sending one batch when nothing is in flight and no backoff is running. */
  private pump(): Promise<void> | null {
    if (this.inFlight || this.queue.length === 0) return this.inFlight;
    if (Date.now() < this.backoffUntil) {
      this.schedule(0);
      return null;
    }
    this.inFlight = this.sendBatch()
      .catch((error) => {
        this.stats.lastError = String(error);
      })
      .finally(() => {
        this.inFlight = null;
        if (this.queue.length > 0)
          this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
      });
    return this.inFlight;
  }

  /** The oldest envelopes, at most batchSize and `maxBytes` of JSON. */
  private take(maxBytes: number, maxCount: number): { batch: Envelope[]; body: string } | null {
    if (this.queue.length === 0 || typeof this.key !== "string") return null;
    const batch: Envelope[] = [];
    let bytes = 64 + this.key.length;
    while (batch.length < maxCount && batch.length < this.queue.length) {
      const size = JSON.stringify(this.queue[batch.length]).length + 1;
      if (batch.length > 0 && bytes + size > maxBytes) break;
      bytes += size;
      batch.push(this.queue[batch.length]);
    }
    this.queue.splice(0, batch.length);
    this.countQueued();
    return { batch, body: JSON.stringify({ apiKey: this.key, envelopes: batch }) };
  }

  private putBack(batch: Envelope[]): void {
    this.queue.unshift(...batch);
    this.trim();
  }

  private async sendBatch(): Promise<void> {
    if (this.key === null) this.key = await this.options.apiKey.catch(() => undefined);
    if (this.key === undefined) {
      this.stats.dropped += this.queue.length;
      this.queue.length = 0;
      this.countQueued();
      return;
    }
    const taken = this.take(MAX_BODY_BYTES, this.options.batchSize);
    if (!taken) return;
    const { batch, body } = taken;
    this.sending = batch.length;
    this.countQueued();
    const abort = new AbortController();
    this.aborters.add(abort);
    const timeout = unref(setTimeout(() => abort.abort(), this.options.requestTimeoutMs));
    let response: Response | null = null;
    let failure: string | null = null;
    try {
      const doFetch: FetchLike = this.options.fetch ?? ((url, init) => globalThis.fetch(url, init));
      response = await doFetch(this.url, {
        method: "POST",
        // text/plain keeps a browser's cross-origin POST a "simple" request (no CORS preflight);
        // the service reads the body as JSON whatever the type.
        headers: { "content-type": isBrowser() ? "text/plain;charset=UTF-8" : "application/json" },
        body,
        signal: abort.signal,
      });
      await response.arrayBuffer().catch(() => null); // drain, so the connection is reused
    } catch (error) {
      failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } finally {
      clearTimeout(timeout);
      this.aborters.delete(abort);
      this.sending = 0;
      this.countQueued();
    }
    if (response && response.status === 202) {
      this.stats.sent += batch.length;
      this.failures = 0;
      return;
    }
    if (response && response.status !== 429 && response.status < 500) {
      this.stats.rejected += batch.length;
      this.stats.lastError = `ingest answered ${response.status}`;
      this.warnOnce(
        `status-${response.status}`,
        `txray: ingest answered ${response.status}; ${batch.length} envelope(s) discarded`,
      );
      return;
    }
    // 429, 5xx, timeout or network error: keep the batch and back off.
    this.stats.lastError = failure ?? `ingest answered ${response!.status}`;
    this.stats.retries++;
    this.putBack(batch);
    this.failures++;
    const told = response ? retryAfterMs(response.headers.get("retry-after")) : null;
    const exponential = Math.min(this.options.maxBackoffMs, 500 * 2 ** Math.min(this.failures - 1, 20));
    const wait =
      told !== null
        ? Math.min(told, 5 * 60_000) + Math.random() * Math.min(1000, told * 0.1 + 100)
        : exponential / 2 + Math.random() * (exponential / 2);
    this.backoffUntil = Date.now() + wait;
    this.schedule(0);
  }

  /** Sends what is queued until the queue is empty or `timeoutMs` passed; never rejects. */
  async flush(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && (this.queue.length > 0 || this.inFlight)) {
      if (this.key === null)
        await race(
          this.options.apiKey.catch(() => undefined),
          deadline,
        );
      const waitFor =
        this.inFlight ?? (Date.now() < this.backoffUntil ? sleep(this.backoffUntil - Date.now()) : this.pump());
      if (!waitFor) break;
      await race(waitFor, deadline);
    }
  }

  /** Page hide: hand everything queued to sendBeacon (else fetch keepalive), in ≤ 60 KiB bodies. */
  beacon(): void {
    if (typeof this.key !== "string") return;
    const nav = (globalThis as { navigator?: { sendBeacon?: (url: string, body: string) => boolean } }).navigator;
    while (this.queue.length > 0) {
      const taken = this.take(MAX_BEACON_BYTES, this.options.batchSize);
      if (!taken) return;
      let ok = false;
      try {
        if (typeof nav?.sendBeacon === "function") ok = nav.sendBeacon(this.url, taken.body);
        else {
          void (this.options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init)))(this.url, {
            method: "POST",
            body: taken.body,
            keepalive: true,
            headers: { "content-type": "text/plain;charset=UTF-8" },
          }).catch(() => {});
          ok = true;
        }
      } catch {
        ok = false;
      }
      if (!ok) {
        this.putBack(taken.batch);
        return;
      }
      this.stats.beaconed += taken.batch.length;
    }
  }

  /** Flushes within `timeoutMs`, then stops: timers cleared, requests in flight aborted. */
  async close(timeoutMs: number): Promise<void> {
    await this.flush(timeoutMs);
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const abort of this.aborters) abort.abort();
  }
}

function sleep(ms: number): Promise<void> {
  // unref: a backoff longer than the caller waits must not keep the process alive.
  return new Promise((resolve) => unref(setTimeout(resolve, Math.max(0, ms))));
}

/** Waits for `promise` or the deadline, whichever comes first; never rejects. */
function race(promise: Promise<unknown>, deadline: number): Promise<void> {
  let timer: Timer | undefined;
  return Promise.race([
    promise.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
  ]).finally(() => clearTimeout(timer));
}
