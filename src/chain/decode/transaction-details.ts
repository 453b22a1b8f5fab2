// Everything the chain recorded about one transaction, laid out as a block explorer shows it (the
// transaction page, docs/api.md#get-v1txsig): its accounts (signer, writable, loaded from an address
// lookup table), each account's SOL balance before and after, token balance changes by account,
// owner and mint, the fee and its priority part, compute used, requested and the cost units the
// scheduler charged, the recent blockhash, and the instructions numbered as Solana Explorer numbers
// them (1, 2 at top level; 2.1, 2.2 the instructions the second one invoked, in order, whatever
// their depth),
// each named and, where an IDL is registered for its program, with its arguments decoded.
// Reads json, jsonParsed and base64/base58 `getTransaction` results, legacy or v0. Pure.

import { decodeBase58, encodeBase58 } from "../../shared/base58";
import { decodeInstructionArgs, type IdlRegistry } from "../idl";
import { requestedComputeUnits } from "./compute-budget";
import { decodedInstructionName } from "./instruction-names";
import { COMPUTE_BUDGET_PROGRAM, programName } from "./program-ids";
import type { NormalizedInstruction } from "./rpc-shapes";
import { decodeWireTransaction } from "./wire";

/** The fee every signature costs (lamports), before any priority fee. */
export const LAMPORTS_PER_SIGNATURE = 5_000;
const SET_COMPUTE_UNIT_PRICE = 3;

export type DetailAccount = {
  /** Position in the transaction's account list (static keys, then loaded writable, then loaded readonly). */
  index: number;
  address: string;
  signer: boolean;
  writable: boolean;
  /** `lookupTable`: loaded from an address lookup table (`meta.loadedAddresses`), named by `lookupTable`. */
  source: "transaction" | "lookupTable";
  lookupTable: string | null;
  preLamports: number | null;
  postLamports: number | null;
  changeLamports: number | null;
};

export type DetailTokenBalance = {
  accountIndex: number;
  account: string | null;
  owner: string | null;
  mint: string;
  programId: string | null;
  decimals: number;
  /** Raw amounts (base units) as decimal strings; null when the account had no balance on that side. */
  pre: string | null;
  post: string | null;
  change: string;
  /** `change` in whole tokens (shifted by `decimals`). */
  uiChange: string;
};

export type DetailInstruction = {
  /** As Solana Explorer numbers it: "3" (top level), "3.2" (the second instruction the third one invoked). */
  number: string;
  programId: string | null;
  programName: string | null;
  name: string | null;
  /** Invoke depth: 1 at top level, 2 for a CPI made by it, … (null when the RPC did not report it). */
  stackHeight: number | null;
  accounts: string[];
  /** The instruction data, base58 (null when the RPC returned it parsed). */
  data: string | null;
  /** Arguments decoded by the program's IDL, or the RPC's parsed `info`; null when neither reads them. */
  args: Record<string, unknown> | null;
  argsSource: "idl" | "rpc" | null;
  /** The top-level instruction the transaction error names (meta.err InstructionError). */
  failed: boolean;
};

/** A top-level instruction, with the instructions it invoked. */
export type DetailTopInstruction = DetailInstruction & { inner: DetailInstruction[] };

export type TransactionDetails = {
  version: "legacy" | number | null;
  signatures: string[];
  recentBlockhash: string | null;
  err: unknown;
  accounts: DetailAccount[];
  tokenBalances: DetailTokenBalance[];
  fee: {
    lamports: number | null;
    /** LAMPORTS_PER_SIGNATURE per signature. */
    baseLamports: number;
    /** µlamports per compute unit, from the SetComputeUnitPrice instruction; 0 without one. */
    cuPriceMicroLamports: number;
    /** ceil(price × requested compute units / 1,000,000) lamports. */
    priorityLamports: number;
  };
  compute: { used: number | null; requested: number | null; costUnits: number | null };
  instructions: DetailTopInstruction[];
  logs: string[] | null;
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const asNumber = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

type RawInstruction = {
  programId: string | null;
  accounts: string[];
  data: Uint8Array | null;
  parsedType: string | null;
  parsedInfo: Json | null;
  stackHeight: number | null;
};

type Lookup = { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] };

type Message = {
  version: "legacy" | number | null;
  signatures: string[];
  header: [number, number, number] | null;
  staticKeys: string[];
  /** jsonParsed gives each key's flags itself. */
  parsedKeys: { signer: boolean; writable: boolean; source: string }[] | null;
  recentBlockhash: string | null;
  instructions: RawInstruction[];
  lookups: Lookup[];
};

function lookupsOf(value: unknown): Lookup[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((l) => ({
    accountKey: typeof l.accountKey === "string" ? l.accountKey : "",
    writableIndexes: Array.isArray(l.writableIndexes) ? l.writableIndexes.filter((i) => typeof i === "number") : [],
    readonlyIndexes: Array.isArray(l.readonlyIndexes) ? l.readonlyIndexes.filter((i) => typeof i === "number") : [],
  }));
}

function jsonInstruction(raw: unknown, keys: string[]): RawInstruction {
  const ix = isObject(raw) ? raw : {};
  const programId =
    typeof ix.programId === "string"
      ? ix.programId
      : typeof ix.programIdIndex === "number"
        ? (keys[ix.programIdIndex] ?? null)
        : null;
  const accounts = Array.isArray(ix.accounts)
    ? ix.accounts.map((a) => (typeof a === "number" ? (keys[a] ?? "") : typeof a === "string" ? a : ""))
    : [];
  const parsed = isObject(ix.parsed) ? ix.parsed : null;
  return {
    programId,
    accounts,
    data: typeof ix.data === "string" ? decodeBase58(ix.data) : null,
    parsedType: parsed && typeof parsed.type === "string" ? parsed.type : null,
    parsedInfo: parsed && isObject(parsed.info) ? parsed.info : null,
    stackHeight: asNumber(ix.stackHeight),
  };
}

function readMessage(transaction: unknown, loaded: string[], version: unknown): Message | null {
  let value = transaction;
  if (typeof value === "string") value = [value, "base64"];
  if (Array.isArray(value) && typeof value[0] === "string") {
    const bytes = value[1] === "base58" ? decodeBase58(value[0]) : new Uint8Array(Buffer.from(value[0], "base64"));
    if (!bytes) return null;
    const wire = decodeWireTransaction(bytes);
    const keys = [...wire.staticAccountKeys, ...loaded];
    const signatureCount = bytes[0] < 0x80 ? bytes[0] : 0;
    const signatures = Array.from({ length: signatureCount }, (_, i) =>
      encodeBase58(bytes.subarray(1 + i * 64, 1 + (i + 1) * 64)),
    );
    return {
      version: wire.version,
      signatures,
      header: wire.header,
      staticKeys: wire.staticAccountKeys,
      parsedKeys: null,
      recentBlockhash: wire.recentBlockhash,
      instructions: wire.instructions.map((ix) => ({
        programId: keys[ix.programIdIndex] ?? null,
        accounts: ix.accounts.map((i) => keys[i] ?? ""),
        data: ix.data,
        parsedType: null,
        parsedInfo: null,
        stackHeight: 1,
      })),
      lookups: wire.addressTableLookups,
    };
  }
  if (!isObject(value)) return null;
  const message = isObject(value.message) ? value.message : value;
  if (!Array.isArray(message.accountKeys) || !Array.isArray(message.instructions)) return null;
  const parsedKeys = message.accountKeys.every(isObject)
    ? (message.accountKeys as Json[]).map((k) => ({
        signer: k.signer === true,
        writable: k.writable === true,
        source: typeof k.source === "string" ? k.source : "transaction",
      }))
    : null;
  const staticKeys = message.accountKeys.map((k) =>
    typeof k === "string" ? k : isObject(k) && typeof k.pubkey === "string" ? k.pubkey : "",
  );
  // jsonParsed lists the loaded keys among its own; json lists only the static ones.
  const keys = parsedKeys ? staticKeys : [...staticKeys, ...loaded];
  const header = isObject(message.header)
    ? ([
        asNumber(message.header.numRequiredSignatures) ?? 0,
        asNumber(message.header.numReadonlySignedAccounts) ?? 0,
        asNumber(message.header.numReadonlyUnsignedAccounts) ?? 0,
      ] as [number, number, number])
    : null;
  return {
    version: version === "legacy" || typeof version === "number" ? version : null,
    signatures: strings(value.signatures),
    header,
    staticKeys,
    parsedKeys,
    recentBlockhash: typeof message.recentBlockhash === "string" ? message.recentBlockhash : null,
    instructions: message.instructions.map((ix) => jsonInstruction(ix, keys)),
    lookups: lookupsOf(message.addressTableLookups),
  };
}

/** The account list with its flags: static keys by the header's rule, loaded keys by their table. */
function accountsOf(message: Message | null, meta: Json, loadedWritable: string[], loadedReadonly: string[]) {
  const pre = Array.isArray(meta.preBalances) ? meta.preBalances : [];
  const post = Array.isArray(meta.postBalances) ? meta.postBalances : [];
  const writableTables = (message?.lookups ?? []).flatMap((l) => l.writableIndexes.map(() => l.accountKey));
  const readonlyTables = (message?.lookups ?? []).flatMap((l) => l.readonlyIndexes.map(() => l.accountKey));
  const staticKeys = message?.staticKeys ?? [];
  const [signatures, readonlySigned, readonlyUnsigned] = message?.header ?? [0, 0, 0];
  const rows: Omit<DetailAccount, "index" | "preLamports" | "postLamports" | "changeLamports">[] = [
    ...staticKeys.map((address, i) => {
      const parsed = message?.parsedKeys?.[i];
      return {
        address,
        signer: parsed ? parsed.signer : i < signatures,
        writable: parsed
          ? parsed.writable
          : i < signatures
            ? i < signatures - readonlySigned
            : i < staticKeys.length - readonlyUnsigned,
        source: "transaction" as const,
        lookupTable: null,
      };
    }),
    ...loadedWritable.map((address, i) => ({
      address,
      signer: false,
      writable: true,
      source: "lookupTable" as const,
      lookupTable: writableTables[i] ?? null,
    })),
    ...loadedReadonly.map((address, i) => ({
      address,
      signer: false,
      writable: false,
      source: "lookupTable" as const,
      lookupTable: readonlyTables[i] ?? null,
    })),
  ];
  return rows.map((row, index) => {
    const before = asNumber(pre[index]);
    const after = asNumber(post[index]);
    return {
      index,
      ...row,
      preLamports: before,
      postLamports: after,
      changeLamports: before !== null && after !== null ? after - before : null,
    };
  });
}

/** jsonParsed: each key carries its flags and source; tables come from the look-ups, in the same order. */
function parsedAccounts(transaction: unknown, lookups: Lookup[], meta: Json): DetailAccount[] {
  const writableTables = lookups.flatMap((l) => l.writableIndexes.map(() => l.accountKey));
  const readonlyTables = lookups.flatMap((l) => l.readonlyIndexes.map(() => l.accountKey));
  const message = isObject(transaction) && isObject(transaction.message) ? transaction.message : {};
  const keys = Array.isArray(message.accountKeys) ? message.accountKeys.filter(isObject) : [];
  const pre = Array.isArray(meta.preBalances) ? meta.preBalances : [];
  const post = Array.isArray(meta.postBalances) ? meta.postBalances : [];
  let writable = 0;
  let readonly = 0;
  return keys.map((key, index) => {
    const before = asNumber(pre[index]);
    const after = asNumber(post[index]);
    const fromTable = key.source === "lookupTable";
    const table = !fromTable ? null : key.writable === true ? writableTables[writable++] : readonlyTables[readonly++];
    return {
      index,
      address: typeof key.pubkey === "string" ? key.pubkey : "",
      signer: key.signer === true,
      writable: key.writable === true,
      source: fromTable ? "lookupTable" : "transaction",
      lookupTable: table ?? null,
      preLamports: before,
      postLamports: after,
      changeLamports: before !== null && after !== null ? after - before : null,
    };
  });
}

/** A raw token amount (base units) in whole tokens. */
export function shiftDecimals(raw: bigint, decimals: number): string {
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, "") : "";
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

function tokenBalancesOf(meta: Json, accounts: DetailAccount[]): DetailTokenBalance[] {
  type Side = { mint: string; owner: string | null; programId: string | null; decimals: number; amount: bigint };
  const read = (list: unknown) => {
    const out = new Map<number, Side>();
    if (!Array.isArray(list)) return out;
    for (const entry of list) {
      if (!isObject(entry) || typeof entry.accountIndex !== "number" || typeof entry.mint !== "string") continue;
      const ui = isObject(entry.uiTokenAmount) ? entry.uiTokenAmount : {};
      let amount = 0n;
      try {
        amount = BigInt(typeof ui.amount === "string" ? ui.amount : "0");
      } catch {
        continue;
      }
      out.set(entry.accountIndex, {
        mint: entry.mint,
        owner: typeof entry.owner === "string" ? entry.owner : null,
        programId: typeof entry.programId === "string" ? entry.programId : null,
        decimals: asNumber(ui.decimals) ?? 0,
        amount,
      });
    }
    return out;
  };
  const pre = read(meta.preTokenBalances);
  const post = read(meta.postTokenBalances);
  const indexes = [...new Set([...pre.keys(), ...post.keys()])].sort((a, b) => a - b);
  return indexes.map((accountIndex) => {
    const before = pre.get(accountIndex);
    const after = post.get(accountIndex);
    const side = (after ?? before)!;
    const change = (after?.amount ?? 0n) - (before?.amount ?? 0n);
    return {
      accountIndex,
      account: accounts[accountIndex]?.address ?? null,
      owner: side.owner,
      mint: side.mint,
      programId: side.programId,
      decimals: side.decimals,
      pre: before ? before.amount.toString() : null,
      post: after ? after.amount.toString() : null,
      change: change.toString(),
      uiChange: shiftDecimals(change, side.decimals),
    };
  });
}

function computeUnitPrice(instructions: RawInstruction[]): number {
  for (const ix of instructions) {
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM) continue;
    const parsed = ix.parsedInfo?.microLamports;
    if (typeof parsed === "number") return parsed;
    const data = ix.data;
    if (data && data.length >= 9 && data[0] === SET_COMPUTE_UNIT_PRICE)
      return Number(new DataView(data.slice(1, 9).buffer).getBigUint64(0, true));
  }
  return 0;
}

const asNormalized = (ix: RawInstruction): NormalizedInstruction => ({
  programId: ix.programId,
  rawData: ix.data,
  parsedType: ix.parsedType,
  parsedInfo: ix.parsedInfo,
  stackHeight: ix.stackHeight,
});

function describe(ix: RawInstruction, number: string, idls: IdlRegistry, failed: boolean): DetailInstruction {
  let args: Record<string, unknown> | null = null;
  let argsSource: DetailInstruction["argsSource"] = null;
  const idl = ix.programId ? idls.get(ix.programId) : undefined;
  if (idl && ix.programId && ix.data) {
    const declared = idls.instructionFor(ix.programId, ix.data);
    args = declared ? decodeInstructionArgs(idl, declared, ix.data) : null;
    if (args) argsSource = "idl";
  }
  if (!args && ix.parsedInfo) {
    args = ix.parsedInfo;
    argsSource = "rpc";
  }
  return {
    number,
    programId: ix.programId,
    programName: programName(ix.programId) ?? idl?.name ?? null,
    name: decodedInstructionName(asNormalized(ix), idls),
    stackHeight: ix.stackHeight,
    accounts: ix.accounts,
    data: ix.data ? encodeBase58(ix.data) : null,
    args,
    argsSource,
    failed,
  };
}

/** The failing top-level index a transaction error names, if it names one. */
function failingIndex(err: unknown): number | null {
  if (isObject(err) && Array.isArray(err.InstructionError) && typeof err.InstructionError[0] === "number")
    return err.InstructionError[0];
  return null;
}

/** What the chain recorded about a `getTransaction` result (or its JSON-RPC response); null for anything else. */
export function transactionDetails(input: unknown, idls: IdlRegistry): TransactionDetails | null {
  let value = input;
  if (isObject(value) && "jsonrpc" in value) value = value.result;
  if (!isObject(value) || !isObject(value.meta)) return null;
  const meta = value.meta;
  const loaded = isObject(meta.loadedAddresses) ? meta.loadedAddresses : {};
  const loadedWritable = strings(loaded.writable);
  const loadedReadonly = strings(loaded.readonly);
  const message = readMessage(value.transaction, [...loadedWritable, ...loadedReadonly], value.version);
  const accounts = message?.parsedKeys
    ? parsedAccounts(value.transaction, message.lookups, meta)
    : accountsOf(message, meta, loadedWritable, loadedReadonly);
  const topLevel = message?.instructions ?? [];
  const failing = failingIndex(meta.err);
  const instructions: DetailTopInstruction[] = topLevel.map((ix, i) => ({
    ...describe(ix, String(i + 1), idls, failing === i),
    inner: [],
  }));
  const keys = accounts.map((a) => a.address);
  if (Array.isArray(meta.innerInstructions)) {
    for (const group of meta.innerInstructions) {
      if (!isObject(group) || typeof group.index !== "number" || !Array.isArray(group.instructions)) continue;
      const top = group.index;
      const parent = instructions[top];
      if (!parent) continue;
      parent.inner = group.instructions.map((ix, k) =>
        describe(jsonInstruction(ix, keys), `${top + 1}.${k + 1}`, idls, false),
      );
    }
  }
  const requested = message
    ? requestedComputeUnits({ accountKeys: keys, instructions: topLevel.map(asNormalized) })
    : null;
  const price = computeUnitPrice(topLevel);
  const signatureCount = message?.header?.[0] ?? message?.signatures.length ?? 1;
  return {
    version:
      message?.version ?? (typeof value.version === "number" || value.version === "legacy" ? value.version : null),
    signatures: message?.signatures ?? [],
    recentBlockhash: message?.recentBlockhash ?? null,
    err: meta.err ?? null,
    accounts,
    tokenBalances: tokenBalancesOf(meta, accounts),
    fee: {
      lamports: asNumber(meta.fee),
      baseLamports: LAMPORTS_PER_SIGNATURE * signatureCount,
      cuPriceMicroLamports: price,
      priorityLamports: requested === null ? 0 : Math.ceil((price * requested) / 1_000_000),
    },
    compute: {
      used: asNumber(meta.computeUnitsConsumed),
      requested,
      costUnits: asNumber(meta.costUnits),
    },
    instructions,
    logs: Array.isArray(meta.logMessages) ? strings(meta.logMessages) : null,
  };
}
