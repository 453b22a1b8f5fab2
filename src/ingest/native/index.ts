// The native ingest fast path (encode.c): parse, validate and encode a batch in one pass over the
// body's bytes, for the common shape of SDK traffic; anything else falls back to the JavaScript
// path, which stays the reference (same answers, same spool bytes: test/ingest/native.test.ts).
//
// The C file is compiled with the machine's C compiler the first time a server starts (about half a
// second) into node_modules/.cache/txray/, named by the hash of its source, and loaded with
// bun:ffi. Without a compiler (or with INGEST_NATIVE=off) ingest simply runs the JavaScript path.

import { dlopen, FFIType } from "bun:ffi";
import { spawnSync } from "bun";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { base58LengthTableBytes } from "../../shared/base58";

const SOURCE = join(import.meta.dir, "encode.c");
const CACHE_DIR = join(import.meta.dir, "..", "..", "..", "node_modules", ".cache", "txray");

export type NativeEncoder = {
  /** Spool bytes and envelope count, or null: the JavaScript path must decide. */
  encode(body: Uint8Array, prefix: Uint8Array, maxBatch: number): { lines: Uint8Array; count: number; apiKeyOffset: number; apiKeyLength: number } | null;
};

/** Tests point these elsewhere; the server uses the defaults. */
export type NativeBuildOptions = { cacheDir?: string; searchPath?: string };

/** Where the compiled library of the current encode.c lives. */
export function nativeLibraryPath({ cacheDir = CACHE_DIR }: NativeBuildOptions = {}): string {
  const hash = Bun.hash(readFileSync(SOURCE)).toString(16);
  return join(cacheDir, `txray-encode-${hash}.so`);
}

/** Compiles encode.c unless already built; returns an error text when it cannot. */
export function buildNativeEncoder(options: NativeBuildOptions = {}): string | null {
  const target = nativeLibraryPath(options);
  if (existsSync(target)) return null;
  const PATH = options.searchPath ?? process.env.PATH ?? "";
  const compiler = Bun.which("cc", { PATH }) ?? Bun.which("gcc", { PATH }) ?? Bun.which("clang", { PATH });
  if (!compiler) return "no C compiler (cc, gcc or clang) on PATH";
  // Each process compiles to its own file and renames it into place: concurrent starts never load half a library.
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    mkdirSync(options.cacheDir ?? CACHE_DIR, { recursive: true });
    // Baseline -O3 for the target architecture, never -march=native: node_modules may be copied to another CPU.
    const result = spawnSync([compiler, "-O3", "-shared", "-fPIC", "-o", temporary, SOURCE], { stderr: "pipe" });
    if (result.exitCode !== 0) return `${compiler} failed: ${result.stderr.toString().slice(0, 500)}`;
    renameSync(temporary, target);
    return null;
  } catch (error) {
    return `could not build ${target}: ${String(error)}`;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** The encoder, when the library is built (buildNativeEncoder); null otherwise. */
export function loadNativeEncoder(options: NativeBuildOptions = {}): NativeEncoder | null {
  const path = nativeLibraryPath(options);
  if (!existsSync(path)) return null;
  const { symbols } = dlopen(path, {
    txray_encode_batch: {
      args: [FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr],
      returns: FFIType.i32,
    },
  });
  const table = base58LengthTableBytes();
  const result = new Int32Array(3);
  let scratch = new Uint8Array(1 << 20);
  return {
    encode(body, prefix, maxBatch) {
      if (body.byteLength === 0) return null;
      // A line takes fewer bytes than its envelope's JSON (the keys alone outweigh the prefix and the
      // separators), so the body's size plus a margin is enough; the encoder falls back if it is not.
      const capacity = body.byteLength + 4096;
      if (scratch.byteLength < capacity) scratch = new Uint8Array(capacity);
      const written = symbols.txray_encode_batch(body, body.byteLength, prefix, prefix.byteLength, scratch, capacity, maxBatch, table, result);
      if (written < 0) return null;
      return { lines: scratch.slice(0, written), count: result[0], apiKeyOffset: result[1], apiKeyLength: result[2] };
    },
  };
}
