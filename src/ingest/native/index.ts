// The native ingest fast path (encode.c): parse, validate and encode a batch in one pass over the
// body's bytes, for the common shape of SDK traffic; anything else falls back to the JavaScript
// path, which stays the reference (same answers, same spool bytes: test/ingest/native.test.ts).
//
// Built and cached by src/shared/native-library.ts the first time a server starts. Without a
// compiler (or with INGEST_NATIVE=off) ingest simply runs the JavaScript path.

import { dlopen, FFIType } from "bun:ffi";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { base58LengthTableBytes } from "../../shared/base58";
import { buildNativeLibrary, type NativeBuildOptions, nativeLibraryPath } from "../../shared/native-library";

const SOURCE = join(import.meta.dir, "encode.c");

export type NativeEncoder = {
  /** Spool bytes and envelope count, or null: the JavaScript path must decide. */
  encode(
    body: Uint8Array,
    prefix: Uint8Array,
    maxBatch: number,
  ): { lines: Uint8Array; count: number; apiKeyOffset: number; apiKeyLength: number } | null;
};

export type { NativeBuildOptions };

/** Compiles encode.c unless already built; returns an error text when it cannot. */
export function buildNativeEncoder(options: NativeBuildOptions = {}): string | null {
  return buildNativeLibrary(SOURCE, "encode", options);
}

/** The encoder, when the library is built (buildNativeEncoder); null otherwise. */
export function loadNativeEncoder(options: NativeBuildOptions = {}): NativeEncoder | null {
  const path = nativeLibraryPath(SOURCE, "encode", options);
  if (!existsSync(path)) return null;
  const { symbols } = dlopen(path, {
    txray_encode_batch: {
      args: [
        FFIType.ptr,
        FFIType.i32,
        FFIType.ptr,
        FFIType.i32,
        FFIType.ptr,
        FFIType.i32,
        FFIType.i32,
        FFIType.ptr,
        FFIType.ptr,
      ],
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
      const written = symbols.txray_encode_batch(
        body,
        body.byteLength,
        prefix,
        prefix.byteLength,
        scratch,
        capacity,
        maxBatch,
        table,
        result,
      );
      if (written < 0) return null;
      return { lines: scratch.slice(0, written), count: result[0], apiKeyOffset: result[1], apiKeyLength: result[2] };
    },
  };
}
