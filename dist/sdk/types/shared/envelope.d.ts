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
    cuLimit: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
    cuPriceMicroLamports: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
    ixPrefix: z.ZodOptional<z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>>;
    kind: z.ZodType<"preflight" | "send", unknown, z.core.$ZodTypeInternals<"preflight" | "send", unknown>>;
    lastValidBlockHeight: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
    maxRetries: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
    nonce: z.ZodOptional<z.ZodType<boolean, unknown, z.core.$ZodTypeInternals<boolean, unknown>>>;
    payer: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    preflightError: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
    program: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    rpcHash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    rpcLabel: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    sdkVersion: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    sendPath: z.ZodOptional<z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>>;
    sentAt: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
    sig: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
    simulationLogs: z.ZodType<string[], unknown, z.core.$ZodTypeInternals<string[], unknown>>;
    skipPreflight: z.ZodOptional<z.ZodType<boolean, unknown, z.core.$ZodTypeInternals<boolean, unknown>>>;
    walletAdapter: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
}, z.core.$strip>;
export declare const ingestBodySchema: z.ZodObject<{
    apiKey: z.ZodOptional<z.ZodString>;
    envelopes: z.ZodArray<z.ZodObject<{
        blockhash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        cuLimit: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
        cuPriceMicroLamports: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
        ixPrefix: z.ZodOptional<z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>>;
        kind: z.ZodType<"preflight" | "send", unknown, z.core.$ZodTypeInternals<"preflight" | "send", unknown>>;
        lastValidBlockHeight: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
        maxRetries: z.ZodOptional<z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>>;
        nonce: z.ZodOptional<z.ZodType<boolean, unknown, z.core.$ZodTypeInternals<boolean, unknown>>>;
        payer: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        preflightError: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
        program: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        rpcHash: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        rpcLabel: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        sdkVersion: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
        sendPath: z.ZodOptional<z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>>;
        sentAt: z.ZodType<number, unknown, z.core.$ZodTypeInternals<number, unknown>>;
        sig: z.ZodType<string | null, unknown, z.core.$ZodTypeInternals<string | null, unknown>>;
        simulationLogs: z.ZodType<string[], unknown, z.core.$ZodTypeInternals<string[], unknown>>;
        skipPreflight: z.ZodOptional<z.ZodType<boolean, unknown, z.core.$ZodTypeInternals<boolean, unknown>>>;
        walletAdapter: z.ZodType<string, unknown, z.core.$ZodTypeInternals<string, unknown>>;
    }, z.core.$strip>>;
}, z.core.$strip>;
