// The resolver's chain reads, shaped for cost (docs/scaling.md, "What resolving costs"): providers
// bill per method call, so the resolver makes as few calls as it can and packs several into one HTTP
// request (a JSON-RPC batch of at most SOLANA_RPC_BATCH_CALLS):
//   getSignatureStatuses  256 signatures per call (the RPC's maximum), searchTransactionHistory
//   getBlockTime          once per slot a landed success is decided in (cached: slot-times.ts)
//   getTransaction        only for failures and the success sample (json encoding, confirmed)
// A batch of one call is sent as a plain request, which every provider accepts.

import { type RpcCall, type RpcClient, RpcError } from "../rpc";

export type SignatureStatus = {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus: "processed" | "confirmed" | "finalized" | null;
};

/** getSignatureStatuses takes at most 256 signatures per call. */
const STATUSES_PER_CALL = 256;

export async function blockHeight(rpc: RpcClient): Promise<number> {
  return await rpc.call<number>("getBlockHeight", [{ commitment: "confirmed" }]);
}

/**
 * Calls in groups of at most `perRequest` per HTTP request (concurrently, up to the client's limit);
 * each result or the RpcError the node answered for that call, in order. A failed request throws.
 */
async function batched<T>(rpc: RpcClient, calls: RpcCall[], perRequest: number): Promise<(T | RpcError)[]> {
  const size = Math.max(1, perRequest);
  const requests: Promise<(T | RpcError)[]>[] = [];
  for (let i = 0; i < calls.length; i += size) {
    const group = calls.slice(i, i + size);
    requests.push(
      group.length === 1
        ? rpc.call<T>(group[0].method, group[0].params).then(
            (value) => [value],
            (error) => {
              if (error instanceof RpcError && error.code !== null) return [error]; // the node's answer to this call
              throw error;
            },
          )
        : rpc.batch<T>(group),
    );
  }
  return (await Promise.all(requests)).flat();
}

function orThrow<T>(reply: T | RpcError): T {
  if (reply instanceof RpcError) throw reply;
  return reply;
}

/** Statuses for many signatures: 256 per call, `perRequest` calls per HTTP request. */
export async function signatureStatuses(
  rpc: RpcClient,
  sigs: string[],
  perRequest: number,
): Promise<Map<string, SignatureStatus | null>> {
  const chunks: string[][] = [];
  for (let i = 0; i < sigs.length; i += STATUSES_PER_CALL) chunks.push(sigs.slice(i, i + STATUSES_PER_CALL));
  const replies = await batched<{ value: (SignatureStatus | null)[] }>(
    rpc,
    chunks.map((chunk) => ({ method: "getSignatureStatuses", params: [chunk, { searchTransactionHistory: true }] })),
    perRequest,
  );
  const out = new Map<string, SignatureStatus | null>();
  replies.forEach((reply, i) => {
    const { value } = orThrow(reply);
    for (const [j, sig] of chunks[i].entries()) out.set(sig, value[j] ?? null);
  });
  return out;
}

/** getTransaction results (json encoding, confirmed) by signature; null where the node has none yet. */
export async function transactions(
  rpc: RpcClient,
  sigs: string[],
  perRequest: number,
): Promise<Map<string, unknown | null>> {
  const replies = await batched<unknown>(
    rpc,
    sigs.map((sig) => ({
      method: "getTransaction",
      params: [sig, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
    })),
    perRequest,
  );
  return new Map(sigs.map((sig, i) => [sig, orThrow(replies[i]) ?? null]));
}

/** Block times (Unix seconds) of slots; null where the node has none (an error for that slot counts as none). */
export async function blockTimes(
  rpc: RpcClient,
  slots: number[],
  perRequest: number,
): Promise<Map<number, number | null>> {
  const replies = await batched<number | null>(
    rpc,
    slots.map((slot) => ({ method: "getBlockTime", params: [slot] })),
    perRequest,
  );
  return new Map(
    slots.map((slot, i) => {
      const reply = replies[i];
      return [slot, typeof reply === "number" ? reply : null];
    }),
  );
}
