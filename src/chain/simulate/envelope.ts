// The telemetry envelope txray ingests (seed §2.2, plus the optional fields of DESIGN §4), as the
// simulator produces it for each attempt, and the provider identity fields: rpcHash is the first 16
// hex characters of SHA-256 of the RPC origin (never the URL itself), rpcLabel a coarse name.
// The zod schema mirrors the contract so the simulator never emits something ingest would reject.

import { createHash } from "node:crypto";
import { z } from "zod";
import { isBase58Address, isBase58Signature } from "../../shared/base58.ts";

export const SDK_VERSION = "txray-simulator/0.1.0";

export const envelopeSchema = z.object({
  sig: z.string().refine(isBase58Signature, "expected a base58 signature").nullable(),
  program: z.string().refine(isBase58Address, "expected a base58 address"),
  blockhash: z.string().refine(isBase58Address, "expected a base58 blockhash"),
  lastValidBlockHeight: z.number().int().nonnegative(),
  sentAt: z.number().int().nonnegative(),
  rpcHash: z.string().regex(/^[0-9a-f]{16}$/),
  rpcLabel: z.string().min(1),
  walletAdapter: z.string().min(1),
  kind: z.enum(["send", "preflight"]),
  preflightError: z.string().nullable(),
  simulationLogs: z.array(z.string()),
  payer: z.string().min(1),
  sdkVersion: z.string().min(1),
  cuLimit: z.number().int().nonnegative().optional(),
  cuPriceMicroLamports: z.number().int().nonnegative().optional(),
  skipPreflight: z.boolean().optional(),
  sendPath: z.string().optional(),
});

export type Envelope = z.infer<typeof envelopeSchema>;

/** SHA-256 of the RPC origin (scheme://host:port), hex, first 16 characters. */
export function rpcHash(url: string): string {
  return createHash("sha256").update(new URL(url).origin).digest("hex").slice(0, 16);
}
