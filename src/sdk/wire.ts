// Reads what telemetry needs from a serialized transaction (legacy or v0), the one form every send
// path shares: first signature, fee payer, recent blockhash, each instruction's program and the
// Compute Budget requests, and the first data bytes of the targeted instruction (which name it). Program ids always sit
// among the static account keys (the runtime refuses programs loaded from lookup tables), so lookup tables are never
// needed.

import { encodeBase58 } from "../shared/base58-encode";
import { IX_PREFIX_BYTES } from "../shared/envelope-limits";

export const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";
export const SYSTEM_PROGRAM = "11111111111111111111111111111111";

export interface WireInstruction {
  program: string;
  data: Uint8Array;
}

export interface WireTransaction {
  /** First signature in base58, or null when it is unset (all zero bytes: an unsigned transaction). */
  signature: string | null;
  payer: string;
  blockhash: string;
  version: "legacy" | 0;
  instructions: WireInstruction[];
  cuLimit?: number;
  cuPriceMicroLamports?: number;
  /** The first instruction advances a durable nonce: the "blockhash" is the nonce value. */
  nonce: boolean;
  /** The nonce account that instruction advances, when it is a static account key. */
  nonceAccount?: string;
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}
  byte(): number {
    if (this.offset >= this.bytes.length) throw new RangeError("truncated transaction");
    return this.bytes[this.offset++];
  }
  /** Solana's compact-u16 ("shortvec") length. */
  shortvec(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = this.byte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new RangeError("bad shortvec");
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new RangeError("truncated transaction");
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

export function base64Bytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const isZero = (bytes: Uint8Array) => bytes.every((b) => b === 0);

/**
 * Base58 of 32-byte keys, memoized: a dapp's transactions repeat the same payer, programs and
 * blockhash, and base58 is the costliest step of reading a transaction.
 */
const keyNames = new Map<string, string>();
function keyBase58(bytes: Uint8Array): string {
  const binary = String.fromCharCode.apply(null, bytes as unknown as number[]);
  let name = keyNames.get(binary);
  if (name === undefined) {
    name = encodeBase58(bytes);
    if (keyNames.size >= 4096) keyNames.clear();
    keyNames.set(binary, name);
  }
  return name;
}

function u32(data: Uint8Array, at: number): number {
  return (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16)) + data[at + 3] * 0x1000000;
}

/** Parses a wire transaction; throws on bytes that are not one. */
export function parseTransaction(bytes: Uint8Array): WireTransaction {
  const r = new Reader(bytes);
  const signatureCount = r.shortvec();
  let signature: string | null = null;
  for (let i = 0; i < signatureCount; i++) {
    const sig = r.take(64);
    if (i === 0 && !isZero(sig)) signature = encodeBase58(sig);
  }
  let version: "legacy" | 0 = "legacy";
  if (r.bytes[r.offset] & 0x80) {
    const v = r.byte() & 0x7f;
    if (v !== 0) throw new RangeError(`unsupported transaction version ${v}`);
    version = 0;
  }
  r.take(3); // header: required signatures, read-only signed, read-only unsigned
  const keyCount = r.shortvec();
  const keys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(r.take(32));
  const blockhash = keyBase58(r.take(32));
  const names = new Map<number, string>();
  const keyName = (index: number) => {
    let name = names.get(index);
    if (name === undefined) {
      if (index >= keys.length) throw new RangeError("program index outside the static keys");
      name = keyBase58(keys[index]);
      names.set(index, name);
    }
    return name;
  };
  const instructions: WireInstruction[] = [];
  const ixCount = r.shortvec();
  let nonce = false;
  let nonceAccount: string | undefined;
  for (let i = 0; i < ixCount; i++) {
    const program = keyName(r.byte());
    const accounts = r.take(r.shortvec());
    const data = r.take(r.shortvec());
    // System AdvanceNonceAccount (u32 instruction index 4; accounts: the nonce account, the
    // RecentBlockhashes sysvar, the authority) as the first instruction marks a nonce transaction.
    if (i === 0 && program === SYSTEM_PROGRAM && data.length >= 4 && u32(data, 0) === 4) {
      nonce = true;
      if (accounts.length > 0 && accounts[0] < keys.length) nonceAccount = keyName(accounts[0]);
    }
    instructions.push({ program, data });
  }
  const tx: WireTransaction = { signature, payer: keyName(0), blockhash, version, instructions, nonce };
  if (nonceAccount !== undefined) tx.nonceAccount = nonceAccount;
  for (const ix of instructions) {
    if (ix.program !== COMPUTE_BUDGET) continue;
    const d = ix.data;
    if (d[0] === 2 && d.length >= 5) tx.cuLimit = u32(d, 1);
    if (d[0] === 3 && d.length >= 9) {
      const price = u32(d, 1) + u32(d, 5) * 0x100000000;
      if (Number.isSafeInteger(price)) tx.cuPriceMicroLamports = price;
    }
  }
  return tx;
}

/**
 * The program an attempt targeted: the first instruction whose program is among `tracked` when
 * given; else the first that is not Compute Budget (nor the durable-nonce advance); else the first.
 */
export function targetProgram(tx: WireTransaction, tracked: ReadonlySet<string> | null): string {
  if (tracked && tracked.size > 0) for (const ix of tx.instructions) if (tracked.has(ix.program)) return ix.program;
  for (let i = 0; i < tx.instructions.length; i++) {
    const program = tx.instructions[i].program;
    if (program === COMPUTE_BUDGET || (i === 0 && tx.nonce)) continue;
    return program;
  }
  return tx.instructions[0]?.program ?? SYSTEM_PROGRAM;
}

/**
 * The first (up to) 8 data bytes of the first top-level instruction of `program`, lower-case hex:
 * the envelope's `ixPrefix` (docs/api.md#post-v1ingest). With an IDL these bytes name the
 * instruction (Anchor's discriminator), so the server names a landed attempt without fetching its
 * transaction. Undefined when no top-level instruction belongs to `program`.
 */
export function instructionPrefix(tx: WireTransaction, program: string): string | undefined {
  const ix = tx.instructions.find((candidate) => candidate.program === program);
  if (!ix) return undefined;
  let hex = "";
  for (const byte of ix.data.subarray(0, IX_PREFIX_BYTES)) hex += (byte < 16 ? "0" : "") + byte.toString(16);
  return hex;
}
