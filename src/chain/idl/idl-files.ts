// The on-disk IDL store, read by the resolver at start-up and written by `txray idl add`, the IDL
// route and the on-chain refresh. Each program keeps every IDL it had, named by the slot it applies
// from:
//   <dataDir>/idl/<programId>.json            the version in force from the beginning (slot 0)
//   <dataDir>/idl/<programId>/<slot>.json     the version in force from <slot> on
// The program id becomes a file name, so it is validated as a 32-byte base58 address (no path
// tricks) and the slot as a non-negative integer; writes go to a temp file then rename, so a reader
// never sees half an IDL. The IDL text is stored as given, so a future parser can re-read it.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isBase58Address } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import { type ParsedIdl, parseIdl } from "./parse";
import { IdlRegistry } from "./registry";

export const IDL_DIR_NAME = "idl";
/** A dated version file: a positive slot (slot 0 is the program's base file). */
const SLOT_FILE = /^[1-9][0-9]{0,15}\.json$/;

export function idlDirectory(dataDir: string): string {
  return join(dataDir, IDL_DIR_NAME);
}

function requireProgramId(programId: string): void {
  if (!isBase58Address(programId)) throw new TxrayError("bad_request", `idl: invalid program id ${programId}`);
}

function requireSlot(fromSlot: number): void {
  if (!Number.isSafeInteger(fromSlot) || fromSlot < 0) {
    throw new TxrayError("bad_request", `idl: fromSlot must be a non-negative integer slot, got ${fromSlot}`);
  }
}

/** The file of the IDL of `programId` in force from `fromSlot` (the program's base file for slot 0). */
export function idlFilePath(dataDir: string, programId: string, fromSlot = 0): string {
  requireProgramId(programId);
  requireSlot(fromSlot);
  if (fromSlot === 0) return join(idlDirectory(dataDir), `${programId}.json`);
  return join(idlDirectory(dataDir), programId, `${fromSlot}.json`);
}

/** The slots from which stored IDLs of `programId` apply, ascending (empty: no IDL stored). */
export function storedIdlSlots(dataDir: string, programId: string): number[] {
  requireProgramId(programId);
  const slots: number[] = existsSync(idlFilePath(dataDir, programId)) ? [0] : [];
  let names: string[] = [];
  try {
    names = readdirSync(join(idlDirectory(dataDir), programId));
  } catch {
    // no dated versions
  }
  for (const name of names) if (SLOT_FILE.test(name)) slots.push(Number(name.slice(0, -5)));
  return slots.sort((a, b) => a - b);
}

export interface SavedIdl {
  idl: ParsedIdl;
  fromSlot: number;
}

/**
 * Validates `json` (an IDL object or its JSON text) and stores it for `programId`, atomically, as
 * the version in force from `fromSlot`. Without `fromSlot` it replaces the version in force now (the
 * newest stored one; slot 0 when there is none), keeping older versions. Throws
 * TxrayError("bad_request") for a bad program id, slot or IDL.
 */
export function saveIdlVersion(dataDir: string, programId: string, json: unknown, fromSlot?: number): SavedIdl {
  requireProgramId(programId);
  if (fromSlot !== undefined) requireSlot(fromSlot);
  const parsed = parseIdl(json);
  const slot = fromSlot ?? storedIdlSlots(dataDir, programId).at(-1) ?? 0;
  const path = idlFilePath(dataDir, programId, slot);
  const text = typeof json === "string" ? json : JSON.stringify(json);
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  return { idl: parsed, fromSlot: slot };
}

/** saveIdlVersion, answering the parsed IDL. */
export function saveIdl(dataDir: string, programId: string, json: unknown, fromSlot?: number): ParsedIdl {
  return saveIdlVersion(dataDir, programId, json, fromSlot).idl;
}

/** The stored text of the newest IDL of `programId`, or null when none is stored. */
export function readNewestIdlText(dataDir: string, programId: string): { fromSlot: number; text: string } | null {
  const fromSlot = storedIdlSlots(dataDir, programId).at(-1);
  if (fromSlot === undefined) return null;
  try {
    return { fromSlot, text: readFileSync(idlFilePath(dataDir, programId, fromSlot), "utf8") };
  } catch {
    return null;
  }
}

function loadInto(registry: IdlRegistry, programId: string, fromSlot: number, path: string, file: string): void {
  try {
    registry.set(programId, parseIdl(readFileSync(path, "utf8")), fromSlot);
  } catch (error) {
    registry.skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Loads every stored IDL version under `<dataDir>/idl` into a registry. A missing directory gives an
 * empty registry; unreadable or invalid files are skipped and listed in `registry.skipped`.
 */
export function loadIdls(dataDir: string): IdlRegistry {
  const registry = new IdlRegistry();
  const root = idlDirectory(dataDir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return registry;
    throw error;
  }
  for (const file of names.sort()) {
    if (file.endsWith(".json")) {
      const programId = file.slice(0, -".json".length);
      if (!isBase58Address(programId)) {
        registry.skipped.push({ file, reason: "file name is not a program id" });
        continue;
      }
      loadInto(registry, programId, 0, join(root, file), file);
      continue;
    }
    if (!isBase58Address(file)) continue; // temp files and anything else that is not a program's folder
    let versions: string[];
    try {
      versions = readdirSync(join(root, file));
    } catch {
      continue; // a plain file named like a program id
    }
    for (const name of versions.sort()) {
      if (!name.endsWith(".json")) continue;
      const label = `${file}/${name}`;
      if (!SLOT_FILE.test(name)) {
        registry.skipped.push({ file: label, reason: "file name is not a slot" });
        continue;
      }
      loadInto(registry, file, Number(name.slice(0, -".json".length)), join(root, file, name), label);
    }
  }
  return registry;
}
