// The envelope's limits and constants, free of any dependency: the SDK (which must not bundle zod)
// truncates what it sends to these, and the zod schema in ./envelope.ts validates against them.

export const ENVELOPE_LIMITS = {
  label: 64,
  preflightError: 8192,
  simulationLogLines: 200,
  simulationLogLine: 2048,
} as const;

/** A payer under privacy: "hash": lower-case hex of a salted SHA-256. */
export const HASHED_PAYER = /^[0-9a-f]{16,64}$/;

/** Bounds of the optional numeric fields (docs/architecture.md, "The envelope"). */
export const CU_LIMIT_MAX = 1_400_000;
export const MAX_RETRIES_MAX = 1000;
/**
 * ixPrefix: the first (up to) 8 data bytes of the targeted top-level instruction, lower-case hex
 * (docs/api.md#post-v1ingest): an Anchor discriminator is 8 bytes, built-in programs need fewer.
 */
export const IX_PREFIX_BYTES = 8;
export const IX_PREFIX = /^(?:[0-9a-f]{2}){0,8}$/;
