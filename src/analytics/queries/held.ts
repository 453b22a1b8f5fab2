// An attempt txray holds but has not resolved, wherever it is on its way (docs/api.md#get-v1whysig):
// open in the resolver (the signature index's open entry), flushed but not taken in yet (the parts
// flush wrote for segments awaiting intake), or acknowledged and still in the spool. `why` asks the
// chain about such an attempt at once; `diagnose-drop` answers 404 `pending`. Every place is
// looked at with a bounded cost: the index by its Bloom filters, the awaiting segments by their
// own parts (a few small files), the spool by its newest SPOOL_SCAN_BYTES, whatever it holds.

import type { Context } from "../../context";
import { failingSince, segmentsAwaitingIntake } from "../../control";
import { attemptFromSpoolFields, findInSegments, type Attempt, type IndexedAttempt } from "../../chain/resolve";
import { decodeSpoolLine, spoolLineWith } from "../../spool";
import { TxrayError } from "../../shared/errors";

/** The most spool a look-up reads: the newest envelopes (a few seconds' worth at the ingest target). */
export const SPOOL_SCAN_BYTES = 16 * 1024 * 1024;
/** Retry-After of a `pending` answer: the resolver looks an open attempt up again within seconds. */
export const PENDING_RETRY_AFTER_SECONDS = 2;

/** The attempt with this signature txray holds unresolved; null when it holds none. */
export async function heldAttempt(ctx: Context, sig: string, indexed: IndexedAttempt[]): Promise<Attempt | null> {
  const open = indexed.find((entry) => entry.state === "open");
  if (open) return open.attempt;
  const awaiting = segmentsAwaitingIntake(ctx.control, 200);
  if (awaiting.length > 0) {
    const found = await findInSegments(ctx, awaiting, sig).catch(() => null); // unreadable parts: the spool or the chain answers instead
    if (found) return found;
  }
  const line = spoolLineWith(ctx.paths.spoolRoot, sig, SPOOL_SCAN_BYTES);
  const fields = line === null ? null : decodeSpoolLine(line);
  const attempt = fields === null ? null : attemptFromSpoolFields(fields);
  return attempt?.sig === sig ? attempt : null;
}

/**
 * 404 `pending`: txray holds the attempt and has not resolved it (and the chain has not confirmed
 * it either), saying why: waiting for the chain (it has not landed and its blockhash has not
 * expired), or the chain out of reach, since when and with what error (the resolve job's failing runs).
 */
export function pendingError(ctx: Context): TxrayError {
  const failing = failingSince(ctx.control, "resolve");
  const message = failing
    ? `not resolved yet: txray has not been able to resolve attempts against the chain since ${new Date(failing.since).toISOString().replace(".000Z", "Z")} (${scrubUrls(failing.error ?? "the resolve job fails")}); it is retried with backoff`
    : "not resolved yet: it has not landed and its blockhash has not expired";
  return new TxrayError("pending", message, { retryAfterSeconds: PENDING_RETRY_AFTER_SECONDS });
}

/** An error text without URLs (SOLANA_RPC_URL may carry an API key in its path or query). */
const scrubUrls = (text: string) => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"')]+/gi, "<the RPC endpoint>").slice(0, 300);
