// The Solana JSON-RPC methods the local chain answers, with mainnet's parameter forms, result shapes
// and error codes/messages (agave rpc.rs / custom_error.rs). Parameters are validated with zod; a
// bad one is -32602. sendTransaction runs preflight (signature check, then simulation) unless
// skipPreflight, then hands the transaction to this endpoint's Provider, which may drop it.

import { z } from "zod";
import { decodeBase58, isBase58Address, isBase58Signature } from "../../src/shared/base58.ts";
import { SLOTS_PER_EPOCH } from "./blocks.ts";
import type { LocalChain } from "./chain.ts";
import { ACCOUNT_ENCODINGS, uiAccount } from "./encoding.ts";
import { displayTransactionError } from "./errors.ts";
import { invalidParams, parseParams, RpcError } from "./jsonrpc.ts";
import type { Provider } from "./provider.ts";
import {
  checkVersionSupported,
  TRANSACTION_ENCODINGS,
  uiBlockTransaction,
  uiConfirmedTransaction,
  uiSimulation,
} from "./txformat.ts";
import { parseTransaction, WireError } from "./wire.ts";

export const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
export const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const BLOCK_NOT_AVAILABLE = -32004;
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

export const API_VERSION = "2.2.7";
export const SOLANA_CORE_VERSION = "2.2.7";
export const FEATURE_SET = 3294202862;

const MAX_GET_SIGNATURE_STATUSES = 256;
const MAX_MULTIPLE_ACCOUNTS = 100;
const PACKET_DATA_SIZE = 1232;
const MAX_BASE58_SIZE = 1683;
const MAX_BASE64_SIZE = 1644;

export type Handler = (params: unknown) => unknown;

export interface EndpointContext {
  chain: LocalChain;
  /** The provider behind the endpoint that received the call. */
  provider: Provider;
}

// ---- parameter schemas ----------------------------------------------------------------------

const commitment = z.enum(["processed", "confirmed", "finalized", "recent", "single", "singleGossip", "root", "max"]);
const contextConfig = z.looseObject({
  commitment: commitment.optional(),
  minContextSlot: z.number().int().nonnegative().optional(),
});
const optionalConfig = <T extends z.ZodType>(schema: T) => schema.nullish();
const dataSlice = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
const accountConfig = contextConfig.extend({
  encoding: z.enum(ACCOUNT_ENCODINGS).optional(),
  dataSlice: dataSlice.optional(),
});
const u64 = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

const noParams = z.union([z.tuple([]), z.tuple([optionalConfig(contextConfig)])]);

// ---- helpers --------------------------------------------------------------------------------

function address(text: string): string {
  if (!isBase58Address(text)) throw new RpcError(-32602, "Invalid param: Invalid");
  return text;
}

function signature(text: string): string {
  if (!isBase58Signature(text)) throw new RpcError(-32602, "Invalid param: Invalid");
  return text;
}

function decodeWire(text: string, encoding: "base58" | "base64"): Uint8Array {
  const max = encoding === "base58" ? MAX_BASE58_SIZE : MAX_BASE64_SIZE;
  if (text.length > max) {
    throw invalidParams(
      `${encoding} encoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${text.length} bytes (max: encoded/raw ${max}/${PACKET_DATA_SIZE})`,
    );
  }
  const bytes = encoding === "base58" ? decodeBase58(text) : base64Bytes(text);
  if (!bytes) throw invalidParams(`invalid ${encoding} encoding`);
  if (bytes.length > PACKET_DATA_SIZE) {
    throw invalidParams(
      `decoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
    );
  }
  return bytes;
}

function base64Bytes(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  return new Uint8Array(Buffer.from(text, "base64"));
}

function parseWire(bytes: Uint8Array) {
  try {
    return parseTransaction(bytes);
  } catch (error) {
    if (error instanceof WireError) throw invalidParams(`invalid transaction: ${error.message}`);
    throw error;
  }
}

export function createMethods({ chain, provider }: EndpointContext): Record<string, Handler> {
  const context = () => ({ apiVersion: API_VERSION, slot: chain.slot });
  const withContext = (value: unknown) => ({ context: context(), value });
  const checkMinContextSlot = (config: { minContextSlot?: number } | null | undefined) => {
    if (config?.minContextSlot !== undefined && config.minContextSlot > chain.slot) {
      throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, "Minimum context slot has not been reached", {
        contextSlot: chain.slot,
      });
    }
  };
  const accountValue = (key: string, config: z.infer<typeof accountConfig> | null | undefined) => {
    const account = chain.getAccount(address(key));
    return account ? uiAccount(account, config?.encoding ?? "binary", config?.dataSlice) : null;
  };

  return {
    getHealth: () => "ok",
    getVersion: () => ({ "feature-set": FEATURE_SET, "solana-core": SOLANA_CORE_VERSION }),
    getGenesisHash: () => chain.genesisHash,
    getIdentity: () => ({ identity: chain.faucet.publicKey.toBase58() }),
    getFirstAvailableBlock: () => chain.clock.firstAvailableSlot,
    minimumLedgerSlot: () => chain.clock.firstAvailableSlot,

    getSlot: (params) => {
      checkMinContextSlot(parseParams(noParams, params)[0]);
      return chain.slot;
    },
    getBlockHeight: (params) => {
      checkMinContextSlot(parseParams(noParams, params)[0]);
      return chain.blockHeight;
    },
    getTransactionCount: (params) => {
      parseParams(noParams, params);
      return chain.ledger.count;
    },
    getEpochInfo: (params) => {
      checkMinContextSlot(parseParams(noParams, params)[0]);
      return {
        absoluteSlot: chain.slot,
        blockHeight: chain.blockHeight,
        epoch: chain.epoch,
        slotIndex: chain.slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: chain.ledger.count,
      };
    },
    getEpochSchedule: () => ({
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      slotsPerEpoch: SLOTS_PER_EPOCH,
      warmup: false,
    }),
    getLatestBlockhash: (params) => {
      checkMinContextSlot(parseParams(noParams, params)[0]);
      return withContext(chain.latestBlockhash());
    },
    isBlockhashValid: (params) => {
      const [blockhash, config] = parseParams(z.tuple([z.string(), optionalConfig(contextConfig)]), params);
      checkMinContextSlot(config);
      return withContext(chain.clock.isBlockhashValid(address(blockhash)));
    },
    getMinimumBalanceForRentExemption: (params) => {
      const [length] = parseParams(z.tuple([z.number().int().nonnegative(), optionalConfig(contextConfig)]), params);
      return chain.minimumBalanceForRentExemption(length);
    },
    getFeeForMessage: (params) => {
      const [message, config] = parseParams(z.tuple([z.string(), optionalConfig(contextConfig)]), params);
      checkMinContextSlot(config);
      const bytes = base64Bytes(message);
      if (!bytes) throw invalidParams("invalid base64 encoding");
      try {
        return withContext(chain.feeForMessage(bytes));
      } catch (error) {
        if (error instanceof WireError) throw invalidParams(error.message);
        throw error;
      }
    },
    getRecentPrioritizationFees: (params) => {
      const [addresses] = parseParams(
        z.union([z.tuple([]), z.tuple([z.array(z.string()).max(128).nullish()])]),
        params,
      );
      return chain.recentPrioritizationFees((addresses ?? []).map(address));
    },

    getBalance: (params) => {
      const [key, config] = parseParams(z.tuple([z.string(), optionalConfig(contextConfig)]), params);
      checkMinContextSlot(config);
      return withContext(chain.getBalance(address(key)));
    },
    getAccountInfo: (params) => {
      const [key, config] = parseParams(z.tuple([z.string(), optionalConfig(accountConfig)]), params);
      checkMinContextSlot(config);
      return withContext(accountValue(key, config));
    },
    getMultipleAccounts: (params) => {
      const [keys, config] = parseParams(z.tuple([z.array(z.string()), optionalConfig(accountConfig)]), params);
      if (keys.length > MAX_MULTIPLE_ACCOUNTS)
        throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      checkMinContextSlot(config);
      return withContext(keys.map((key) => accountValue(key, config)));
    },
    requestAirdrop: (params) => {
      const [key, lamports] = parseParams(z.tuple([z.string(), u64, optionalConfig(contextConfig)]), params);
      const result = chain.airdrop(address(key), lamports);
      if (!result.landed || result.err) {
        throw new RpcError(
          -32603,
          `Internal error: airdrop failed: ${result.err ? displayTransactionError(result.err) : "not landed"}`,
        );
      }
      return result.signature;
    },

    sendTransaction: (params) => {
      const config = z.looseObject({
        encoding: z.enum(["base58", "base64"]).optional(),
        skipPreflight: z.boolean().optional(),
        preflightCommitment: commitment.optional(),
        maxRetries: z.number().int().nonnegative().optional(),
        minContextSlot: z.number().int().nonnegative().optional(),
      });
      const [text, options] = parseParams(z.tuple([z.string(), optionalConfig(config)]), params);
      const bytes = decodeWire(text, options?.encoding ?? "base58");
      const tx = parseWire(bytes);
      provider.stats.received++;
      if (!options?.skipPreflight) {
        checkMinContextSlot(options);
        const simulation = chain.simulate(bytes, { sigVerify: true });
        if (simulation.err === "SignatureFailure") {
          provider.stats.preflightFailed++;
          throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, "Transaction signature verification failure");
        }
        if (simulation.err !== null) {
          provider.stats.preflightFailed++;
          throw new RpcError(
            SEND_TRANSACTION_PREFLIGHT_FAILURE,
            `Transaction simulation failed: ${displayTransactionError(simulation.err)}`,
            uiSimulation({ ...simulation, accounts: null }),
          );
        }
      }
      provider.forward(bytes);
      return tx.signatures[0];
    },
    simulateTransaction: (params) => {
      const config = z.looseObject({
        encoding: z.enum(["base58", "base64"]).optional(),
        sigVerify: z.boolean().optional(),
        replaceRecentBlockhash: z.boolean().optional(),
        commitment: commitment.optional(),
        minContextSlot: z.number().int().nonnegative().optional(),
        innerInstructions: z.boolean().optional(),
        accounts: z
          .object({ addresses: z.array(z.string()), encoding: z.enum(ACCOUNT_ENCODINGS).optional() })
          .nullish(),
      });
      const [text, options] = parseParams(z.tuple([z.string(), optionalConfig(config)]), params);
      checkMinContextSlot(options);
      if (options?.sigVerify && options.replaceRecentBlockhash) {
        throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      }
      const bytes = decodeWire(text, options?.encoding ?? "base58");
      parseWire(bytes);
      const addresses = options?.accounts?.addresses.map(address);
      const simulation = chain.simulate(bytes, {
        sigVerify: options?.sigVerify ?? false,
        replaceRecentBlockhash: options?.replaceRecentBlockhash ?? false,
        accounts: addresses,
      });
      return withContext(
        uiSimulation(simulation, {
          accountsEncoding: options?.accounts?.encoding,
          innerInstructions: options?.innerInstructions,
        }),
      );
    },

    getSignatureStatuses: (params) => {
      const [signatures, config] = parseParams(
        z.tuple([
          z.array(z.string()),
          optionalConfig(z.looseObject({ searchTransactionHistory: z.boolean().optional() })),
        ]),
        params,
      );
      if (signatures.length > MAX_GET_SIGNATURE_STATUSES) {
        throw invalidParams(`Too many inputs provided; max ${MAX_GET_SIGNATURE_STATUSES}`);
      }
      const search = config?.searchTransactionHistory ?? false;
      return withContext(
        signatures.map((sig) => {
          const status = chain.signatureStatus(signature(sig), search);
          return status ? { ...status, status: status.err === null ? { Ok: null } : { Err: status.err } } : null;
        }),
      );
    },
    getTransaction: (params) => {
      const config = z.looseObject({
        encoding: z.enum(TRANSACTION_ENCODINGS).optional(),
        commitment: commitment.optional(),
        maxSupportedTransactionVersion: z.number().int().nonnegative().optional(),
      });
      const [sig, rawConfig] = parseParams(
        z.tuple([z.string(), z.union([z.enum(TRANSACTION_ENCODINGS), config]).nullish()]),
        params,
      );
      const options = typeof rawConfig === "string" ? { encoding: rawConfig } : (rawConfig ?? {});
      if (options.commitment === "processed" || options.commitment === "recent") {
        throw invalidParams("Method does not support commitment below `confirmed`");
      }
      const record = chain.ledger.get(signature(sig));
      if (!record) return null;
      const max = "maxSupportedTransactionVersion" in options ? options.maxSupportedTransactionVersion : undefined;
      checkVersionSupported(record, max);
      return uiConfirmedTransaction(record, options.encoding ?? "json", max);
    },
    getSignaturesForAddress: (params) => {
      const config = contextConfig.extend({
        limit: z.number().int().min(1).max(1000).optional(),
        before: z.string().optional(),
        until: z.string().optional(),
      });
      const [key, options] = parseParams(z.tuple([z.string(), optionalConfig(config)]), params);
      checkMinContextSlot(options);
      const records = chain.ledger.signaturesForAddress(address(key), {
        limit: options?.limit ?? 1000,
        before: options?.before,
        until: options?.until,
      });
      return records.map((record) => {
        const status = chain.signatureStatus(record.signature, true)!;
        return {
          signature: record.signature,
          slot: record.slot,
          err: record.err,
          memo: null,
          blockTime: Math.floor(record.blockTimeMs / 1000),
          confirmationStatus: status.confirmationStatus,
        };
      });
    },
    getBlockTime: (params) => {
      const [slot] = parseParams(z.tuple([z.number().int().nonnegative()]), params);
      const time = slot <= chain.slot ? chain.clock.timeOfSlot(slot) : undefined;
      if (time === undefined) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
      return Math.floor(time / 1000);
    },
    getBlock: (params) => {
      const config = z.looseObject({
        encoding: z.enum(TRANSACTION_ENCODINGS).optional(),
        transactionDetails: z.enum(["full", "signatures", "none"]).optional(),
        rewards: z.boolean().optional(),
        commitment: commitment.optional(),
        maxSupportedTransactionVersion: z.number().int().nonnegative().optional(),
      });
      const [slot, rawConfig] = parseParams(
        z.tuple([z.number().int().nonnegative(), z.union([z.enum(TRANSACTION_ENCODINGS), config]).nullish()]),
        params,
      );
      const options = typeof rawConfig === "string" ? { encoding: rawConfig } : (rawConfig ?? {});
      // The current block is still being built; only sealed blocks are served, as on mainnet.
      const time = slot < chain.slot ? chain.clock.timeOfSlot(slot) : undefined;
      if (time === undefined) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
      return blockAt(chain, slot, time, options);
    },
  };
}

function blockAt(
  chain: LocalChain,
  slot: number,
  timeMs: number,
  options: {
    encoding?: (typeof TRANSACTION_ENCODINGS)[number];
    transactionDetails?: string;
    rewards?: boolean;
    maxSupportedTransactionVersion?: number;
  },
) {
  const records = chain.ledger.inSlot(slot);
  const max = options.maxSupportedTransactionVersion;
  const details = options.transactionDetails ?? "full";
  for (const record of records) if (details === "full") checkVersionSupported(record, max);
  const parentSlot = Math.max(chain.clock.firstAvailableSlot, slot - 1);
  return {
    blockHeight: chain.blockHeight - (chain.slot - slot),
    blockTime: Math.floor(timeMs / 1000),
    blockhash: chain.clock.blockhashOfSlot(slot)!,
    parentSlot,
    previousBlockhash: chain.clock.blockhashOfSlot(parentSlot)!,
    rewards: options.rewards === false ? undefined : [],
    signatures: details === "signatures" ? records.map((r) => r.signature) : undefined,
    transactions:
      details === "full" ? records.map((r) => uiBlockTransaction(r, options.encoding ?? "json", max)) : undefined,
  };
}
