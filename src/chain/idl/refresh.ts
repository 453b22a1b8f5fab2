// Keeping IDLs current without anyone asking: a program that publishes its Anchor IDL on chain gets
// it fetched when txray first tracks it and again after each deploy (a new release may add errors
// and instructions). IDLs added by hand (`txray idl add`) are replaced only by a newer on-chain one
// after a deploy.

import { existsSync } from "node:fs";
import type { RpcClient } from "../rpc";
import { idlFilePath, saveIdl } from "./idl-files";
import { fetchOnchainIdl } from "./onchain";

/** getAccountInfo (base64) through the jobs' RPC client: the account's data, or null. */
export function accountDataReader(rpc: RpcClient) {
  return async (address: string): Promise<string | null> => {
    const reply = await rpc.call<{ value: { data: [string, string] } | null }>("getAccountInfo", [
      address,
      { encoding: "base64", commitment: "confirmed" },
    ]);
    return reply.value?.data[0] ?? null;
  };
}

/** Fetches and stores the on-chain IDL of each program that has none yet or was just redeployed. */
export async function refreshOnchainIdls(
  dataDir: string,
  rpc: RpcClient,
  programs: string[],
  redeployed: Set<string>,
): Promise<{ fetched: string[]; failed: string[] }> {
  const read = accountDataReader(rpc);
  const fetched: string[] = [];
  const failed: string[] = [];
  for (const program of programs) {
    if (existsSync(idlFilePath(dataDir, program)) && !redeployed.has(program)) continue;
    try {
      const onchain = await fetchOnchainIdl(read, program);
      if (onchain === null) continue;
      saveIdl(dataDir, program, onchain.json);
      fetched.push(program);
    } catch {
      failed.push(program); // no IDL account, a damaged one, or an RPC error: try again next run
    }
  }
  return { fetched, failed };
}
