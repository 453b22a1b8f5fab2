export declare const ENVELOPE_LIMITS: {
    /** Provider label, wallet adapter name, SDK version and send path. */
    readonly label: 64;
    readonly preflightError: 8192;
    readonly simulationLogLines: 200;
    readonly simulationLogLine: 2048;
};
/** Bounds of the optional numeric fields (docs/architecture.md, "The envelope"). */
export declare const CU_LIMIT_MAX = 1400000;
export declare const MAX_RETRIES_MAX = 1000;
/**
 * ixPrefix: the first (up to) 8 data bytes of the targeted top-level instruction, lower-case hex
 * (docs/api.md#post-v1ingest): an Anchor discriminator is 8 bytes, built-in programs need fewer.
 */
export declare const IX_PREFIX_BYTES = 8;
