// One server per port and per data directory and node. The port: the listener never shares it
// (no SO_REUSEPORT), so a second server on a taken port fails at once (PortInUseError). The data
// directory: `bun run start` takes `<dataDir>/server-<node>.lock` by exclusive create, holding the
// host, pid and port, and removes it when it stops. A lock whose process is gone (same host, pid
// not running, or this very pid after a container restart) is stale and taken over; one held by a
// live process, or by another host of a shared filesystem, refuses the start (ServerLockedError).
// Processes sharing a data directory (docs/scaling.md) each have their own TXRAY_NODE_ID, so their
// own lock.

import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { processAlive } from "../shared/process-alive";

export type ServerLockHolder = { host: string; pid: number; port: number | null; node: string };

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
  ) {
    const host = holder.host === hostname() ? "" : `host ${holder.host}, `;
    super(
      `already running on data directory ${dataDir} (node ${holder.node}, ${host}pid ${holder.pid}, port ${holder.port ?? "not yet known"}); ` +
        "stop it first, or give each process sharing the directory its own TXRAY_NODE_ID",
    );
  }
}

export type ServerLock = {
  readonly file: string;
  /** Records the port the listener got (API_PORT=0 picks one). */
  setPort(port: number): void;
  /** Removes the lock file (idempotent). */
  release(): void;
};

export function takeServerLock(dataDir: string, node: string, port: number | null): ServerLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `server-${node}.lock`);
  const holder = (port: number | null): ServerLockHolder => ({ host: hostname(), pid: process.pid, port, node });
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const current = readHolder(file);
      if (current && isLive(current)) throw new ServerLockedError(dir, current);
      rmSync(file, { force: true }); // its process is gone (or it was never completed): stale
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(holder(port))}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      file,
      setPort(actual) {
        if (!released) writeFileSync(file, `${JSON.stringify(holder(actual))}\n`, { mode: 0o600 });
      },
      release() {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      },
    };
  }
  throw new Error(`could not take ${file}: other processes keep replacing it`);
}

function readHolder(file: string): ServerLockHolder | null {
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

/** Another host's process cannot be checked from here: presumed live. */
function isLive(holder: ServerLockHolder): boolean {
  if (holder.host !== hostname()) return true;
  return holder.pid !== process.pid && processAlive(holder.pid);
}
