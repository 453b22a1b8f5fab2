export declare const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** Encodes bytes as base58 text. */
export declare function encodeBase58(bytes: Uint8Array): string;
