// Turns what the instrumented connection saw into envelopes, off the send path: the wrappers only
// push an observation (the encoded transaction, the answer, the time) and schedule this module on a
// later task; parsing, hashing and encoding happen here. It also remembers what getLatestBlockhash
// returned, so each envelope carries its blockhash's true lastValidBlockHeight; when the blockhash
// was obtained elsewhere (a wallet, another connection), it uses the RPC's current block height
// + 150 (the runtime's validity window), an upper bound, and says so in docs/sdk.md. And it remembers
// the slots the RPC reported in answers it watched, so each send carries the slot seen right before it.

import type { Envelope } from "../shared/envelope-fields";
import { CU_LIMIT_MAX, ENVELOPE_LIMITS, MAX_RETRIES_MAX } from "../shared/envelope-limits";
import { sha256Hex } from "./sha256";
import { type Transport, unref } from "./transport";
import { SDK_VERSION } from "./version";
import { base64Bytes, instructionPrefix, parseTransaction, targetProgram } from "./wire";

/** The blocks a blockhash stays valid after the block that produced it. */
export const BLOCKHASH_VALIDITY = 150;
const MEMORY = 1024;
/**
 * How long before a send a slot the RPC reported still stands for the send's slot: older, and the
 * slots that passed meanwhile would count as the send's time to land (docs/sdk.md, `sentSlot`).
 */
export const SENT_SLOT_MAX_AGE_MS = 2000;
/** Commitments whose answers carry a slot at (processed) or near (confirmed) the tip; finalized trails it by dozens. */
const TIP_COMMITMENTS = new Set(["processed", "confirmed"]);
/** Slots remembered per source: enough to find the newest one before a send answered after later reads. */
const SLOTS_KEPT = 8;

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

const truncate = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

export class Recorder {
  private pending: Observation[] = [];
  private scheduled = false;
  private building = new Set<Promise<void>>();
  private blockhashes = new Map<string, number>();
  private payers = new Map<string, string>();
  private heights = new Map<Source, { at: number; value: Promise<number> }>();
  private slots = new WeakMap<Source, { slot: number; at: number }[]>();
  /** Signatures reported from failed simulations, so a later send of the same transaction replaces them. */
  private simulated = new Set<string>();
  /** Observations that could not become an envelope (unparsable bytes, no block height). */
  skipped = 0;
  lastError: string | null = null;
  closed = false;

  constructor(
    private readonly options: RecorderOptions,
    private readonly transport: Transport,
  ) {}

  /** On the send path: O(1), never throws. */
  observe(observation: Observation): void {
    if (this.closed) return;
    this.pending.push(observation);
    if (this.pending.length > this.options.maxPending) {
      this.pending.shift();
      this.transport.stats.dropped++;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      unref(setTimeout(() => this.process(), 0));
    }
  }

  /** Remembers a blockhash's expiry as getLatestBlockhash reported it. */
  rememberBlockhash(blockhash: unknown, lastValidBlockHeight: unknown): void {
    if (typeof blockhash !== "string") return;
    const height = Number(lastValidBlockHeight);
    if (!Number.isSafeInteger(height) || height < 0) return;
    this.blockhashes.delete(blockhash);
    this.blockhashes.set(blockhash, height);
    if (this.blockhashes.size > MEMORY) this.blockhashes.delete(this.blockhashes.keys().next().value!);
  }

  /**
   * Remembers the slot an answer's context reported (`context.slot`), when its request asked for a
   * commitment at or near the tip; the answer arrived now.
   */
  rememberSlot(source: Source, context: unknown, commitment: unknown): void {
    if (typeof commitment !== "string" || !TIP_COMMITMENTS.has(commitment)) return;
    if (typeof context !== "object" || context === null) return;
    const slot = Number((context as { slot?: unknown }).slot);
    if (!Number.isSafeInteger(slot) || slot < 0) return;
    const seen = this.slots.get(source) ?? [];
    seen.push({ slot, at: Date.now() });
    if (seen.length > SLOTS_KEPT) seen.shift();
    this.slots.set(source, seen);
  }

  /** The newest slot the source reported at most SENT_SLOT_MAX_AGE_MS before `sentAt`. */
  private slotBefore(source: Source, sentAt: number): number | undefined {
    let found: { slot: number; at: number } | undefined;
    for (const seen of this.slots.get(source) ?? [])
      if (seen.at <= sentAt && sentAt - seen.at <= SENT_SLOT_MAX_AGE_MS && (!found || seen.slot > found.slot))
        found = seen;
    return found?.slot;
  }

  /** Builds every pending observation it can without waiting; returns the rest to the queue. */
  private process(sync = false): void {
    this.scheduled = false;
    const batch = this.pending.splice(0);
    for (const observation of batch) {
      try {
        const built = this.build(observation, sync);
        if (built === "later") this.pending.push(observation);
        else if (built instanceof Promise) {
          const done = built.then(
            (envelope) => {
              if (envelope) this.deliver(envelope, observation);
            },
            (error) => this.skip(error),
          );
          this.building.add(done);
          done.finally(() => this.building.delete(done));
        } else if (built) this.deliver(built, observation);
      } catch (error) {
        this.skip(error);
      }
    }
    if (this.pending.length > 0 && !this.scheduled) {
      this.scheduled = true;
      unref(setTimeout(() => this.process(), 0));
    }
  }

  /**
   * A simulation that failed is not an attempt when the same signed transaction is then sent: the
   * send's envelope replaces the simulation's while that one is still queued.
   */
  private deliver(envelope: Envelope, observation: Observation): void {
    const sig = envelope.sig;
    if (sig !== null && observation.simulation) {
      if (this.simulated.size >= MEMORY) this.simulated.clear();
      this.simulated.add(sig);
    } else if (sig !== null && this.simulated.delete(sig)) {
      this.transport.discard((queued) => queued.sig === sig && queued.kind === "preflight");
    }
    this.transport.enqueue(envelope);
  }

  private skip(error: unknown): void {
    this.skipped++;
    this.lastError = String(error);
  }

  /** Page hide: everything that needs no RPC call goes to the transport now. */
  drainSync(): void {
    this.process(true);
  }

  /** Waits until every observation made so far is an envelope in the transport (or skipped). */
  async settle(): Promise<void> {
    if (this.pending.length > 0) this.process();
    while (this.building.size > 0) await Promise.allSettled([...this.building]);
  }

  private blockHeight(source: Source): Promise<number> {
    const cached = this.heights.get(source);
    if (cached && Date.now() - cached.at < 1000) return cached.value;
    const value = source.blockHeight();
    this.heights.set(source, { at: Date.now(), value });
    value.catch(() => this.heights.delete(source));
    return value;
  }

  private payer(address: string): string {
    if (this.options.privacy !== "hash") return address;
    let hashed = this.payers.get(address);
    if (hashed === undefined) {
      hashed = sha256Hex(this.options.salt + address);
      if (this.payers.size > MEMORY) this.payers.clear();
      this.payers.set(address, hashed);
    }
    return hashed;
  }

  private build(o: Observation, sync: boolean): Envelope | null | "later" | Promise<Envelope | null> {
    const tx = parseTransaction(base64Bytes(o.wire));
    if (o.kind === "send" && tx.signature === null) return null; // an unsigned send never reaches the chain
    const logs = o.kind === "preflight" && Array.isArray(o.logs) ? o.logs : [];
    let walletAdapter = "";
    try {
      walletAdapter = String(this.options.walletAdapter() ?? "");
    } catch {}
    const program = targetProgram(tx, this.options.programs);
    const envelope: Envelope = {
      sig: tx.signature,
      program,
      blockhash: tx.blockhash,
      lastValidBlockHeight: 0,
      sentAt: o.sentAt,
      rpcHash: o.source.rpcHash,
      rpcLabel: o.source.rpcLabel,
      walletAdapter: truncate(walletAdapter, ENVELOPE_LIMITS.label),
      kind: o.kind,
      preflightError:
        o.kind === "preflight"
          ? truncate(o.preflightError ?? "Transaction simulation failed", ENVELOPE_LIMITS.preflightError)
          : null,
      simulationLogs: logs
        .slice(0, ENVELOPE_LIMITS.simulationLogLines)
        .map((line) => truncate(String(line), ENVELOPE_LIMITS.simulationLogLine)),
      payer: this.payer(tx.payer),
      sdkVersion: SDK_VERSION,
    };
    if (tx.cuLimit !== undefined) envelope.cuLimit = Math.min(tx.cuLimit, CU_LIMIT_MAX);
    if (tx.cuPriceMicroLamports !== undefined) envelope.cuPriceMicroLamports = tx.cuPriceMicroLamports;
    if (o.maxRetries !== undefined && Number.isSafeInteger(o.maxRetries) && o.maxRetries >= 0)
      envelope.maxRetries = Math.min(o.maxRetries, MAX_RETRIES_MAX);
    if (o.skipPreflight !== undefined) envelope.skipPreflight = o.skipPreflight;
    envelope.sendPath = "rpc";
    if (tx.nonce) envelope.nonce = true;
    // The nonce account stores its authority, often the payer: under privacy "hash" it stays home.
    if (tx.nonce && tx.nonceAccount !== undefined && this.options.privacy === "plain")
      envelope.nonceAccount = tx.nonceAccount;
    const prefix = instructionPrefix(tx, program);
    if (prefix !== undefined) envelope.ixPrefix = prefix;
    if (o.kind === "send") {
      const sentSlot = this.slotBefore(o.source, o.sentAt);
      if (sentSlot !== undefined) envelope.sentSlot = sentSlot;
    }

    const known = tx.nonce ? undefined : this.blockhashes.get(tx.blockhash);
    if (known !== undefined) {
      envelope.lastValidBlockHeight = known;
      return envelope;
    }
    if (sync) return "later";
    return this.blockHeight(o.source).then((height) => {
      if (!Number.isSafeInteger(height) || height < 0) throw new Error(`bad block height ${height}`);
      envelope.lastValidBlockHeight = height + BLOCKHASH_VALIDITY;
      if (!tx.nonce) this.rememberBlockhash(tx.blockhash, envelope.lastValidBlockHeight);
      return envelope;
    });
  }
}
