import { z } from "zod";
import { isBase58Address } from "./base58";
import { ENVELOPE_LIMITS, HASHED_PAYER } from "./envelope-limits";
export { ENVELOPE_LIMITS, HASHED_PAYER };
export declare const isAddress: typeof isBase58Address;
export declare const envelopeSchema: z.ZodObject<{
    sig: z.ZodNullable<z.ZodString>;
    program: z.ZodString;
    blockhash: z.ZodString;
    lastValidBlockHeight: z.ZodNumber;
    sentAt: z.ZodNumber;
    rpcHash: z.ZodString;
    rpcLabel: z.ZodString;
    walletAdapter: z.ZodString;
    kind: z.ZodEnum<{
        preflight: "preflight";
        send: "send";
    }>;
    preflightError: z.ZodNullable<z.ZodString>;
    simulationLogs: z.ZodArray<z.ZodString>;
    payer: z.ZodString;
    sdkVersion: z.ZodString;
    cuLimit: z.ZodOptional<z.ZodNumber>;
    cuPriceMicroLamports: z.ZodOptional<z.ZodNumber>;
    maxRetries: z.ZodOptional<z.ZodNumber>;
    skipPreflight: z.ZodOptional<z.ZodBoolean>;
    sendPath: z.ZodOptional<z.ZodString>;
    nonce: z.ZodOptional<z.ZodBoolean>;
    ixPrefix: z.ZodOptional<z.ZodString>;
}, z.core.$strip>;
export type Envelope = z.infer<typeof envelopeSchema>;
export declare const ingestBodySchema: z.ZodObject<{
    apiKey: z.ZodOptional<z.ZodString>;
    envelopes: z.ZodArray<z.ZodObject<{
        sig: z.ZodNullable<z.ZodString>;
        program: z.ZodString;
        blockhash: z.ZodString;
        lastValidBlockHeight: z.ZodNumber;
        sentAt: z.ZodNumber;
        rpcHash: z.ZodString;
        rpcLabel: z.ZodString;
        walletAdapter: z.ZodString;
        kind: z.ZodEnum<{
            preflight: "preflight";
            send: "send";
        }>;
        preflightError: z.ZodNullable<z.ZodString>;
        simulationLogs: z.ZodArray<z.ZodString>;
        payer: z.ZodString;
        sdkVersion: z.ZodString;
        cuLimit: z.ZodOptional<z.ZodNumber>;
        cuPriceMicroLamports: z.ZodOptional<z.ZodNumber>;
        maxRetries: z.ZodOptional<z.ZodNumber>;
        skipPreflight: z.ZodOptional<z.ZodBoolean>;
        sendPath: z.ZodOptional<z.ZodString>;
        nonce: z.ZodOptional<z.ZodBoolean>;
        ixPrefix: z.ZodOptional<z.ZodString>;
    }, z.core.$strip>>;
}, z.core.$strip>;
