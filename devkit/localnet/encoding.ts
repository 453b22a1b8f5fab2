// Account data encodings of getAccountInfo / getMultipleAccounts / simulateTransaction accounts:
// binary (legacy bare base58), base58, base64, base64+zstd and jsonParsed. jsonParsed is
// implemented for upgradeable-loader accounts (what deploy detection reads: Program → programData,
// ProgramData → slot, authority); like mainnet, anything without a parser falls back to base64.

import { encodeBase58 } from "../../src/shared/base58.ts";
import type { AccountView } from "./chain.ts";
import { invalidParams } from "./jsonrpc.ts";
import { decodeLoaderState, parsedLoaderState, UPGRADEABLE_LOADER } from "./loader.ts";

export const ACCOUNT_ENCODINGS = ["binary", "base58", "base64", "base64+zstd", "jsonParsed"] as const;
export type AccountEncoding = (typeof ACCOUNT_ENCODINGS)[number];

/** Every account reports rentEpoch u64::MAX since rent collection ended (exact as a bigint). */
export const RENT_EXEMPT_EPOCH = 18446744073709551615n;

export interface DataSlice {
  offset: number;
  length: number;
}

const BASE58_LIMIT = 128;

function encodeData(data: Uint8Array, encoding: Exclude<AccountEncoding, "jsonParsed">): unknown {
  switch (encoding) {
    case "binary":
    case "base58":
      if (data.length > BASE58_LIMIT) {
        throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
      }
      return encoding === "binary" ? encodeBase58(data) : [encodeBase58(data), "base58"];
    case "base64":
      return [Buffer.from(data).toString("base64"), "base64"];
    case "base64+zstd":
      return [Buffer.from(Bun.zstdCompressSync(data)).toString("base64"), "base64+zstd"];
  }
}

function jsonParsed(account: AccountView): unknown | null {
  if (account.owner === UPGRADEABLE_LOADER) {
    const state = decodeLoaderState(account.data);
    if (state)
      return { parsed: parsedLoaderState(state), program: "bpf-upgradeable-loader", space: account.data.length };
  }
  return null;
}

/** The `value` object of getAccountInfo (null for a missing account is the caller's job). */
export function uiAccount(account: AccountView, encoding: AccountEncoding = "binary", dataSlice?: DataSlice): object {
  let data: unknown = null;
  if (encoding === "jsonParsed") data = jsonParsed(account);
  if (data === null) {
    const sliced = dataSlice
      ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
      : account.data;
    data = encodeData(sliced, encoding === "jsonParsed" ? "base64" : encoding);
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: account.data.length,
  };
}
