// A transaction's full record read on demand, for `why` of a success the resolver decided from its
// status alone (outside the success sample: compute, fee and logs were never fetched) and for the
// transaction page. The transaction is kept where `why` keeps what it fetched for a signature txray
// never ingested (the control database's rpc_transactions, forgotten by retention after a week), so
// a story or page opened again costs no fetch; a fetch is made only when the caller's chain budget
// allows it (`mayFetch`, the why look-up budget of src/contract/chain-access.ts).

import { type ControlDb, cachedTransaction, cacheTransaction } from "../../control";
import { type RpcClient, RpcError } from "../rpc";
import type { SignatureStatus } from "./chain-reads";

export type KeptTransaction = {
  /** The `getTransaction` result (json encoding, confirmed), null when the chain has none. */
  tx: unknown | null;
  /** The signature's status, when it was asked with the fetch (null for a transaction read from the store). */
  status: SignatureStatus | null;
  /** The budget refused a fetch: nothing was asked. */
  refused: boolean;
};

/** The kept transaction of `sig`, else (when `mayFetch()` allows) its transaction and status, one HTTP request. */
export async function keptTransaction(
  rpc: RpcClient,
  control: ControlDb,
  sig: string,
  now: number,
  mayFetch: () => boolean,
): Promise<KeptTransaction> {
  const kept = cachedTransaction(control, sig);
  if (kept !== null) return { tx: kept, status: null, refused: false };
  if (!mayFetch()) return { tx: null, status: null, refused: true };
  const [statuses, tx] = await rpc.batch<unknown>([
    { method: "getSignatureStatuses", params: [[sig], { searchTransactionHistory: true }] },
    {
      method: "getTransaction",
      params: [sig, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
    },
  ]);
  if (tx instanceof RpcError) throw tx;
  if (tx) cacheTransaction(control, sig, tx, now);
  const status =
    statuses instanceof RpcError
      ? null
      : (((statuses as { value?: (SignatureStatus | null)[] } | null)?.value?.[0] ?? null) as SignatureStatus | null);
  return { tx: tx ?? null, status, refused: false };
}

/** The signature's status now (its finality), or null when the chain has none. */
export async function signatureStatus(rpc: RpcClient, sig: string): Promise<SignatureStatus | null> {
  const reply = await rpc.call<{ value?: (SignatureStatus | null)[] }>("getSignatureStatuses", [
    [sig],
    { searchTransactionHistory: true },
  ]);
  return reply?.value?.[0] ?? null;
}
