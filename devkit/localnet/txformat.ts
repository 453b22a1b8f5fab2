// Shapes of transactions in RPC answers: getTransaction (json, base64, base58, jsonParsed),
// getBlock's transaction entries, and the simulateTransaction / -32002 preflight payload
// (RpcSimulateTransactionResult). Field names and nesting follow agave's UiTransaction* types,
// checked against the mainnet samples in /work/shared/realdata.

import { encodeBase58 } from "../../src/shared/base58.ts";
import type { SimulationResult } from "./chain.ts";
import { type AccountEncoding, uiAccount } from "./encoding.ts";
import { RpcError } from "./jsonrpc.ts";
import type { TxRecord, UiInnerInstruction } from "./ledger.ts";
import { isSignerIndex, isWritableIndex } from "./wire.ts";

export const TRANSACTION_ENCODINGS = ["json", "jsonParsed", "base64", "base58"] as const;
export type TransactionEncoding = (typeof TRANSACTION_ENCODINGS)[number];

export const UNSUPPORTED_TRANSACTION_VERSION = -32015;

/** -32015 when a v0 transaction is asked for without maxSupportedTransactionVersion (agave's text). */
export function checkVersionSupported(record: TxRecord, maxSupportedTransactionVersion: number | undefined): void {
  const version = record.transaction.message.version;
  if (version === "legacy") return;
  if (maxSupportedTransactionVersion === undefined || maxSupportedTransactionVersion < version) {
    throw new RpcError(
      UNSUPPORTED_TRANSACTION_VERSION,
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    );
  }
}

function parsedAccountKeys(record: TxRecord) {
  const { message } = record.transaction;
  const staticCount = message.staticKeys.length;
  return record.accountKeys.map((pubkey, i) => ({
    pubkey,
    signer: isSignerIndex(message, i),
    source: i < staticCount ? "transaction" : "lookupTable",
    writable: isWritableIndex(message, i, record.loadedAddresses.writable.length),
  }));
}

function partiallyDecoded(
  keys: string[],
  ix: { programIdIndex: number; accounts: number[]; data: string },
  stackHeight: number | null,
) {
  return { accounts: ix.accounts.map((i) => keys[i]), data: ix.data, programId: keys[ix.programIdIndex], stackHeight };
}

function uiTransaction(record: TxRecord, encoding: TransactionEncoding): unknown {
  const { transaction } = record;
  const { message } = transaction;
  if (encoding === "base64") return [Buffer.from(transaction.bytes).toString("base64"), "base64"];
  if (encoding === "base58") return [encodeBase58(transaction.bytes), "base58"];
  const lookups = message.version === 0 ? { addressTableLookups: message.addressTableLookups } : {};
  if (encoding === "jsonParsed") {
    return {
      message: {
        accountKeys: parsedAccountKeys(record),
        instructions: message.instructions.map((ix) =>
          partiallyDecoded(record.accountKeys, { ...ix, data: encodeBase58(ix.data) }, null),
        ),
        recentBlockhash: message.recentBlockhash,
        ...lookups,
      },
      signatures: transaction.signatures,
    };
  }
  return {
    message: {
      accountKeys: message.staticKeys,
      header: message.header,
      instructions: message.instructions.map((ix) => ({
        accounts: ix.accounts,
        data: encodeBase58(ix.data),
        programIdIndex: ix.programIdIndex,
        stackHeight: null,
      })),
      recentBlockhash: message.recentBlockhash,
      ...lookups,
    },
    signatures: transaction.signatures,
  };
}

function uiMeta(record: TxRecord, encoding: TransactionEncoding) {
  const parsed = encoding === "jsonParsed";
  const inner = (list: UiInnerInstruction[]) =>
    parsed ? list.map((ix) => partiallyDecoded(record.accountKeys, ix, ix.stackHeight)) : list;
  return {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.innerInstructions.map((group) => ({
      index: group.index,
      instructions: inner(group.instructions),
    })),
    logMessages: record.logMessages,
    preTokenBalances: record.preTokenBalances,
    postTokenBalances: record.postTokenBalances,
    rewards: [],
    loadedAddresses: parsed ? undefined : record.loadedAddresses,
    returnData: record.returnData ?? undefined,
    computeUnitsConsumed: record.computeUnitsConsumed,
  };
}

/** getTransaction's result object (version only when the client sent maxSupportedTransactionVersion). */
export function uiConfirmedTransaction(
  record: TxRecord,
  encoding: TransactionEncoding,
  maxSupportedTransactionVersion?: number,
) {
  return {
    slot: record.slot,
    transaction: uiTransaction(record, encoding),
    meta: uiMeta(record, encoding),
    version: maxSupportedTransactionVersion === undefined ? undefined : record.transaction.message.version,
    blockTime: Math.floor(record.blockTimeMs / 1000),
  };
}

/** One entry of getBlock's `transactions`. */
export function uiBlockTransaction(
  record: TxRecord,
  encoding: TransactionEncoding,
  maxSupportedTransactionVersion?: number,
) {
  return {
    transaction: uiTransaction(record, encoding),
    meta: uiMeta(record, encoding),
    version: maxSupportedTransactionVersion === undefined ? undefined : record.transaction.message.version,
  };
}

/** RpcSimulateTransactionResult, the `value` of simulateTransaction and the `data` of a -32002 error. */
export function uiSimulation(
  result: SimulationResult,
  options: { accountsEncoding?: AccountEncoding; innerInstructions?: boolean } = {},
) {
  return {
    err: result.err,
    logs: result.logs,
    accounts: result.accounts
      ? result.accounts.map((account) => (account ? uiAccount(account, options.accountsEncoding ?? "base64") : null))
      : null,
    unitsConsumed: result.unitsConsumed,
    returnData: result.returnData,
    innerInstructions: options.innerInstructions
      ? result.innerInstructions.map((group) => ({
          index: group.index,
          instructions: group.instructions.map((ix) => partiallyDecoded(result.accountKeys, ix, ix.stackHeight)),
        }))
      : null,
    replacementBlockhash: result.replacementBlockhash,
  };
}
