// Keeping IDLs current without anyone asking: a program that publishes its Anchor IDL on chain gets
// it fetched when txray first tracks it and again after each deploy (a new release may add errors
// and instructions). The first IDL seen applies from the beginning; a changed one is stored as a new
// version applying from the deploy's slot when the deploy is known, else from the slot at which the
// fetch saw it (the reply's context slot), so failures before the change keep the names of their own
// release. An unchanged IDL writes nothing.

import type { RpcClient } from "../rpc";
import { readNewestIdlText, saveIdlVersion, storedIdlSlots } from "./idl-files";
import { fetchOnchainIdl } from "./onchain";

type AccountReply = { context?: { slot?: number }; value: { data: [string, string] } | null };

/** getAccountInfo (base64) through the jobs' RPC client: the account's data, or null. */
export function accountDataReader(rpc: RpcClient) {
  return async (address: string): Promise<string | null> => {
    const reply = await rpc.call<AccountReply>("getAccountInfo", [
      address,
      { encoding: "base64", commitment: "confirmed" },
    ]);
    return reply.value?.data[0] ?? null;
  };
}

/** The same IDL JSON, whatever its spacing. */
function sameIdl(storedText: string, json: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(storedText)) === JSON.stringify(json);
  } catch {
    return false;
  }
}

/**
 * Fetches and stores the on-chain IDL of each program that has none yet or was just redeployed.
 * `redeployed` may map each redeployed program to its deploy slot, from which a changed IDL applies.
 */
export async function refreshOnchainIdls(
  dataDir: string,
  rpc: RpcClient,
  programs: string[],
  redeployed: ReadonlySet<string> | ReadonlyMap<string, number>,
): Promise<{ fetched: string[]; failed: string[] }> {
  const fetched: string[] = [];
  const failed: string[] = [];
  for (const program of programs) {
    const known = storedIdlSlots(dataDir, program).length > 0;
    if (known && !redeployed.has(program)) continue;
    try {
      let seenAtSlot: number | null = null;
      const onchain = await fetchOnchainIdl(async (address) => {
        const reply = await rpc.call<AccountReply>("getAccountInfo", [
          address,
          { encoding: "base64", commitment: "confirmed" },
        ]);
        seenAtSlot = typeof reply.context?.slot === "number" ? reply.context.slot : null;
        return reply.value?.data[0] ?? null;
      }, program);
      if (onchain === null) continue;
      fetched.push(program);
      const newest = readNewestIdlText(dataDir, program);
      if (newest === null) {
        saveIdlVersion(dataDir, program, onchain.json, 0);
        continue;
      }
      if (sameIdl(newest.text, onchain.json)) continue;
      const deploySlot = redeployed instanceof Map ? redeployed.get(program) : undefined;
      const changedAt: number | null = deploySlot ?? seenAtSlot;
      // Without a slot later than the newest version's, the change can only replace that version.
      const fromSlot = changedAt !== null && changedAt > newest.fromSlot ? changedAt : newest.fromSlot;
      saveIdlVersion(dataDir, program, onchain.json, fromSlot);
    } catch {
      failed.push(program); // no IDL account, a damaged one, or an RPC error: try again next run
    }
  }
  return { fetched, failed };
}
