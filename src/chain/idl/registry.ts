// The set of IDLs the decoder may consult, keyed by program id. IDLs are parsed and indexed once
// when added, so the resolver's per-transaction look-ups are map hits: an error by (program, code)
// and an instruction by the leading bytes of its data. Error codes are only meaningful per program
// (Anchor's 6000+ collide across programs), hence the program id in every look-up.

import { isBase58Address } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import type { ParsedIdl, ParsedIdlError, ParsedIdlInstruction } from "./parse";

interface IndexedIdl {
  idl: ParsedIdl;
  errorsByCode: Map<number, ParsedIdlError>;
  /** Discriminator bytes as hex → instruction, one map per discriminator length (longest first). */
  instructionsByLength: { length: number; byHex: Map<string, ParsedIdlInstruction> }[];
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function hexPrefix(bytes: Uint8Array, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += HEX[bytes[i]];
  return out;
}

function indexIdl(idl: ParsedIdl): IndexedIdl {
  const errorsByCode = new Map<number, ParsedIdlError>();
  for (const error of idl.errors) if (!errorsByCode.has(error.code)) errorsByCode.set(error.code, error);
  const byLength = new Map<number, Map<string, ParsedIdlInstruction>>();
  for (const ix of idl.instructions) {
    const length = ix.discriminator.length;
    let byHex = byLength.get(length);
    if (!byHex) byLength.set(length, (byHex = new Map()));
    const key = hexPrefix(ix.discriminator, length);
    if (!byHex.has(key)) byHex.set(key, ix);
  }
  const instructionsByLength = [...byLength.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([length, byHex]) => ({ length, byHex }));
  return { idl, errorsByCode, instructionsByLength };
}

export class IdlRegistry {
  private readonly byProgram = new Map<string, IndexedIdl>();
  /** Files `loadIdls` skipped, with the reason (a bad IDL never stops the resolver). */
  readonly skipped: { file: string; reason: string }[] = [];

  /** Registers `idl` for `programId` (replacing any earlier one). */
  set(programId: string, idl: ParsedIdl): this {
    if (!isBase58Address(programId)) throw new TxrayError("bad_request", `idl: invalid program id ${programId}`);
    this.byProgram.set(programId, indexIdl(idl));
    return this;
  }

  /** Registers an IDL under the program id it declares itself. */
  add(idl: ParsedIdl): this {
    if (idl.programId === null) {
      throw new TxrayError("bad_request", `idl ${idl.name}: declares no program id; use set(programId, idl)`);
    }
    return this.set(idl.programId, idl);
  }

  get(programId: string): ParsedIdl | undefined {
    return this.byProgram.get(programId)?.idl;
  }

  has(programId: string): boolean {
    return this.byProgram.has(programId);
  }

  get size(): number {
    return this.byProgram.size;
  }

  programIds(): string[] {
    return [...this.byProgram.keys()];
  }

  /** The IDL's error for `code` raised by `programId`. */
  errorFor(programId: string, code: number): ParsedIdlError | undefined {
    return this.byProgram.get(programId)?.errorsByCode.get(code);
  }

  /** The instruction whose discriminator prefixes `data` (longest discriminator first). */
  instructionFor(programId: string, data: Uint8Array): ParsedIdlInstruction | undefined {
    const indexed = this.byProgram.get(programId);
    if (!indexed) return undefined;
    for (const { length, byHex } of indexed.instructionsByLength) {
      if (data.length < length) continue;
      const hit = byHex.get(hexPrefix(data, length));
      if (hit) return hit;
    }
    return undefined;
  }
}
