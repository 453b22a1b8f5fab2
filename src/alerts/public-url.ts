// The one public address the links of alerts and Slack messages start with: TXRAY_PUBLIC_URL when
// set; else where this process's HTTP server listens (recorded after binding, so API_PORT=0 gives
// the real port); else, in a process that does not listen (`txray alerts test`, `txray jobs run
// alerts`), a live server of the same data directory, found by its lock file; else API_HOST:API_PORT.

import { readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Config } from "../config";
import type { Context, OwnedPart } from "../context";
import { processAlive } from "../shared/process-alive";
import { isServerLockName, readServerLock } from "../shared/server-lock-file";

/** Where this context's HTTP server listens, once it does (null: it does not listen). */
export const LISTENING_ADDRESS: OwnedPart<{ url: string | null }> = {
  name: "listening address",
  make: () => ({ url: null }),
};

/** `http://host:port`, an IPv6 literal in brackets. */
export function httpOrigin(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

export type LinkSource = { config: Config; own?: Context["own"] };

/** The web app's base URL for links (see the head of this file for the order). */
export function publicBaseUrl(source: LinkSource): string {
  const { config } = source;
  if (config.TXRAY_PUBLIC_URL) return config.TXRAY_PUBLIC_URL;
  const listening = source.own?.(LISTENING_ADDRESS).url;
  if (listening) return listening;
  const live = liveServerPort(config.dataDir);
  return httpOrigin(config.API_HOST, live ?? config.API_PORT);
}

/**
 * The port of a live server on `dataDir`: `bun run start` holds `<dataDir>/server-<node>.lock`
 * (`{host, pid, port}`, src/server/single-instance.ts) while it runs. Only a process of this host
 * can be checked alive; this process's own pid is a stale lock (a container restart), not a server.
 * The lock names no host to reach it by: the caller's API_HOST is used with it.
 */
function liveServerPort(dataDir: string): number | null {
  let names: string[];
  try {
    names = readdirSync(dataDir).filter(isServerLockName).sort();
  } catch {
    return null;
  }
  for (const name of names) {
    const holder = readServerLock(join(dataDir, name));
    if (holder === null || holder.host !== hostname() || holder.pid === process.pid) continue;
    if (holder.port === null || holder.port <= 0 || !processAlive(holder.pid)) continue;
    return holder.port;
  }
  return null;
}
