export declare const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/**
 * Encodes bytes as base58 text. Schoolbook base conversion, but two input bytes and five output
 * digits per step (about 8× fewer steps than digit by digit): signatures and keys are encoded on
 * hot paths (the SDK, the decoder, the local chain).
 */
export declare function encodeBase58(bytes: Uint8Array): string;
