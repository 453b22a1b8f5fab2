// The resolver's chain reads, shaped for cost: statuses 256 signatures per call with
// searchTransactionHistory, several calls per HTTP request (JSON-RPC batch), and getTransaction only
// for attempts that landed, batched too. What `why` fetches on demand (a signature txray never
// ingested) is cached in the control DB so repeated questions cost one fetch; the resolver neither
// reads nor fills that cache: its transactions are decoded and recorded in the same run (a look-up
// per landed signature cost ~20 µs for nothing), and keeping every landed transaction's JSON for a
// week would cost more disk than the lake itself.

import { cacheTransaction, cachedTransaction, type ControlDb } from "../../control";
import { RpcError, type RpcClient } from "../rpc";

export type SignatureStatus = { slot: number; confirmations: number | null; err: unknown; confirmationStatus: "processed" | "confirmed" | "finalized" | null };

const STATUSES_PER_CALL = 256;

export async function blockHeight(rpc: RpcClient): Promise<number> {
  return await rpc.call<number>("getBlockHeight", [{ commitment: "confirmed" }]);
}

/** Statuses for many signatures; `callsPerRequest` status calls share one HTTP request. */
export async function signatureStatuses(rpc: RpcClient, sigs: string[], callsPerRequest: number): Promise<Map<string, SignatureStatus | null>> {
  const out = new Map<string, SignatureStatus | null>();
  const chunks: string[][] = [];
  for (let i = 0; i < sigs.length; i += STATUSES_PER_CALL) chunks.push(sigs.slice(i, i + STATUSES_PER_CALL));
  const requests: Promise<void>[] = [];
  for (let i = 0; i < chunks.length; i += callsPerRequest) {
    const group = chunks.slice(i, i + callsPerRequest);
    requests.push(
      rpc
        .batch<{ value: (SignatureStatus | null)[] }>(group.map((chunk) => ({ method: "getSignatureStatuses", params: [chunk, { searchTransactionHistory: true }] })))
        .then((replies) => {
          replies.forEach((reply, index) => {
            if (reply instanceof RpcError) throw reply;
            group[index].forEach((sig, j) => out.set(sig, reply.value[j] ?? null));
          });
        }),
    );
  }
  await Promise.all(requests);
  return out;
}

/** getTransaction results (json encoding) by signature; null where the node has none yet. `cache`: read and fill the control DB's cache. */
export async function transactions(rpc: RpcClient, control: ControlDb, sigs: string[], perRequest: number, now: number, cache = false): Promise<Map<string, unknown | null>> {
  const out = new Map<string, unknown | null>();
  const missing: string[] = [];
  for (const sig of sigs) {
    const cached = cache ? cachedTransaction(control, sig) : null;
    if (cached !== null) out.set(sig, cached);
    else missing.push(sig);
  }
  const requests: Promise<void>[] = [];
  for (let i = 0; i < missing.length; i += perRequest) {
    const group = missing.slice(i, i + perRequest);
    requests.push(
      rpc
        .batch<unknown>(group.map((sig) => ({ method: "getTransaction", params: [sig, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }] })))
        .then((replies) => {
          replies.forEach((reply, index) => {
            if (reply instanceof RpcError) throw reply;
            out.set(group[index], reply ?? null);
            if (reply && cache) cacheTransaction(control, group[index], reply, now);
          });
        }),
    );
  }
  await Promise.all(requests);
  return out;
}

/** One transaction, cached (used by `why` for a signature txray never ingested). */
export async function transaction(rpc: RpcClient, control: ControlDb, sig: string, now: number): Promise<unknown | null> {
  return (await transactions(rpc, control, [sig], 1, now, true)).get(sig) ?? null;
}
