// The wire contract: the telemetry envelope (docs/architecture.md, "The envelope"; fields in docs/api.md), written
// once as a zod schema in this neutral module. Ingest validates with it (src/ingest/envelope.ts
// re-exports it), the SDK (src/sdk, type-only import, so zod stays out of its bundle) and the
// simulator build values of its type, and the lake's envelope columns are derived from it
// (src/lake/schema.ts). Its limits live in ./envelope-limits.ts, which the SDK imports as values.
//
// Unknown fields are ignored and not stored: a newer SDK may send fields an older server does not
// know, and that must not turn its telemetry into 400s (docs/api.md, "Forward compatibility").

import { z } from "zod";
import { isBase58Address, isBase58Signature } from "./base58";
import { CU_LIMIT_MAX, ENVELOPE_LIMITS, HASHED_PAYER, IX_PREFIX, MAX_RETRIES_MAX } from "./envelope-limits";

export { ENVELOPE_LIMITS, HASHED_PAYER };

export const isAddress = isBase58Address;

const address = z.string().max(44).refine(isAddress, "expected a base58 32-byte address");
const signature = z.string().max(88).refine(isBase58Signature, "expected a base58 64-byte signature");
/** Ten years either side of now is generous for client clocks and still rejects seconds-for-ms. */
const unixMilliseconds = z.number().int().min(1_500_000_000_000).max(4_102_444_800_000);

export const envelopeSchema = z
  .object({
    sig: signature.nullable(),
    program: address,
    blockhash: address,
    lastValidBlockHeight: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    sentAt: unixMilliseconds,
    rpcHash: z.string().regex(/^[0-9a-f]{16}$/, "expected 16 lower-case hex characters"),
    rpcLabel: z.string().min(1).max(ENVELOPE_LIMITS.label),
    walletAdapter: z.string().max(ENVELOPE_LIMITS.label),
    kind: z.enum(["send", "preflight"]),
    preflightError: z.string().max(ENVELOPE_LIMITS.preflightError).nullable(),
    simulationLogs: z.array(z.string().max(ENVELOPE_LIMITS.simulationLogLine)).max(ENVELOPE_LIMITS.simulationLogLines),
    // A public key, or (privacy: "hash") a salted hash of it as lower-case hex.
    payer: z
      .string()
      .max(64)
      .refine((text) => HASHED_PAYER.test(text) || isAddress(text), "expected a base58 public key or a hex hash"),
    sdkVersion: z.string().min(1).max(ENVELOPE_LIMITS.label),
    // Optional fields (docs/architecture.md, "The envelope"): validated when present, stored in the lake.
    cuLimit: z.number().int().min(0).max(CU_LIMIT_MAX).optional(),
    cuPriceMicroLamports: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    maxRetries: z.number().int().min(0).max(MAX_RETRIES_MAX).optional(),
    skipPreflight: z.boolean().optional(),
    sendPath: z.string().min(1).max(ENVELOPE_LIMITS.label).optional(),
    nonce: z.boolean().optional(),
    ixPrefix: z
      .string()
      .max(16)
      .regex(IX_PREFIX, "expected the hex of at most 8 bytes (lower-case, an even number of digits)")
      .optional(),
  })
  .superRefine((envelope, context) => {
    if (envelope.kind === "preflight" && envelope.preflightError === null) {
      context.addIssue({ code: "custom", path: ["preflightError"], message: 'required when kind is "preflight"' });
    }
    if (envelope.kind === "send" && envelope.preflightError !== null) {
      context.addIssue({ code: "custom", path: ["preflightError"], message: 'must be null when kind is "send"' });
    }
    if (envelope.kind === "send" && envelope.sig === null) {
      context.addIssue({ code: "custom", path: ["sig"], message: 'null only when kind is "preflight"' });
    }
  });

export type Envelope = z.infer<typeof envelopeSchema>;

export const ingestBodySchema = z.object({
  apiKey: z.string().max(128).optional(),
  envelopes: z.array(envelopeSchema),
});
