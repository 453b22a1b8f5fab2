// The Anchor IDL account a program may publish on chain (`anchor idl init`), so `txray` can fetch an
// IDL nobody uploaded. Address (anchor `ts/packages/anchor/src/idl.ts` idlAddress):
//   base = find_program_address([], program).0 ; address = create_with_seed(base, "anchor:idl", program)
// where create_with_seed = sha256(base ‖ seed ‖ owner). Account layout (anchor `lang/src/idl.rs`):
//   [0..8)  discriminator, [8..40) authority, [40..44) u32 LE length, [44..44+len) zlib-deflated JSON.
// The discriminator is sha256("internal:IdlAccount")[..8] = 18 46 62 bf 3a 90 7b 9e: `IdlAccount` is
// declared `#[account("internal")]`, so the namespace replaces the usual "account:" prefix (the same 8
// bytes head real mainnet IDL accounts). Anchor ≥ 1.0 also publishes through the Program Metadata
// Program; that source is not read here.

import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";
import { PublicKey } from "@solana/web3.js";
import { decodeBase58, encodeBase58, isBase58Address } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import { type ParsedIdl, parseIdl } from "./parse";

export const ANCHOR_IDL_SEED = "anchor:idl";
export const IDL_ACCOUNT_DISCRIMINATOR = Uint8Array.from([0x18, 0x46, 0x62, 0xbf, 0x3a, 0x90, 0x7b, 0x9e]);
const HEADER_LENGTH = 44;
/** An inflated IDL larger than this is refused (decompression bombs). */
const MAX_IDL_JSON_BYTES = 16 * 1024 * 1024;

function requireAddress(programId: string): Uint8Array {
  const bytes = isBase58Address(programId) ? decodeBase58(programId) : null;
  if (!bytes) throw new TxrayError("bad_request", `idl: invalid program id ${programId}`);
  return bytes;
}

/** create_with_seed(base, seed, owner) = sha256(base ‖ seed ‖ owner), as the System program defines it. */
export function createWithSeed(base: Uint8Array, seed: string, owner: Uint8Array): string {
  return encodeBase58(new Uint8Array(createHash("sha256").update(base).update(seed).update(owner).digest()));
}

/** Address of the Anchor IDL account of `programId`. */
export function anchorIdlAddress(programId: string): string {
  const owner = requireAddress(programId);
  const [base] = PublicKey.findProgramAddressSync([], new PublicKey(owner));
  return createWithSeed(base.toBytes(), ANCHOR_IDL_SEED, owner);
}

export interface AnchorIdlAccount {
  authority: string;
  /** The IDL as published (parsed JSON, not yet validated as an IDL). */
  json: unknown;
}

/** Decodes the data of an Anchor IDL account. Throws TxrayError("bad_request") when it is not one. */
export function decodeAnchorIdlAccount(data: Uint8Array): AnchorIdlAccount {
  if (data.length < HEADER_LENGTH) throw new TxrayError("bad_request", "idl account: too short");
  for (let i = 0; i < IDL_ACCOUNT_DISCRIMINATOR.length; i++) {
    if (data[i] !== IDL_ACCOUNT_DISCRIMINATOR[i]) {
      throw new TxrayError("bad_request", "idl account: not an Anchor IdlAccount (discriminator mismatch)");
    }
  }
  const authority = encodeBase58(data.subarray(8, 40));
  const length = new DataView(data.buffer, data.byteOffset + 40, 4).getUint32(0, true);
  if (HEADER_LENGTH + length > data.length) throw new TxrayError("bad_request", "idl account: length exceeds data");
  let text: string;
  try {
    const inflated = inflateSync(data.subarray(HEADER_LENGTH, HEADER_LENGTH + length), {
      maxOutputLength: MAX_IDL_JSON_BYTES,
    });
    text = inflated.toString("utf8");
  } catch {
    throw new TxrayError("bad_request", "idl account: payload is not zlib data (or too large)");
  }
  try {
    return { authority, json: JSON.parse(text) };
  } catch {
    throw new TxrayError("bad_request", "idl account: payload is not JSON");
  }
}

export interface OnchainIdl extends AnchorIdlAccount {
  address: string;
  idl: ParsedIdl;
}

/**
 * Fetches and parses the Anchor IDL published on chain for `programId`, or null when the program has
 * no IDL account. `getAccountInfoBase64` returns the account data as base64 (null when absent), so the
 * caller chooses the RPC client and commitment.
 */
export async function fetchOnchainIdl(
  getAccountInfoBase64: (address: string) => Promise<string | null>,
  programId: string,
): Promise<OnchainIdl | null> {
  const address = anchorIdlAddress(programId);
  const base64 = await getAccountInfoBase64(address);
  if (base64 === null) return null;
  const account = decodeAnchorIdlAccount(new Uint8Array(Buffer.from(base64, "base64")));
  return { address, ...account, idl: parseIdl(account.json) };
}
