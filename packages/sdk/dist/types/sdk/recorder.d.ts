import { type Transport } from "./transport.js";
/** The blocks a blockhash stays valid after the block that produced it. */
export declare const BLOCKHASH_VALIDITY = 150;
/**
 * How long before a send a slot the RPC reported still stands for the send's slot: older, and the
 * slots that passed meanwhile would count as the send's time to land (docs/sdk.md, `sentSlot`).
 */
export declare const SENT_SLOT_MAX_AGE_MS = 2000;
/** One RPC endpoint the dapp sends through. */
export interface Source {
    rpcHash: string;
    rpcLabel: string;
    /** The chain's current block height, through the dapp's own connection (uninstrumented). */
    blockHeight(): Promise<number>;
}
export interface Observation {
    source: Source;
    /** From a failed simulateTransaction rather than a send. */
    simulation?: boolean;
    sentAt: number;
    /** The transaction as sent: base64 wire bytes. */
    wire: string;
    kind: "send" | "preflight";
    preflightError: string | null;
    logs: unknown;
    maxRetries?: number;
    skipPreflight?: boolean;
}
export interface RecorderOptions {
    programs: ReadonlySet<string> | null;
    privacy: "plain" | "hash";
    salt: string;
    walletAdapter: () => string;
    maxPending: number;
}
export declare class Recorder {
    private readonly options;
    private readonly transport;
    private pending;
    private scheduled;
    private building;
    private blockhashes;
    private payers;
    private heights;
    private slots;
    /** Signatures reported from failed simulations, so a later send of the same transaction replaces them. */
    private simulated;
    /** Observations that could not become an envelope (unparsable bytes, no block height). */
    skipped: number;
    lastError: string | null;
    closed: boolean;
    constructor(options: RecorderOptions, transport: Transport);
    /** On the send path: O(1), never throws. */
    observe(observation: Observation): void;
    /** Remembers a blockhash's expiry as getLatestBlockhash reported it. */
    rememberBlockhash(blockhash: unknown, lastValidBlockHeight: unknown): void;
    /**
     * Remembers the slot an answer's context reported (`context.slot`), when its request asked for a
     * commitment at or near the tip; the answer arrived now.
     */
    rememberSlot(source: Source, context: unknown, commitment: unknown): void;
    /** The newest slot the source reported at most SENT_SLOT_MAX_AGE_MS before `sentAt`. */
    private slotBefore;
    /** Builds every pending observation it can without waiting; returns the rest to the queue. */
    private process;
    /**
     * A simulation that failed is not an attempt when the same signed transaction is then sent: the
     * send's envelope replaces the simulation's while that one is still queued.
     */
    private deliver;
    private skip;
    /** Page hide: everything that needs no RPC call goes to the transport now. */
    drainSync(): void;
    /** Waits until every observation made so far is an envelope in the transport (or skipped). */
    settle(): Promise<void>;
    private blockHeight;
    private payer;
    private build;
}
