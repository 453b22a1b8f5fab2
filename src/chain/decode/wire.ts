// Reads the message of a serialized transaction (what `getTransaction` returns with encoding
// "base64"/"base58": `[data, encoding]`), legacy or v0: the header, static account keys, the recent
// blockhash, each instruction's program index, account indexes and data, and the address-table
// look-ups. Address-table keys are not here; they come from `meta.loadedAddresses` (writable first,
// then readonly), exactly as for the json encoding.

import { encodeBase58 } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";

export interface WireInstruction {
  programIdIndex: number;
  /** Indexes into the message's keys (static, then loaded writable, then loaded readonly). */
  accounts: number[];
  data: Uint8Array;
}

export interface WireAddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireMessage {
  version: "legacy" | number;
  /** numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts. */
  header: [number, number, number];
  staticAccountKeys: string[];
  recentBlockhash: string;
  instructions: WireInstruction[];
  addressTableLookups: WireAddressTableLookup[];
}

class Reader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  u8(): number {
    if (this.offset >= this.bytes.length) throw new TxrayError("bad_request", "transaction: truncated wire data");
    return this.bytes[this.offset++];
  }

  /** Solana's compact-u16 ("shortvec") length prefix. */
  shortVec(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = this.u8();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new TxrayError("bad_request", "transaction: bad compact-u16");
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) {
      throw new TxrayError("bad_request", "transaction: truncated wire data");
    }
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  peek(): number {
    return this.bytes[this.offset];
  }
}

/** Decodes a serialized transaction (signatures + message). */
export function decodeWireTransaction(bytes: Uint8Array): WireMessage {
  const reader = new Reader(bytes);
  const signatureCount = reader.shortVec();
  reader.take(signatureCount * 64);
  let version: "legacy" | number = "legacy";
  if (reader.peek() & 0x80) version = reader.u8() & 0x7f;
  const header: [number, number, number] = [reader.u8(), reader.u8(), reader.u8()];
  const keyCount = reader.shortVec();
  const staticAccountKeys: string[] = [];
  for (let i = 0; i < keyCount; i++) staticAccountKeys.push(encodeBase58(reader.take(32)));
  const recentBlockhash = encodeBase58(reader.take(32));
  const instructionCount = reader.shortVec();
  const instructions: WireInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8();
    const accounts = [...reader.take(reader.shortVec())];
    const data = reader.take(reader.shortVec());
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: WireAddressTableLookup[] = [];
  if (version !== "legacy") {
    const lookupCount = reader.shortVec();
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = encodeBase58(reader.take(32));
      const writableIndexes = [...reader.take(reader.shortVec())];
      const readonlyIndexes = [...reader.take(reader.shortVec())];
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  return { version, header, staticAccountKeys, recentBlockhash, instructions, addressTableLookups };
}
