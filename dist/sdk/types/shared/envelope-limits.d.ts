export declare const ENVELOPE_LIMITS: {
    readonly label: 64;
    readonly preflightError: 8192;
    readonly simulationLogLines: 200;
    readonly simulationLogLine: 2048;
};
/** A payer under privacy: "hash": lower-case hex of a salted SHA-256. */
export declare const HASHED_PAYER: RegExp;
/** Bounds of the optional numeric fields (docs/architecture.md, "The envelope"). */
export declare const CU_LIMIT_MAX = 1400000;
export declare const MAX_RETRIES_MAX = 1000;
