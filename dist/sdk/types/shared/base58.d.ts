import { encodeBase58 } from "./base58-encode";
export { encodeBase58 };
/** Decodes base58 text; returns null for any character outside the alphabet. */
export declare function decodeBase58(text: string): Uint8Array | null;
/**
 * LENGTH_TABLE as bytes for the native ingest fast path: per m, a 130-byte record [bytesBelow, boundary length,
 * boundary].
 */
export declare function base58LengthTableBytes(): Uint8Array;
/** The number of bytes `text` decodes to, or -1 if it is not base58 (or absurdly long). */
export declare function base58DecodedLength(text: string): number;
/** True when `text` is base58 that decodes to exactly `byteLength` bytes. */
export declare function isBase58OfLength(text: string, byteLength: number): boolean;
/** A 32-byte public key or blockhash. */
export declare const isBase58Address: (text: string) => boolean;
/** A 64-byte transaction signature. */
export declare const isBase58Signature: (text: string) => boolean;
