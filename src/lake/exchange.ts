// Atomic directory swap. Linux renameat2(RENAME_EXCHANGE) exchanges two paths in one step, so a
// reader listing a partition sees either all of its old parts or all of its new ones, never a mix
// (no row twice, none missing). Elsewhere it falls back to two renames and says so.

import { dlopen, FFIType } from "bun:ffi";
import { renameSync } from "node:fs";

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;

let renameat2: ((from: Buffer, to: Buffer) => number) | null = null;
try {
  const libc = dlopen("libc.so.6", {
    renameat2: {
      args: [FFIType.i32, FFIType.cstring, FFIType.i32, FFIType.cstring, FFIType.u32],
      returns: FFIType.i32,
    },
  });
  renameat2 = (from, to) => libc.symbols.renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) as number;
} catch {
  renameat2 = null;
}

export const atomicExchangeAvailable = () => renameat2 !== null;

/** Swaps the contents of two directory paths (both must exist, on the same filesystem). */
export function exchangePaths(a: string, b: string): void {
  if (renameat2 && renameat2(Buffer.from(`${a}\0`), Buffer.from(`${b}\0`)) === 0) return;
  // Fallback: not atomic (a reader between the two renames sees no partition at all).
  const parked = `${b}.exchange-${process.pid}`;
  renameSync(b, parked);
  renameSync(a, b);
  renameSync(parked, a);
}
