// `txray idl add <program> <file>`: validate an Anchor (legacy or ≥0.30) or Shank IDL and store it
// where the decoder loads IDLs from (<data>/idl/<program>.json), so that program's errors and
// instructions get their names.

import { readFileSync } from "node:fs";
import { accountDataReader, fetchOnchainIdl, saveIdl } from "../chain/idl";
import { createRpcClient } from "../chain/rpc";
import { isBase58Address } from "../shared/base58";

export function saveIdlFile(dataDir: string, program: string, file: string): string {
  if (!isBase58Address(program)) throw new Error(`not a program id (base58, 32 bytes): ${program}`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const idl = saveIdl(dataDir, program, json);
  if (idl.programId !== null && idl.programId !== program) {
    return `stored IDL "${idl.name}" for ${program} (note: the IDL itself names ${idl.programId}); ${idl.instructions.length} instructions, ${idl.errors.length} errors`;
  }
  return `stored IDL "${idl.name}" for ${program}: ${idl.instructions.length} instructions, ${idl.errors.length} errors (${idl.format})`;
}

/** `txray idl fetch`: the IDL the program published on chain (Anchor IDL account), stored like `idl add`. */
export async function fetchIdlFromChain(dataDir: string, rpcUrl: string, program: string): Promise<string | null> {
  if (!isBase58Address(program)) throw new Error(`not a program id (base58, 32 bytes): ${program}`);
  const onchain = await fetchOnchainIdl(accountDataReader(createRpcClient({ url: rpcUrl, maxRetries: 2 })), program);
  if (onchain === null) return null;
  const idl = saveIdl(dataDir, program, onchain.json);
  return `stored on-chain IDL "${idl.name}" for ${program} from ${onchain.address}: ${idl.instructions.length} instructions, ${idl.errors.length} errors (${idl.format})`;
}
