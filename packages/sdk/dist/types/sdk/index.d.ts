import { rpcHash, rpcLabel } from "./identity.js";
import { type FetchLike, type TransportStats } from "./transport.js";
import { SDK_VERSION } from "./version.js";
import { type Web3ConnectionLike } from "./web3.js";
export type { Envelope } from "../shared/envelope-fields.js";
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
export declare function createTxray(options?: TxrayOptions): Txray;
