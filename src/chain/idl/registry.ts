// The set of IDLs the decoder may consult, keyed by program id. IDLs are parsed and indexed once
// when added, so the resolver's per-transaction look-ups are map hits: an error by (program, code)
// and an instruction by the leading bytes of its data. Error codes are only meaningful per program
// (Anchor's 6000+ collide across programs), hence the program id in every look-up.
//
// A program keeps every IDL it had, each with the slot from which it applies: a release may rename
// or renumber errors, and a failure is named by the IDL in force when it happened. `atSlot(slot)`
// gives a view that answers for that slot; the registry itself (and a view at an unknown slot)
// answers with the newest IDL. Before its first version's slot a program has no IDL.

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

/** One IDL of a program and the first slot it applies to (0: from the program's beginning). */
export interface IdlVersion {
  fromSlot: number;
  idl: ParsedIdl;
}

interface IndexedVersion extends IndexedIdl {
  fromSlot: number;
}

export class IdlRegistry {
  /** Versions per program, ascending by `fromSlot`. */
  private readonly byProgram: Map<string, IndexedVersion[]>;
  /** The slot this view answers for; null: the newest IDL. */
  readonly slot: number | null;
  /** Files `loadIdls` skipped, with the reason (a bad IDL never stops the resolver). */
  readonly skipped: { file: string; reason: string }[];

  constructor() {
    this.byProgram = new Map();
    this.slot = null;
    this.skipped = [];
  }

  /**
   * A view of the same IDLs answering with the version in force at `slot` (null or a non-integer:
   * the newest). Later `set`s on either are seen by both.
   */
  atSlot(slot: number | null | undefined): IdlRegistry {
    const at = typeof slot === "number" && Number.isSafeInteger(slot) && slot >= 0 ? slot : null;
    if (at === this.slot) return this;
    const view = Object.create(IdlRegistry.prototype) as IdlRegistry;
    Object.assign(view, { byProgram: this.byProgram, slot: at, skipped: this.skipped });
    return view;
  }

  /**
   * Registers `idl` for `programId` from `fromSlot` on (0 by default: from the beginning), replacing
   * a version that starts at the same slot and keeping the others.
   */
  set(programId: string, idl: ParsedIdl, fromSlot = 0): this {
    if (!isBase58Address(programId)) throw new TxrayError("bad_request", `idl: invalid program id ${programId}`);
    if (!Number.isSafeInteger(fromSlot) || fromSlot < 0) {
      throw new TxrayError("bad_request", `idl: fromSlot must be a slot number, got ${fromSlot}`);
    }
    const versions = (this.byProgram.get(programId) ?? []).filter((version) => version.fromSlot !== fromSlot);
    versions.push({ ...indexIdl(idl), fromSlot });
    versions.sort((a, b) => a.fromSlot - b.fromSlot);
    this.byProgram.set(programId, versions);
    return this;
  }

  /** Registers an IDL under the program id it declares itself. */
  add(idl: ParsedIdl, fromSlot = 0): this {
    if (idl.programId === null) {
      throw new TxrayError("bad_request", `idl ${idl.name}: declares no program id; use set(programId, idl)`);
    }
    return this.set(idl.programId, idl, fromSlot);
  }

  /** The version of `programId` in force at this view's slot. */
  private current(programId: string): IndexedVersion | undefined {
    const versions = this.byProgram.get(programId);
    if (!versions || versions.length === 0) return undefined;
    if (this.slot === null) return versions[versions.length - 1];
    let found: IndexedVersion | undefined;
    for (const version of versions) {
      if (version.fromSlot > this.slot) break;
      found = version;
    }
    return found;
  }

  get(programId: string): ParsedIdl | undefined {
    return this.current(programId)?.idl;
  }

  /** Every IDL of `programId` with the slot it applies from, oldest first. */
  versions(programId: string): IdlVersion[] {
    return (this.byProgram.get(programId) ?? []).map(({ fromSlot, idl }) => ({ fromSlot, idl }));
  }

  /** Whether `programId` has any IDL, whatever the slot of this view. */
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
    return this.current(programId)?.errorsByCode.get(code);
  }

  /** The instruction whose discriminator prefixes `data` (longest discriminator first). */
  instructionFor(programId: string, data: Uint8Array): ParsedIdlInstruction | undefined {
    const indexed = this.current(programId);
    if (!indexed) return undefined;
    for (const { length, byHex } of indexed.instructionsByLength) {
      if (data.length < length) continue;
      const hit = byHex.get(hexPrefix(data, length));
      if (hit) return hit;
    }
    return undefined;
  }
}
