// The lock file `bun run start` holds on its data directory, `<dataDir>/server-<node>.lock`: the
// host, pid and port of the server (src/server/single-instance.ts takes and releases it). Read here,
// at the lowest level, so that whatever needs a live server's port (alert links) reads it the same way.

import { readFileSync } from "node:fs";
import { join } from "node:path";

export type ServerLockHolder = { host: string; pid: number; port: number | null; node: string };

/** The lock file of `node`'s server on `dataDir`. */
export const serverLockFile = (dataDir: string, node: string): string => join(dataDir, `server-${node}.lock`);

/** Whether a directory entry is a server lock file. */
export const isServerLockName = (name: string): boolean => /^server-.+\.lock$/.test(name);

/** The holder a lock file names; null when it is missing or is no lock (unreadable, not JSON, no host or pid). */
export function readServerLock(file: string): ServerLockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<ServerLockHolder>;
    if (typeof parsed.host !== "string" || !Number.isInteger(parsed.pid)) return null;
    return {
      host: parsed.host,
      pid: parsed.pid as number,
      port: typeof parsed.port === "number" ? parsed.port : null,
      node: String(parsed.node ?? ""),
    };
  } catch {
    return null;
  }
}
