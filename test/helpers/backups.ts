// What the backup tests share: scratch directories removed after each test, the CLI run in-process
// (exactly what a user sees on stdout and stderr), a directory's listing to show that nothing was
// written, and a flipped byte to damage a file.
import { afterEach } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/commands";

/** Registers an afterEach that runs the deferred cleanups (last first) and removes the temp directories. */
export function scratch() {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    defer: (cleanup: () => Promise<void> | void) => cleanups.push(cleanup),
    tempDir(prefix: string): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
  };
}

/** `txray <argv>` in this process, silent logs unless `env` says otherwise. */
export async function cliInProcess(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TXRAY_LOG_LEVEL: "silent", ...env },
  });
  return { code, stdout, stderr };
}

/** Every entry under a directory with its size: "nothing was written" compares two of these. */
export function listing(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => `${name}:${statSync(join(dir, name)).isFile() ? statSync(join(dir, name)).size : "dir"}`)
    .sort();
}

/** Damages a file: one bit of its middle byte flipped. */
export function flipByte(file: string): void {
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  writeFileSync(file, bytes);
}
