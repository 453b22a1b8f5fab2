// How an RPC provider is identified in telemetry without ever revealing its URL (which often carries
// an API key): rpcHash = first 16 hex of SHA-256 of the origin; rpcLabel = a coarse provider name.
// Used server-side and by the simulator; the SDK computes the same value without node:crypto
// (src/sdk/identity.ts, which also holds the rpcLabel table; test/sdk/units.test.ts checks they agree).

import { createHash } from "node:crypto";

/** SHA-256 of the RPC origin (scheme://host:port), hex, first 16 characters. */
export function rpcHash(url: string): string {
  return createHash("sha256").update(new URL(url).origin).digest("hex").slice(0, 16);
}

/** What may be shown of an RPC URL (its path or query may carry a key): its origin, scheme://host:port. */
export function rpcOrigin(url: string, fallback = "(invalid URL)"): string {
  try {
    return new URL(url).origin;
  } catch {
    return fallback;
  }
}
