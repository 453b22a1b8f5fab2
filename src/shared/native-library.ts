// Building txray's optional C fast paths (ingest: src/ingest/native, flush: src/lake/native).
//
// A C file is compiled with the machine's C compiler the first time a server or job needs it
// (well under a second) into node_modules/.cache/txray/, named by the hash of its source, and
// loaded with bun:ffi by its module. Without a compiler the callers run their reference path
// (JavaScript, DuckDB) instead: the fast paths change speed, never answers.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "bun";

const CACHE_DIR = join(import.meta.dir, "..", "..", "node_modules", ".cache", "txray");

/** Tests point these elsewhere; the server uses the defaults. */
export type NativeBuildOptions = { cacheDir?: string; searchPath?: string };

/** Where the compiled library of the current `source` lives. */
export function nativeLibraryPath(
  source: string,
  name: string,
  { cacheDir = CACHE_DIR }: NativeBuildOptions = {},
): string {
  const hash = Bun.hash(readFileSync(source)).toString(16);
  return join(cacheDir, `txray-${name}-${hash}.so`);
}

/** Compiles `source` unless already built; returns an error text when it cannot. */
export function buildNativeLibrary(source: string, name: string, options: NativeBuildOptions = {}): string | null {
  const target = nativeLibraryPath(source, name, options);
  if (existsSync(target)) return null;
  const PATH = options.searchPath ?? process.env.PATH ?? "";
  const compiler = Bun.which("cc", { PATH }) ?? Bun.which("gcc", { PATH }) ?? Bun.which("clang", { PATH });
  if (!compiler) return "no C compiler (cc, gcc or clang) on PATH";
  // Each process compiles to its own file and renames it into place: concurrent starts never load half a library.
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    mkdirSync(options.cacheDir ?? CACHE_DIR, { recursive: true });
    // Baseline -O3 for the target architecture, never -march=native: node_modules may be copied to another CPU.
    const result = spawnSync([compiler, "-O3", "-pthread", "-shared", "-fPIC", "-o", temporary, source], {
      stderr: "pipe",
    });
    if (result.exitCode !== 0) return `${compiler} failed: ${result.stderr.toString().slice(0, 500)}`;
    renameSync(temporary, target);
    // Libraries of older sources are dead weight now (a process that loaded one keeps its mapping).
    const cacheDir = options.cacheDir ?? CACHE_DIR;
    for (const old of readdirSync(cacheDir))
      if (old.startsWith(`txray-${name}-`) && old.endsWith(".so") && join(cacheDir, old) !== target)
        rmSync(join(cacheDir, old), { force: true });
    return null;
  } catch (error) {
    return `could not build ${target}: ${String(error)}`;
  } finally {
    rmSync(temporary, { force: true });
  }
}
