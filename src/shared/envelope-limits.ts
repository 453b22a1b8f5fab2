// The envelope limits the SDK also needs, as plain constants free of any dependency: the SDK
// truncates what it sends to them, and the field table (./envelope-fields.ts) applies them to its
// fields. They sit apart from the table so that the browser bundle carries these few numbers, not
// the whole table with its lake columns and documentation.

export const ENVELOPE_LIMITS = {
  /** Provider label, wallet adapter name, SDK version and send path. */
  label: 64,
  preflightError: 8192,
  simulationLogLines: 200,
  simulationLogLine: 2048,
} as const;

/** Bounds of the optional numeric fields (docs/architecture.md, "The envelope"). */
export const CU_LIMIT_MAX = 1_400_000;
export const MAX_RETRIES_MAX = 1000;
/**
 * ixPrefix: the first (up to) 8 data bytes of the targeted top-level instruction, lower-case hex
 * (docs/api.md#post-v1ingest): an Anchor discriminator is 8 bytes, built-in programs need fewer.
 */
export const IX_PREFIX_BYTES = 8;
