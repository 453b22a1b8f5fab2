// An attempt txray holds but has not resolved, wherever it is on its way (docs/api.md#get-v1whysig):
// open in the resolver (the signature index's open entry), flushed but not taken in yet (the parts
// flush wrote for segments awaiting intake), or acknowledged and still in the spool. `why` asks the
// chain about such an attempt at once; `diagnose-drop` answers 404 `pending`. Every place is
// looked at with a bounded cost, newest first: the index by its Bloom filters, the spool by its
// newest SPOOL_SCAN_BYTES, the newest awaiting segments by their own parts, whatever they hold.

import { type Attempt, attemptFromSpoolFields, findInSegments, type IndexedAttempt } from "../../chain/resolve";
import type { Context } from "../../context";
import { failingSince, segmentsAwaitingIntake } from "../../control";
import { TxrayError } from "../../shared/errors";
import { decodeSpoolLine, spoolLineWith } from "../../spool";

/** The most spool a look-up reads: the newest envelopes (a few seconds' worth at the ingest target). */
export const SPOOL_SCAN_BYTES = 16 * 1024 * 1024;
/** Retry-After of a `pending` answer: the resolver looks an open attempt up again within seconds. */
export const PENDING_RETRY_AFTER_SECONDS = 2;

/** Segments awaiting intake a look-up reads, newest first (a backlog beyond them is the chain's to answer). */
const MAX_SEGMENTS_LOOKED_AT = 200;

/** The attempt with this signature txray holds unresolved; null when it holds none. */
export async function unresolvedAttempt(ctx: Context, sig: string, indexed: IndexedAttempt[]): Promise<Attempt | null> {
  const open = indexed.find((entry) => entry.state === "open");
  if (open) return open.attempt;
  // Newest first: the attempt asked about is usually one just sent (the spool's newest envelopes,
  // then the newest segments). Oldest first, a resolver minutes behind made every such look-up read
  // the parts of the 200 oldest segments awaiting intake (~4M envelopes at 20,000/s: ~1 s of CPU
  // per why/ and diagnose-drop/, which took the cores the resolver needed to catch up), and missed
  // the newest segments.
  const line = spoolLineWith(ctx.paths.spoolRoot, sig, SPOOL_SCAN_BYTES);
  const fields = line === null ? null : decodeSpoolLine(line);
  const attempt = fields === null ? null : attemptFromSpoolFields(fields);
  if (attempt?.sig === sig) return attempt;
  const awaiting = segmentsAwaitingIntake(ctx.control, MAX_SEGMENTS_LOOKED_AT, "newest first");
  // In chunks that grow (4, 16, 64, … segments): a recent attempt costs the first few segments'
  // parts, one that is not there about one read of them all.
  for (let start = 0, size = 4; start < awaiting.length; start += size, size *= 4) {
    const found = await findInSegments(ctx, awaiting.slice(start, start + size), sig).catch(() => null); // unreadable parts: the chain answers instead
    if (found) return found;
  }
  return null;
}

/**
 * 404 `pending`: txray holds the attempt and has not resolved it (and the chain has not confirmed
 * it either), saying why: waiting for the chain (it has not landed, and neither its blockhash has
 * expired nor, for a durable-nonce send, its nonce account advanced), waiting for the resolver's
 * next run (a preflight failure, decoded from its own logs), or the chain out of reach, since when
 * and with what error (the resolve job's failing runs).
 */
export function pendingError(ctx: Context, attempt: Pick<Attempt, "kind" | "nonce"> | null = null): TxrayError {
  const failing = failingSince(ctx.control, "resolve");
  const message = failing
    ? `not resolved yet: txray has not been able to resolve attempts against the chain since ${new Date(failing.since).toISOString().replace(".000Z", "Z")} (${scrubUrls(failing.error ?? "the resolve job fails")}); it is retried with backoff`
    : attempt?.kind === "preflight"
      ? "not resolved yet: its preflight failure is decoded at the resolver's next run, within seconds"
      : attempt?.nonce
        ? "not resolved yet: it has not landed and its nonce account has not advanced past it (a durable-nonce send has no blockhash expiry)"
        : "not resolved yet: it has not landed and its blockhash has not expired";
  return new TxrayError("pending", message, { retryAfterSeconds: PENDING_RETRY_AFTER_SECONDS });
}

/** An error text without URLs (SOLANA_RPC_URL may carry an API key in its path or query). */
const scrubUrls = (text: string) =>
  text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"')]+/gi, "<the RPC endpoint>").slice(0, 300);
