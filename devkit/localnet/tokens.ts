// SPL Token / Token-2022 account decoding, only as far as getTransaction's pre/postTokenBalances
// need it: which accounts of a transaction are token accounts, their mint, owner and amount, and the
// mint's decimals. Layouts: Account = mint(32) owner(32) amount(u64) … (165 bytes; Token-2022 adds
// extensions after an account-type byte at 165); Mint = … decimals at 44, is_initialized at 45.

import { encodeBase58 } from "../../src/shared/base58.ts";

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";

const ACCOUNT_LEN = 165;
const MINT_LEN = 82;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export const isTokenProgram = (owner: string) => owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

export interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
}

export function decodeTokenAccount(data: Uint8Array): TokenAccountState | null {
  const isAccount =
    data.length === ACCOUNT_LEN || (data.length > ACCOUNT_LEN && data[ACCOUNT_LEN] === ACCOUNT_TYPE_ACCOUNT);
  if (!isAccount) return null;
  if (data[108] === 0) return null; // AccountState::Uninitialized
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: encodeBase58(data.subarray(0, 32)),
    owner: encodeBase58(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}

/** Decimals of an initialized mint, or null for anything else. */
export function decodeMintDecimals(data: Uint8Array): number | null {
  const isMint = data.length === MINT_LEN || (data.length > ACCOUNT_LEN && data[ACCOUNT_LEN] === ACCOUNT_TYPE_MINT);
  if (!isMint || data[45] !== 1) return null;
  return data[44];
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/** agave's token_amount_to_ui_amount: "3.8", "15", "0.000001". */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
