export declare const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";
export declare const SYSTEM_PROGRAM = "11111111111111111111111111111111";
export interface WireInstruction {
    program: string;
    data: Uint8Array;
}
export interface WireTransaction {
    /** First signature in base58, or null when it is unset (all zero bytes: an unsigned transaction). */
    signature: string | null;
    payer: string;
    blockhash: string;
    version: "legacy" | 0;
    instructions: WireInstruction[];
    cuLimit?: number;
    cuPriceMicroLamports?: number;
    /** The first instruction advances a durable nonce: the "blockhash" is the nonce value. */
    nonce: boolean;
    /** The nonce account that instruction advances, when it is a static account key. */
    nonceAccount?: string;
}
export declare function base64Bytes(text: string): Uint8Array;
/** Parses a wire transaction; throws on bytes that are not one. */
export declare function parseTransaction(bytes: Uint8Array): WireTransaction;
/**
 * The program an attempt targeted: the first instruction whose program is among `tracked` when
 * given; else the first that is not Compute Budget (nor the durable-nonce advance); else the first.
 */
export declare function targetProgram(tx: WireTransaction, tracked: ReadonlySet<string> | null): string;
/**
 * The first (up to) 8 data bytes of the first top-level instruction of `program`, lower-case hex:
 * the envelope's `ixPrefix` (docs/api.md#post-v1ingest). With an IDL these bytes name the
 * instruction (Anchor's discriminator), so the server names a landed attempt without fetching its
 * transaction. Undefined when no top-level instruction belongs to `program`.
 */
export declare function instructionPrefix(tx: WireTransaction, program: string): string | undefined;
