// Solana transaction wire format (legacy and v0): parse signatures, header, keys, blockhash,
// instructions and address-table lookups out of the raw bytes a client sends.
// The RPC layer needs these fields for getTransaction, fees, balances and blockhash checks; LiteSVM
// only takes the bytes and gives none of them back, so we read them ourselves (no web3.js on this path).

import { encodeBase58 } from "../../src/shared/base58.ts";

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface ParsedMessage {
  version: "legacy" | 0;
  header: MessageHeader;
  staticKeys: string[];
  recentBlockhash: string;
  /** Offset of the 32 blockhash bytes inside `bytes`. */
  blockhashOffset: number;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
  bytes: Uint8Array;
}

export interface ParsedTransaction {
  signatures: string[];
  message: ParsedMessage;
  /** Offset of the message inside `bytes`. */
  messageOffset: number;
  bytes: Uint8Array;
}

/** A transaction that cannot be decoded or sanitized (RPC answers -32602 "invalid transaction: …"). */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireError";
  }
}

/** Thrown for a versioned message with a version this chain does not know (RPC -32015 style). */
export class UnsupportedVersionError extends WireError {}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}
  u8(): number {
    if (this.offset >= this.bytes.length) throw new WireError("failed to deserialize: unexpected end of input");
    return this.bytes[this.offset++];
  }
  compactU16(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new WireError("failed to deserialize: invalid compact-u16");
  }
  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new WireError("failed to deserialize: unexpected end of input");
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
  get remaining(): number {
    return this.bytes.length - this.offset;
  }
}

/** Parses a message (what getFeeForMessage receives and what signatures sign). */
export function parseMessage(bytes: Uint8Array): ParsedMessage {
  const r = new Reader(bytes);
  const first = r.u8();
  let version: "legacy" | 0 = "legacy";
  let header: MessageHeader;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw new UnsupportedVersionError(`Transaction version (${v}) is not supported`);
    version = 0;
    header = { numRequiredSignatures: r.u8(), numReadonlySignedAccounts: r.u8(), numReadonlyUnsignedAccounts: r.u8() };
  } else {
    header = { numRequiredSignatures: first, numReadonlySignedAccounts: r.u8(), numReadonlyUnsignedAccounts: r.u8() };
  }
  const keyCount = r.compactU16();
  const staticKeys: string[] = [];
  for (let i = 0; i < keyCount; i++) staticKeys.push(encodeBase58(r.take(32)));
  const blockhashOffset = r.offset;
  const recentBlockhash = encodeBase58(r.take(32));
  const ixCount = r.compactU16();
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < ixCount; i++) {
    const programIdIndex = r.u8();
    const accountCount = r.compactU16();
    const accounts = Array.from(r.take(accountCount));
    const dataLength = r.compactU16();
    const data = r.take(dataLength).slice();
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = r.compactU16();
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = encodeBase58(r.take(32));
      const writableIndexes = Array.from(r.take(r.compactU16()));
      const readonlyIndexes = Array.from(r.take(r.compactU16()));
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (r.remaining !== 0) throw new WireError("failed to deserialize: trailing bytes");
  const message: ParsedMessage = {
    version,
    header,
    staticKeys,
    recentBlockhash,
    blockhashOffset,
    instructions,
    addressTableLookups,
    bytes,
  };
  sanitize(message);
  return message;
}

/** Parses a full signed transaction. */
export function parseTransaction(bytes: Uint8Array): ParsedTransaction {
  const r = new Reader(bytes);
  const count = r.compactU16();
  const signatures: string[] = [];
  for (let i = 0; i < count; i++) signatures.push(encodeBase58(r.take(64)));
  const messageOffset = r.offset;
  const message = parseMessage(bytes.subarray(messageOffset));
  if (count === 0) throw new WireError("Transaction requires a fee but has no signature present");
  if (count !== message.header.numRequiredSignatures) {
    throw new WireError("Transaction failed to sanitize accounts offsets correctly");
  }
  return { signatures, message, messageOffset, bytes };
}

/** The same checks the runtime's sanitize() makes on offsets, so bad indices never reach LiteSVM. */
function sanitize(m: ParsedMessage): void {
  const { header, staticKeys } = m;
  const loaded = m.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  const total = staticKeys.length + loaded;
  const fail = () => {
    throw new WireError("Transaction failed to sanitize accounts offsets correctly");
  };
  if (header.numRequiredSignatures === 0) fail();
  if (header.numRequiredSignatures > staticKeys.length) fail();
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) fail();
  if (header.numReadonlyUnsignedAccounts > staticKeys.length - header.numRequiredSignatures) fail();
  if (total > 256) fail();
  for (const ix of m.instructions) {
    // Program ids can only come from static keys, and never the fee payer.
    if (ix.programIdIndex === 0 || ix.programIdIndex >= staticKeys.length) fail();
    for (const a of ix.accounts) if (a >= total) fail();
  }
}

/** Writable flag of account `index` in the full key list (static keys, then loaded writable, then loaded readonly). */
export function isWritableIndex(m: ParsedMessage, index: number, loadedWritableCount: number): boolean {
  const { header, staticKeys } = m;
  if (index < staticKeys.length) {
    if (index < header.numRequiredSignatures) {
      return index < header.numRequiredSignatures - header.numReadonlySignedAccounts;
    }
    return index < staticKeys.length - header.numReadonlyUnsignedAccounts;
  }
  return index - staticKeys.length < loadedWritableCount;
}

export function isSignerIndex(m: ParsedMessage, index: number): boolean {
  return index < m.header.numRequiredSignatures;
}

/** Copy of the transaction bytes with the recent blockhash replaced (simulateTransaction replaceRecentBlockhash). */
export function withBlockhash(tx: ParsedTransaction, blockhash: Uint8Array): Uint8Array {
  const out = tx.bytes.slice();
  out.set(blockhash, tx.messageOffset + tx.message.blockhashOffset);
  return out;
}
