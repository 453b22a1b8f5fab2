import { z } from "zod";
import { isBase58Address } from "./base58";
import { ENVELOPE_LIMITS } from "./envelope-limits";
export type { Envelope } from "./envelope-fields";
export { ENVELOPE_LIMITS };
export declare const isAddress: typeof isBase58Address;
/** A payer under privacy: "hash": lower-case hex of a salted SHA-256. */
export declare const HASHED_PAYER: RegExp;
/** The rules across fields, which the table cannot say: what kind implies for preflightError and sig. */
export declare const envelopeSchema: z.ZodObject<{
    blockhash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    cuLimit: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
    cuPriceMicroLamports: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
    ixPrefix: z.ZodType<string | undefined, unknown, z.core.$ZodTypeInternals<string | undefined, unknown>>;
    kind: z.ZodType<"preflight" | "send", unknown, z.core.$ZodTypeInternals<"preflight" | "send", unknown>>;
    lastValidBlockHeight: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
    maxRetries: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
    nonce: z.ZodType<boolean | undefined, unknown, z.core.$ZodTypeInternals<boolean | undefined, unknown>>;
    payer: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    preflightError: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
    program: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    rpcHash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    rpcLabel: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    sdkVersion: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    sendPath: z.ZodType<string | undefined, unknown, z.core.$ZodTypeInternals<string | undefined, unknown>>;
    sentAt: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
    sig: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
    simulationLogs: z.ZodType<string[], unknown, z.core.$ZodTypeInternals<string[], unknown>>;
    skipPreflight: z.ZodType<boolean | undefined, unknown, z.core.$ZodTypeInternals<boolean | undefined, unknown>>;
    walletAdapter: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
}, z.core.$strip>;
export declare const ingestBodySchema: z.ZodObject<{
    apiKey: z.ZodOptional<z.ZodString>;
    envelopes: z.ZodArray<z.ZodObject<{
        blockhash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        cuLimit: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
        cuPriceMicroLamports: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
        ixPrefix: z.ZodType<string | undefined, unknown, z.core.$ZodTypeInternals<string | undefined, unknown>>;
        kind: z.ZodType<"preflight" | "send", unknown, z.core.$ZodTypeInternals<"preflight" | "send", unknown>>;
        lastValidBlockHeight: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
        maxRetries: z.ZodType<number | undefined, unknown, z.core.$ZodTypeInternals<number | undefined, unknown>>;
        nonce: z.ZodType<boolean | undefined, unknown, z.core.$ZodTypeInternals<boolean | undefined, unknown>>;
        payer: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        preflightError: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
        program: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        rpcHash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        rpcLabel: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        sdkVersion: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        sendPath: z.ZodType<string | undefined, unknown, z.core.$ZodTypeInternals<string | undefined, unknown>>;
        sentAt: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
        sig: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
        simulationLogs: z.ZodType<string[], unknown, z.core.$ZodTypeInternals<string[], unknown>>;
        skipPreflight: z.ZodType<boolean | undefined, unknown, z.core.$ZodTypeInternals<boolean | undefined, unknown>>;
        walletAdapter: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    }, z.core.$strip>>;
}, z.core.$strip>;
