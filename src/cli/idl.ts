// `txray idl add <program> <file> [--from-slot <slot>]`: validate an Anchor (legacy or ≥0.30) or
// Shank IDL and store it where the decoder loads IDLs from (<data>/idl/), so that program's errors
// and instructions get their names. With --from-slot the IDL applies to failures from that slot on
// and earlier failures keep the IDL they had; without it, it replaces the IDL in force now.

import { readFileSync } from "node:fs";
import { accountDataReader, fetchOnchainIdl, saveIdl, saveIdlVersion } from "../chain/idl";
import { createRpcClient } from "../chain/rpc";
import { isBase58Address } from "../shared/base58";

/** The --from-slot text as a slot; undefined when absent. Throws on anything but a non-negative integer. */
export function parseFromSlot(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const slot = /^[0-9]{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(slot))
    throw new Error(`--from-slot needs a slot number (a non-negative integer), got ${text}`);
  return slot;
}

export function saveIdlFile(dataDir: string, program: string, file: string, fromSlot?: number): string {
  if (!isBase58Address(program)) throw new Error(`not a program id (base58, 32 bytes): ${program}`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const saved = saveIdlVersion(dataDir, program, json, fromSlot);
  const { idl } = saved;
  const from = saved.fromSlot === 0 ? "" : ` from slot ${saved.fromSlot}`;
  if (idl.programId !== null && idl.programId !== program) {
    return `stored IDL "${idl.name}" for ${program}${from} (note: the IDL itself names ${idl.programId}); ${idl.instructions.length} instructions, ${idl.errors.length} errors`;
  }
  return `stored IDL "${idl.name}" for ${program}${from}: ${idl.instructions.length} instructions, ${idl.errors.length} errors (${idl.format})`;
}

/** `txray idl fetch`: the IDL the program published on chain (Anchor IDL account), stored like `idl add`. */
export async function fetchIdlFromChain(dataDir: string, rpcUrl: string, program: string): Promise<string | null> {
  if (!isBase58Address(program)) throw new Error(`not a program id (base58, 32 bytes): ${program}`);
  const onchain = await fetchOnchainIdl(accountDataReader(createRpcClient({ url: rpcUrl, maxRetries: 2 })), program);
  if (onchain === null) return null;
  const idl = saveIdl(dataDir, program, onchain.json);
  return `stored on-chain IDL "${idl.name}" for ${program} from ${onchain.address}: ${idl.instructions.length} instructions, ${idl.errors.length} errors (${idl.format})`;
}
