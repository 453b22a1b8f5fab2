// The on-disk IDL store: `<dataDir>/idl/<programId>.json`, one file per program, written by
// `txray idl add` and read by the resolver at start-up. The program id becomes a file name, so it is
// validated as a 32-byte base58 address (no path tricks); writes go to a temp file then rename, so a
// reader never sees half an IDL. The IDL text is stored as given, so a future parser can re-read it.

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isBase58Address } from "../../shared/base58";
import { TxrayError } from "../../shared/errors";
import { type ParsedIdl, parseIdl } from "./parse";
import { IdlRegistry } from "./registry";

export const IDL_DIR_NAME = "idl";

export function idlDirectory(dataDir: string): string {
  return join(dataDir, IDL_DIR_NAME);
}

export function idlFilePath(dataDir: string, programId: string): string {
  if (!isBase58Address(programId)) throw new TxrayError("bad_request", `idl: invalid program id ${programId}`);
  return join(idlDirectory(dataDir), `${programId}.json`);
}

/**
 * Validates `json` (an IDL object or its JSON text) and stores it for `programId`, atomically.
 * Returns the parsed IDL. Throws TxrayError("bad_request") for a bad program id or IDL.
 */
export function saveIdl(dataDir: string, programId: string, json: unknown): ParsedIdl {
  const path = idlFilePath(dataDir, programId);
  const parsed = parseIdl(json);
  const text = typeof json === "string" ? json : JSON.stringify(json);
  mkdirSync(idlDirectory(dataDir), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  return parsed;
}

/**
 * Loads every `<programId>.json` under `<dataDir>/idl` into a registry. A missing directory gives an
 * empty registry; unreadable or invalid files are skipped and listed in `registry.skipped`.
 */
export function loadIdls(dataDir: string): IdlRegistry {
  const registry = new IdlRegistry();
  let names: string[];
  try {
    names = readdirSync(idlDirectory(dataDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return registry;
    throw error;
  }
  for (const file of names.sort()) {
    if (!file.endsWith(".json")) continue;
    const programId = file.slice(0, -".json".length);
    if (!isBase58Address(programId)) {
      registry.skipped.push({ file, reason: "file name is not a program id" });
      continue;
    }
    try {
      registry.set(programId, parseIdl(readFileSync(join(idlDirectory(dataDir), file), "utf8")));
    } catch (error) {
      registry.skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return registry;
}
