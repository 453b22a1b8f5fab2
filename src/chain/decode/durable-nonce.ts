// Durable-nonce transactions (docs/solana.md "Durable nonces"): a transaction whose first instruction
// is the System program's AdvanceNonceAccount (instruction 4; accounts: the nonce account, the
// RecentBlockhashes sysvar, the nonce authority) uses the nonce account's stored value as its
// "recent blockhash". It never expires by block height: it stays valid until that stored value
// changes (the nonce advances), which this transaction or any other that advances the nonce does.
//
// A nonce account's data (agave `sdk/program/src/nonce/state/mod.rs` `Versions { Legacy, Current }` and
// `current.rs` `State { Uninitialized, Initialized(Data) }`, `Data { authority, durable_nonce,
// fee_calculator }`; now the anza-xyz/solana-sdk `nonce` crate; 80 bytes, bincode):
//   u32 version (0 legacy, 1 current) · u32 state (0 uninitialized, 1 initialized) ·
//   32-byte authority · 32-byte durable nonce (the blockhash it stores) · u64 lamports per signature.

import { decodeBase58, encodeBase58 } from "../../shared/base58";
import { SYSTEM_PROGRAM } from "./program-ids";

/** The System program's AdvanceNonceAccount: its u32 instruction index. */
export const ADVANCE_NONCE_INSTRUCTION = 4;
export const NONCE_ACCOUNT_LENGTH = 80;
export const RECENT_BLOCKHASHES_SYSVAR = "SysvarRecentB1ockHashes11111111111111111111";

export type NonceAccountState = {
  version: number;
  initialized: boolean;
  authority: string;
  /** The stored blockhash a transaction using this nonce names as its recent blockhash. */
  durableNonce: string;
  lamportsPerSignature: number;
};

/** A nonce account's state from its data; null when the data is not a nonce account's. */
export function readNonceAccount(data: Uint8Array): NonceAccountState | null {
  if (data.length !== NONCE_ACCOUNT_LENGTH) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(0, true);
  const state = view.getUint32(4, true);
  if (version > 1 || state > 1) return null;
  return {
    version,
    initialized: state === 1,
    authority: encodeBase58(data.subarray(8, 40)),
    durableNonce: encodeBase58(data.subarray(40, 72)),
    lamportsPerSignature: Number(view.getBigUint64(72, true)),
  };
}

export type DurableNonceUse = {
  nonceAccount: string;
  authority: string | null;
  /** The nonce value the transaction was signed against (its message's recentBlockhash). */
  nonceValue: string;
};

type InstructionJson = { programIdIndex?: number; programId?: string; accounts?: (number | string)[]; data?: string };
type TransactionJson = {
  transaction?: {
    message?: {
      accountKeys?: (string | { pubkey?: string })[];
      recentBlockhash?: string;
      instructions?: InstructionJson[];
    };
  };
  meta?: { loadedAddresses?: { writable?: string[]; readonly?: string[] } | null } | null;
};

/**
 * The durable nonce a fetched transaction (getTransaction, `json` encoding, or `jsonParsed` for the keys) uses: its
 * first instruction advances a nonce account. Null for a blockhash transaction.
 */
export function durableNonceOf(tx: unknown): DurableNonceUse | null {
  const json = tx as TransactionJson | null;
  const message = json?.transaction?.message;
  const first = message?.instructions?.[0];
  if (!message || !first || typeof message.recentBlockhash !== "string") return null;
  const keys = [
    ...(message.accountKeys ?? []).map((key) => (typeof key === "string" ? key : (key?.pubkey ?? ""))),
    ...(json?.meta?.loadedAddresses?.writable ?? []),
    ...(json?.meta?.loadedAddresses?.readonly ?? []),
  ];
  const keyOf = (ref: number | string | undefined) => (typeof ref === "number" ? (keys[ref] ?? null) : (ref ?? null));
  const program = first.programId ?? keyOf(first.programIdIndex);
  if (program !== SYSTEM_PROGRAM || typeof first.data !== "string") return null;
  const data = decodeBase58(first.data);
  if (!data || data.length < 4) return null;
  if (new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true) !== ADVANCE_NONCE_INSTRUCTION) return null;
  const nonceAccount = keyOf(first.accounts?.[0]);
  if (!nonceAccount) return null;
  return { nonceAccount, authority: keyOf(first.accounts?.[2]), nonceValue: message.recentBlockhash };
}
