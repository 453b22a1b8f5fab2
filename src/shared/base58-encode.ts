// Base58 encoding alone, free of the validation tables in base58.ts (which build a BigInt table at
// import): the browser SDK imports only this, so its bundle stays small.

export const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** 58^5: five base58 digits per limb, and limb × 65536 + 65535 stays below 2^53 (exact in a double). */
const LIMB = 656_356_768;

/**
 * Encodes bytes as base58 text. Schoolbook base conversion, but two input bytes and five output
 * digits per step (about 8× fewer steps than digit by digit): signatures and keys are encoded on
 * hot paths (the SDK, the decoder, the local chain).
 */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const limbs: number[] = []; // little-endian, each < LIMB
  let i = zeros;
  const step = (value: number, base: number) => {
    let carry = value;
    for (let j = 0; j < limbs.length; j++) {
      carry += limbs[j] * base;
      limbs[j] = carry % LIMB;
      carry = Math.floor(carry / LIMB);
    }
    while (carry > 0) {
      limbs.push(carry % LIMB);
      carry = Math.floor(carry / LIMB);
    }
  };
  if ((bytes.length - i) % 2 === 1) step(bytes[i++], 256);
  for (; i < bytes.length; i += 2) step(bytes[i] * 256 + bytes[i + 1], 65536);
  const out = new Array<string>(limbs.length * 5);
  let n = 0;
  for (let j = 0; j < limbs.length; j++) {
    let limb = limbs[j];
    const last = j === limbs.length - 1;
    for (let k = 0; k < 5 && (!last || limb > 0); k++) {
      const next = (limb / 58) | 0;
      out[n++] = ALPHABET[limb - next * 58];
      limb = next;
    }
  }
  out.length = n;
  return "1".repeat(zeros) + out.reverse().join("");
}
