// The ledger: every transaction that landed (succeeded or failed on chain with a fee charged), with
// everything getTransaction, getSignatureStatuses, getSignaturesForAddress, getBlock and
// getRecentPrioritizationFees answer from. Transactions that fail the load stage (bad blockhash, fee
// payer cannot pay) never get here, exactly as on mainnet where they never land.

import type { TransactionErrorJson } from "./errors.ts";
import type { UiTokenAmount } from "./tokens.ts";
import type { ParsedTransaction } from "./wire.ts";

export interface UiInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  stackHeight: number;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

export interface ReturnData {
  programId: string;
  data: [string, "base64"];
}

export interface TxRecord {
  signature: string;
  slot: number;
  /** Start time (ms) of the block the transaction landed in. */
  blockTimeMs: number;
  transaction: ParsedTransaction;
  /** Static keys followed by loaded writable and loaded readonly addresses. */
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  innerInstructions: { index: number; instructions: UiInnerInstruction[] }[];
  computeUnitsConsumed: number;
  returnData: ReturnData | null;
  cuPriceMicroLamports: bigint;
  writableAccounts: string[];
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: TransactionErrorJson | null;
  memo: null;
  blockTime: number;
}

export class Ledger {
  private readonly bySignature = new Map<string, TxRecord>();
  private readonly bySlotMap = new Map<number, TxRecord[]>();
  private readonly byAddress = new Map<string, TxRecord[]>();

  add(record: TxRecord): void {
    this.bySignature.set(record.signature, record);
    let slotList = this.bySlotMap.get(record.slot);
    if (!slotList) this.bySlotMap.set(record.slot, (slotList = []));
    slotList.push(record);
    for (const key of new Set(record.accountKeys)) {
      let list = this.byAddress.get(key);
      if (!list) this.byAddress.set(key, (list = []));
      list.push(record);
    }
  }

  get(signature: string): TxRecord | undefined {
    return this.bySignature.get(signature);
  }

  has(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  get count(): number {
    return this.bySignature.size;
  }

  inSlot(slot: number): TxRecord[] {
    return this.bySlotMap.get(slot) ?? [];
  }

  /** Newest first, like getSignaturesForAddress; `before`/`until` are exclusive signature bounds. */
  signaturesForAddress(address: string, options: { limit: number; before?: string; until?: string }): TxRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const out: TxRecord[] = [];
    let started = options.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < options.limit; i--) {
      const record = list[i];
      if (!started) {
        if (record.signature === options.before) started = true;
        continue;
      }
      if (record.signature === options.until) break;
      out.push(record);
    }
    return out;
  }
}
