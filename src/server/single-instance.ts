// One server per port and per data directory and node. The port: the listener never shares it
// (no SO_REUSEPORT), so a second server on a taken port fails at once (PortInUseError). The data
// directory: `bun run start` takes `<dataDir>/server-<node>.lock`, holding the host, pid and port,
// and removes it when it stops. The lock is written whole to a temporary file and hard-linked into
// place, which fails when one exists: a lock is never seen half written, and of two servers starting
// at once exactly one gets it. A lock whose process is gone (same host, pid not running, or this
// very pid after a container restart) is stale and taken over; one held by a live process, or by
// another host of a shared filesystem (which cannot be checked from here), refuses the start
// (ServerLockedError, which says how to remove the latter). Only the holder removes its lock.
// Processes sharing a data directory (docs/scaling.md) each have their own TXRAY_NODE_ID, so their
// own lock.

import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, renameSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { processAlive } from "../shared/process-alive";
import { readServerLock, type ServerLockHolder, serverLockFile } from "../shared/server-lock-file";

export { isServerLockName, readServerLock, type ServerLockHolder, serverLockFile } from "../shared/server-lock-file";

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(`port ${port} on ${host} is in use`);
  }
}

export class ServerLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: ServerLockHolder,
    readonly file = serverLockFile(dataDir, holder.node),
  ) {
    const elsewhere = holder.host !== hostname();
    const host = elsewhere ? `host ${holder.host}, ` : "";
    super(
      `already running on data directory ${dataDir} (node ${holder.node}, ${host}pid ${holder.pid}, port ${holder.port ?? "not yet known"}); ` +
        "stop it first, or give each process sharing the directory its own TXRAY_NODE_ID" +
        (elsewhere
          ? `; a lock of another host is never presumed stale: once that server is known to be stopped, remove ${file}`
          : ""),
    );
  }
}

export type ServerLock = {
  readonly file: string;
  /** Records the port the listener got (API_PORT=0 picks one). */
  setPort(port: number): void;
  /** Removes the lock file if this process still holds it (idempotent). */
  release(): void;
};

export function takeServerLock(dataDir: string, node: string, port: number | null): ServerLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = serverLockFile(dir, node);
  const holder = (port: number | null): ServerLockHolder => ({ host: hostname(), pid: process.pid, port, node });
  const ours = () => {
    const current = readServerLock(file);
    return current !== null && current.host === hostname() && current.pid === process.pid && current.node === node;
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createWhole(file, holder(port))) {
      let released = false;
      return {
        file,
        setPort(actual) {
          if (!released && ours()) replaceWhole(file, holder(actual));
        },
        release() {
          if (released) return;
          released = true;
          if (ours()) rmSync(file, { force: true });
        },
      };
    }
    let judged: Stats;
    try {
      judged = statSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // released meanwhile
      throw error;
    }
    const current = readServerLock(file);
    if (current && isLive(current)) throw new ServerLockedError(dir, current, file);
    removeIfUnchanged(file, judged); // its process is gone (or it is no lock at all): stale
  }
  throw new Error(`could not take ${file}: other processes keep replacing it`);
}

const temporaryBeside = (file: string) => `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;

/** Writes the lock whole beside `file` and links it into place; false when `file` exists. */
function createWhole(file: string, holder: ServerLockHolder): boolean {
  const temporary = temporaryBeside(file);
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Replaces the lock's content in one step (a rename): a reader sees the old holder or the new one. */
function replaceWhole(file: string, holder: ServerLockHolder): void {
  const temporary = temporaryBeside(file);
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temporary, file);
}

/**
 * Removes a stale lock, unless another starter replaced it since it was judged: it is moved aside
 * first, and a file that is not the one judged (another inode or time) is linked back.
 */
function removeIfUnchanged(file: string, judged: Stats): void {
  const aside = temporaryBeside(file);
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = statSync(aside);
  if (moved.ino !== judged.ino || moved.mtimeMs !== judged.mtimeMs) {
    try {
      linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  rmSync(aside, { force: true });
}

/** Another host's process cannot be checked from here: presumed live. */
function isLive(holder: ServerLockHolder): boolean {
  if (holder.host !== hostname()) return true;
  return holder.pid !== process.pid && processAlive(holder.pid);
}
