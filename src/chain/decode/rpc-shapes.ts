// Turns the many shapes a transaction arrives in into one: a JSON-RPC `getTransaction` response or
// its `result`, in json, jsonParsed or base64/base58 encoding, legacy or v0 (address tables resolved
// through `meta.loadedAddresses`), a `{ meta, transaction | message }` pair (e.g. one entry of
// `getBlock`), or a bare `meta` object (no message: stories are then told from the logs alone).
// Instruction data stays encoded until the decoder asks for it: most instructions are never decoded.

import { decodeBase58 } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import { decodeWireTransaction } from "./wire";

export interface NormalizedInstruction {
  programId: string | null;
  /** Encoded data: base58 text (json encodings) or bytes (wire); null when the RPC parsed it. */
  rawData: string | Uint8Array | null;
  /** jsonParsed `parsed.type` (e.g. "transferChecked") when the RPC parsed the instruction. */
  parsedType: string | null;
  parsedInfo: Record<string, unknown> | null;
  /** Invoke depth (1 = top level) when the RPC reports it. */
  stackHeight: number | null;
  decoded?: Uint8Array | null;
}

export interface NormalizedMessage {
  accountKeys: string[];
  instructions: NormalizedInstruction[];
}

export interface NormalizedTransaction {
  message: NormalizedMessage | null;
  /** Inner (CPI) instructions by top-level index, in invoke order. */
  inner: Map<number, NormalizedInstruction[]> | null;
  /** The TransactionError as the RPC reported it (null = success). */
  err: unknown;
  logs: string[] | null;
  cuUsed: number | null;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const asNumber = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : typeof value === "bigint" ? Number(value) : null;

/** The instruction's data bytes (decoded once, then cached), or null when unknown. */
export function instructionData(ix: NormalizedInstruction): Uint8Array | null {
  if (ix.decoded !== undefined) return ix.decoded;
  const raw = ix.rawData;
  ix.decoded = raw === null ? null : typeof raw === "string" ? decodeBase58(raw) : raw;
  return ix.decoded;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function accountKeyOf(entry: unknown): string | null {
  if (typeof entry === "string") return entry;
  if (isObject(entry) && typeof entry.pubkey === "string") return entry.pubkey;
  return null;
}

function normalizeInstruction(raw: unknown, keys: string[]): NormalizedInstruction {
  const ix = isObject(raw) ? raw : {};
  let programId: string | null = null;
  if (typeof ix.programId === "string") programId = ix.programId;
  else if (typeof ix.programIdIndex === "number") programId = keys[ix.programIdIndex] ?? null;
  const parsed = ix.parsed;
  return {
    programId,
    rawData: typeof ix.data === "string" ? ix.data : null,
    parsedType: isObject(parsed) && typeof parsed.type === "string" ? parsed.type : null,
    parsedInfo: isObject(parsed) && isObject(parsed.info) ? parsed.info : null,
    stackHeight: asNumber(ix.stackHeight),
  };
}

/** Keys an instruction's `programIdIndex` refers to: static keys, then loaded writable, then readonly. */
function resolvedKeys(staticKeys: string[], meta: Json | null): string[] {
  const loaded = meta && isObject(meta.loadedAddresses) ? meta.loadedAddresses : null;
  if (!loaded) return staticKeys;
  return [...staticKeys, ...stringList(loaded.writable), ...stringList(loaded.readonly)];
}

function wireMessage(data: string, encoding: string, meta: Json | null): NormalizedMessage {
  const bytes = encoding === "base58" ? decodeBase58(data) : new Uint8Array(Buffer.from(data, "base64"));
  if (!bytes) throw new TxrayError("bad_request", "transaction: invalid base58 data");
  const wire = decodeWireTransaction(bytes);
  const keys = resolvedKeys(wire.staticAccountKeys, meta);
  return {
    accountKeys: keys,
    instructions: wire.instructions.map((ix) => ({
      programId: keys[ix.programIdIndex] ?? null,
      rawData: ix.data,
      parsedType: null,
      parsedInfo: null,
      stackHeight: null,
    })),
  };
}

/**
 * Normalizes a message given as a json/jsonParsed message object, a transaction object
 * `{ message, signatures }`, or a serialized transaction (`[data, "base64" | "base58"]` or a base64
 * string). Returns null when `value` is absent.
 */
export function normalizeMessage(value: unknown, meta: Json | null = null): NormalizedMessage | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return wireMessage(value, "base64", meta);
  if (Array.isArray(value) && typeof value[0] === "string") {
    return wireMessage(value[0], typeof value[1] === "string" ? value[1] : "base64", meta);
  }
  if (!isObject(value)) throw new TxrayError("bad_request", "transaction: unrecognized message");
  const message = isObject(value.message) ? value.message : value;
  if (!Array.isArray(message.accountKeys) || !Array.isArray(message.instructions)) {
    throw new TxrayError("bad_request", "transaction: message lacks accountKeys/instructions");
  }
  const staticKeys = message.accountKeys.map(accountKeyOf).map((k) => k ?? "");
  // jsonParsed lists every key (address-table ones included, `source: "lookupTable"`); json does not.
  const alreadyResolved = message.accountKeys.some((k) => isObject(k));
  const keys = alreadyResolved ? staticKeys : resolvedKeys(staticKeys, meta);
  return { accountKeys: keys, instructions: message.instructions.map((ix) => normalizeInstruction(ix, keys)) };
}

/** Normalizes `meta.innerInstructions` (or a simulation's `innerInstructions`) by top-level index. */
export function normalizeInnerInstructions(
  value: unknown,
  keys: string[],
): Map<number, NormalizedInstruction[]> | null {
  if (!Array.isArray(value)) return null;
  const inner = new Map<number, NormalizedInstruction[]>();
  for (const group of value) {
    if (!isObject(group) || typeof group.index !== "number" || !Array.isArray(group.instructions)) continue;
    inner.set(
      group.index,
      group.instructions.map((ix) => normalizeInstruction(ix, keys)),
    );
  }
  return inner;
}

/** The error of a meta object: `err`, else the `status.Err` older nodes also fill. */
function metaError(meta: Json): unknown {
  if (meta.err !== undefined) return meta.err;
  if (isObject(meta.status) && "Err" in meta.status) return meta.status.Err;
  return null;
}

function fromMeta(meta: Json, transaction: unknown): NormalizedTransaction {
  const message = normalizeMessage(transaction, meta);
  return {
    message,
    inner: normalizeInnerInstructions(meta.innerInstructions, message?.accountKeys ?? []),
    err: metaError(meta),
    logs: Array.isArray(meta.logMessages) ? stringList(meta.logMessages) : null,
    cuUsed: asNumber(meta.computeUnitsConsumed),
  };
}

/** Normalizes any supported `getTransaction`-like input. Throws TxrayError("bad_request") otherwise. */
export function normalizeTransaction(input: unknown): NormalizedTransaction {
  let value = input;
  if (isObject(value) && "jsonrpc" in value) {
    if (value.error !== undefined) throw new TxrayError("bad_request", "transaction: JSON-RPC error response");
    value = value.result;
  }
  if (!isObject(value)) throw new TxrayError("bad_request", "transaction: expected a getTransaction result object");
  if (isObject(value.meta)) return fromMeta(value.meta, value.transaction ?? value.message);
  if ("logMessages" in value || "err" in value || "innerInstructions" in value) return fromMeta(value, null);
  throw new TxrayError("bad_request", "transaction: no meta in input");
}
