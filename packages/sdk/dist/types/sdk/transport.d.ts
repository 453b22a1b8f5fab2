import type { Envelope } from "../shared/envelope-fields.js";
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
type Timer = ReturnType<typeof setTimeout>;
export declare function unref(timer: Timer): Timer;
export declare class Transport {
    private readonly options;
    private queue;
    private timer;
    private timerDue;
    private inFlight;
    private backoffUntil;
    private failures;
    private key;
    private warned;
    private aborters;
    private closed;
    /** Envelopes of the request in flight (taken off the queue, not yet answered). */
    private sending;
    readonly stats: TransportStats;
    readonly url: string;
    constructor(options: TransportOptions);
    enqueue(envelope: Envelope): void;
    /** Removes queued envelopes that `match` (not yet sent). */
    discard(match: (envelope: Envelope) => boolean): void;
    private trim;
    /** `queued` counts the batch in flight too: a flush that ends during a request has not delivered it. */
    private countQueued;
    private warnOnce;
    private schedule;
    /** Starts sending one batch when nothing is in flight and no backoff is running. */
    private pump;
    /** The oldest envelopes, at most batchSize and `maxBytes` of JSON. */
    private take;
    private putBack;
    private sendBatch;
    /** Sends what is queued until the queue is empty or `timeoutMs` passed; never rejects. */
    flush(timeoutMs: number): Promise<void>;
    /** Page hide: hand everything queued to sendBeacon (else fetch keepalive), in ≤ 60 KiB bodies. */
    beacon(): void;
    /** Flushes within `timeoutMs`, then stops: timers cleared, requests in flight aborted. */
    close(timeoutMs: number): Promise<void>;
}
export {};
