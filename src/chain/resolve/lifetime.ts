// How an attempt that never landed stops being able to land, when its blockhash expiry does not
// decide it (docs/solana.md "Durable nonces", "Expiry"):
//   - a lastValidBlockHeight further than the chain can honestly give (more than MAX_BLOCKS_TO_EXPIRY
//     past the chain's height at its first look-up) is not believed: once the chain passes the cap
//     and the signature is still not found, the drop is `unknown`, with the implausible value as its
//     evidence, never a blockhash expiry the client's value does not show;
//   - a durable-nonce attempt dies when its nonce account's stored nonce moves past the value it was
//     signed against (or the account is closed): `nonce_advanced`, with the account and both values.

import { NONCE_ACCOUNT_LENGTH, type NonceAccountState, readNonceAccount, SYSTEM_PROGRAM } from "../decode";
import type { RpcClient } from "../rpc";
import { MAX_BLOCKS_TO_EXPIRY } from "./open-attempts";
import type { Attempt, DropDiagnosis } from "./types";

/** The drop of an attempt whose expiry the cap decided: the chain passed `cap`, its lastValidBlockHeight is beyond it. */
export function implausibleExpiryDrop(attempt: Attempt, cap: number, heightAtExpiry: number): DropDiagnosis {
  return {
    dropClass: "unknown",
    confidence: 0.3,
    evidence: [
      {
        kind: "implausible_last_valid_block_height",
        detail: `implausible lastValidBlockHeight ${attempt.lastValidBlockHeight}: more than ${MAX_BLOCKS_TO_EXPIRY} blocks past the chain's height at its first look-up (${cap - MAX_BLOCKS_TO_EXPIRY}), when a blockhash is valid for 150; confirmed block height ${heightAtExpiry} passed ${cap} and no transaction was found, but its expiry cannot be shown`,
        value: attempt.lastValidBlockHeight,
      },
    ],
  };
}

/** A durable-nonce attempt's nonce: the account its first instruction advances and the value it was signed against. */
export type NonceUse = { nonceAccount: string; nonceValue: string };

/**
 * Whether a durable-nonce attempt not found on chain can no longer land: its nonce account's stored nonce is another
 * value than the one it was signed against, or the account is gone. Null while the nonce still matches (it may land).
 * The caller looks the signature up again after the advance was seen: the attempt itself may have advanced it.
 */
export function nonceAdvancedDrop(use: NonceUse, current: NonceAccountState | null): DropDiagnosis | null {
  if (current?.initialized && current.durableNonce === use.nonceValue) return null;
  return {
    dropClass: "nonce_advanced",
    confidence: 0.9,
    evidence: [
      {
        kind: "nonce_account",
        detail: `its first instruction advances the durable nonce stored in ${use.nonceAccount}`,
        value: use.nonceAccount,
      },
      { kind: "nonce_signed", detail: `it was signed against nonce ${use.nonceValue}`, value: use.nonceValue },
      current?.initialized
        ? {
            kind: "nonce_now",
            detail: `the account now stores nonce ${current.durableNonce}: the nonce advanced and the transaction never landed, so it can no longer land`,
            value: current.durableNonce,
          }
        : {
            kind: "nonce_now",
            detail: "the nonce account is closed or no longer initialized: the transaction can no longer land",
            value: null,
          },
    ],
  };
}

/** Nonce accounts' states (null: missing, or not a nonce account), read at `confirmed` in calls of up to 100. */
export async function readNonceAccounts(
  rpc: RpcClient,
  accounts: readonly string[],
): Promise<Map<string, NonceAccountState | null>> {
  const unique = [...new Set(accounts)];
  const states = new Map<string, NonceAccountState | null>();
  for (let i = 0; i < unique.length; i += 100) {
    const group = unique.slice(i, i + 100);
    const answer = await rpc.call<{ value: ({ data: [string, string]; owner: string } | null)[] }>(
      "getMultipleAccounts",
      [group, { commitment: "confirmed", encoding: "base64" }],
    );
    group.forEach((account, k) => {
      const found = answer.value[k];
      const base64 = found?.owner === SYSTEM_PROGRAM ? found.data?.[0] : undefined;
      const data = typeof base64 === "string" ? Buffer.from(base64, "base64") : null;
      states.set(account, data && data.length === NONCE_ACCOUNT_LENGTH ? readNonceAccount(data) : null);
    });
  }
  return states;
}
