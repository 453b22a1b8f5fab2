// `why` on demand (docs/api.md#get-v1whysig): an attempt txray took in but has not resolved yet is
// looked up on the chain when someone asks, in one HTTP request (its status and its transaction in
// one JSON-RPC batch), and decided by the resolver's own rules (outcomes.ts), so the answer is the
// row the resolver records when it reaches the attempt. Nothing is recorded here: the resolver
// stays the only writer, and the attempt is recorded once.

import { type ControlDb, cachedTransaction, cacheTransaction } from "../../control";
import type { IdlRegistry } from "../idl";
import { type RpcClient, RpcError } from "../rpc";
import type { SignatureStatus } from "./chain-reads";
import { isConfirmed, landedFromStatus, needsTransaction, resolveFromTransaction } from "./outcomes";
import type { Attempt, Resolution } from "./types";

/** The attempt's resolution once the chain has confirmed it; null while it has not (not found, or processed only). */
export type OnDemandAnswer = Resolution | null;

export async function resolveOnDemand(
  rpc: RpcClient,
  idls: IdlRegistry,
  attempt: Attempt & { sig: string },
  now: number,
  sampleRate: number,
): Promise<OnDemandAnswer> {
  const [statuses, tx] = await rpc.batch<unknown>([
    { method: "getSignatureStatuses", params: [[attempt.sig], { searchTransactionHistory: true }] },
    {
      method: "getTransaction",
      params: [attempt.sig, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
    },
  ]);
  if (statuses instanceof RpcError) throw statuses;
  const status = ((statuses as { value: (SignatureStatus | null)[] }).value[0] ?? null) as SignatureStatus | null;
  if (!isConfirmed(status)) return null;
  const transaction = tx instanceof RpcError ? null : (tx ?? null);
  if (needsTransaction(attempt, status, sampleRate))
    return transaction === null ? null : resolveFromTransaction(attempt, status, transaction, idls, now, sampleRate);
  const blockTime = (transaction as { blockTime?: number | null } | null)?.blockTime;
  return landedFromStatus(attempt, status, typeof blockTime === "number" ? blockTime * 1000 : null, idls, null, now);
}

/**
 * A signature txray never took in, as a block explorer would show it: its transaction (json,
 * confirmed), kept in the control database's cache for a week so a signature asked about again
 * costs no fetch; null while the chain has none.
 */
export async function fetchTransactionCached(
  rpc: RpcClient,
  control: ControlDb,
  sig: string,
  now: number,
): Promise<unknown | null> {
  const cached = cachedTransaction(control, sig);
  if (cached !== null) return cached;
  const tx = await rpc.call<unknown>("getTransaction", [
    sig,
    { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (tx) cacheTransaction(control, sig, tx, now);
  return tx ?? null;
}
