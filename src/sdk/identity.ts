// How the SDK names an RPC provider without revealing its URL (which often carries an API key):
// rpcHash = first 16 hex of SHA-256 of `new URL(url).origin` (the same value as
// src/shared/rpc-identity.ts computes server-side; test/sdk/identity.test.ts checks they agree);
// rpcLabel = a coarse name from a table of known provider hosts, "public" for the Solana Foundation
// endpoints, "localhost" for loopback, "custom" otherwise.

import { sha256Hex } from "./sha256";

/** Host suffix → label. A host matches when it equals the suffix or ends with "." + suffix. */
const PROVIDERS: [suffix: string, label: string][] = [
  ["helius-rpc.com", "helius"],
  ["helius.xyz", "helius"],
  ["helius.dev", "helius"],
  ["quiknode.pro", "quicknode"],
  ["quicknode.com", "quicknode"],
  ["alchemy.com", "alchemy"],
  ["rpcpool.com", "triton"],
  ["triton.one", "triton"],
  ["ankr.com", "ankr"],
  ["syndica.io", "syndica"],
  ["chainstack.com", "chainstack"],
  ["p2pify.com", "chainstack"],
  ["getblock.io", "getblock"],
  ["blockdaemon.com", "blockdaemon"],
  ["extrnode.com", "extrnode"],
  ["shyft.to", "shyft"],
  ["drpc.org", "drpc"],
  ["publicnode.com", "publicnode"],
  ["infura.io", "infura"],
  ["tatum.io", "tatum"],
  ["nownodes.io", "nownodes"],
  ["onfinality.io", "onfinality"],
  ["allthatnode.com", "allthatnode"],
  ["ironforge.network", "ironforge"],
  ["solanavibestation.com", "solana-vibe-station"],
  ["ercot.xyz", "ercot"],
];

/** The Solana Foundation's public endpoints. */
const PUBLIC_HOSTS = new Set([
  "api.mainnet-beta.solana.com",
  "api.mainnet.solana.com",
  "api.devnet.solana.com",
  "api.testnet.solana.com",
]);

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0)$/;

/** SHA-256 of the RPC origin (scheme://host:port), hex, first 16 characters. Throws on a bad URL. */
export function rpcHash(url: string): string {
  return sha256Hex(new URL(url).origin).slice(0, 16);
}

/** Coarse provider label of an RPC URL. */
export function rpcLabel(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return "custom";
  }
  if (PUBLIC_HOSTS.has(host)) return "public";
  if (LOOPBACK.test(host) || host.endsWith(".localhost")) return "localhost";
  for (const [suffix, label] of PROVIDERS) if (host === suffix || host.endsWith(`.${suffix}`)) return label;
  return "custom";
}

/** The URL used when an RPC's URL is unknown (kit RPC instrumented without one). */
export const UNKNOWN_RPC = "unknown://rpc";
