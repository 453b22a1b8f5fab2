// The envelope's limits as named constants, read from the table (./envelope-fields.ts): what the SDK
// truncates what it sends to, and what the validators check against.

import { envelopeField, hexPattern } from "./envelope-fields";

const walletAdapter = envelopeField("walletAdapter");
const logs = envelopeField("simulationLogs");

export const ENVELOPE_LIMITS = {
  /** Provider label, wallet adapter name, SDK version and send path. */
  label: walletAdapter.maxLength,
  preflightError: envelopeField("preflightError").maxLength,
  simulationLogLines: logs.maxLines,
  simulationLogLine: logs.maxLineLength,
} as const;

/** A payer under privacy: "hash": lower-case hex of a salted SHA-256. */
export const HASHED_PAYER = hexPattern(envelopeField("payer").hexDigits, false);

/** Bounds of the optional numeric fields (docs/architecture.md, "The envelope"). */
export const CU_LIMIT_MAX = envelopeField("cuLimit").max;
export const MAX_RETRIES_MAX = envelopeField("maxRetries").max;

const ixPrefix = envelopeField("ixPrefix");
/**
 * ixPrefix: the first (up to) 8 data bytes of the targeted top-level instruction, lower-case hex
 * (docs/api.md#post-v1ingest): an Anchor discriminator is 8 bytes, built-in programs need fewer.
 */
export const IX_PREFIX_BYTES = ixPrefix.digits.max / 2;
export const IX_PREFIX = hexPattern(ixPrefix.digits, ixPrefix.wholeBytes);
