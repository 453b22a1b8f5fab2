// Base58 (Bitcoin alphabet) as Solana uses it for addresses, blockhashes and signatures.
// Ingest validates every program, blockhash, payer and signature with it: these strings become
// partition paths and lookup keys, so "looks like base58" is not enough; the decoded length must be right.

import { ALPHABET, encodeBase58 } from "./base58-encode";

export { encodeBase58 };

const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** Decodes base58 text; returns null for any character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0) return new Uint8Array(0);
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* "1" */) zeros++;
  // log(58)/log(256) ≈ 0.733: an upper bound of the decoded size.
  const size = Math.ceil((text.length - zeros) * 0.733) + 1;
  const bytes = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code] : -1;
    if (digit < 0) return null;
    let carry = digit;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 58 * bytes[k];
      bytes[k] = carry & 0xff;
      carry >>= 8;
    }
    length = j;
  }
  const out = new Uint8Array(zeros + length);
  out.set(bytes.subarray(size - length), zeros);
  return out;
}

const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]*$/;
const MAX_DIGITS = 128;

/**
 * For m significant digits the value lies in [58^(m-1), 58^m): a range narrower than a factor of
 * 256, so it spans at most one byte boundary 256^k. Precompute, per m, the byte count below that
 * boundary and the boundary itself written with m base58 digits. Because the alphabet is in ASCII
 * order, comparing strings of equal length compares their values: the decoded length of any base58
 * text is then one regex test and one string comparison (ingest checks every signature this way).
 */
const LENGTH_TABLE: { bytesBelow: number; boundary: string | null }[] = [{ bytesBelow: 0, boundary: null }];
for (let m = 1; m <= MAX_DIGITS; m++) {
  const low = 58n ** BigInt(m - 1);
  const high = 58n ** BigInt(m);
  let bytes = 1;
  while (256n ** BigInt(bytes) <= low) bytes++; // bytes of the smallest m-digit value
  const power = 256n ** BigInt(bytes);
  LENGTH_TABLE.push({ bytesBelow: bytes, boundary: power < high ? encodeBigInt(power) : null });
}

/**
 * LENGTH_TABLE as bytes for the native ingest fast path: per m, a 130-byte record [bytesBelow, boundary length,
 * boundary].
 */
export function base58LengthTableBytes(): Uint8Array {
  const record = 2 + MAX_DIGITS;
  const bytes = new Uint8Array(LENGTH_TABLE.length * record);
  LENGTH_TABLE.forEach(({ bytesBelow, boundary }, m) => {
    bytes[m * record] = bytesBelow;
    bytes[m * record + 1] = boundary?.length ?? 0;
    for (let i = 0; i < (boundary?.length ?? 0); i++) bytes[m * record + 2 + i] = boundary!.charCodeAt(i);
  });
  return bytes;
}

function encodeBigInt(value: bigint): string {
  let text = "";
  while (value > 0n) {
    text = ALPHABET[Number(value % 58n)] + text;
    value /= 58n;
  }
  return text;
}

/** The number of bytes `text` decodes to, or -1 if it is not base58 (or absurdly long). */
export function base58DecodedLength(text: string): number {
  if (!BASE58_TEXT.test(text)) return -1;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  const digits = text.length - zeros;
  if (digits === 0) return zeros;
  if (digits > MAX_DIGITS) return -1;
  const { bytesBelow, boundary } = LENGTH_TABLE[digits];
  const rest = zeros === 0 ? text : text.slice(zeros);
  return zeros + (boundary !== null && rest >= boundary ? bytesBelow + 1 : bytesBelow);
}

/** True when `text` is base58 that decodes to exactly `byteLength` bytes. */
export function isBase58OfLength(text: string, byteLength: number): boolean {
  // A byteLength-byte value never needs more than ceil(byteLength * 1.366) characters.
  if (text.length === 0 || text.length > Math.ceil(byteLength * 1.37) + 1) return false;
  return base58DecodedLength(text) === byteLength;
}

/** A 32-byte public key or blockhash. */
export const isBase58Address = (text: string) => isBase58OfLength(text, 32);
/** A 64-byte transaction signature. */
export const isBase58Signature = (text: string) => isBase58OfLength(text, 64);
