import { describe, expect, test } from "bun:test";
import {
  base58DecodedLength,
  decodeBase58,
  encodeBase58,
  isBase58Address,
  isBase58Signature,
} from "../../src/shared/base58";

describe("base58", () => {
  test("round-trips known Solana values", () => {
    const system = "11111111111111111111111111111111";
    expect(decodeBase58(system)).toEqual(new Uint8Array(32));
    expect(encodeBase58(new Uint8Array(32))).toBe(system);
    const token = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
    expect(encodeBase58(decodeBase58(token)!)).toBe(token);
    expect(isBase58Address(token)).toBe(true);
  });
  test("rejects characters outside the alphabet and wrong lengths", () => {
    expect(decodeBase58("0OIl")).toBeNull();
    expect(isBase58Address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D")).toBe(false); // 31 bytes
    expect(isBase58Address("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")).toBe(false); // 33 bytes
    expect(isBase58Address("")).toBe(false);
  });
  test("signatures are 64 bytes", () => {
    const sig = "5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL";
    expect(isBase58Signature(sig)).toBe(true);
    expect(isBase58Address(sig)).toBe(false);
    const bytes = new Uint8Array(64).map((_, i) => (i * 37) & 0xff);
    expect(decodeBase58(encodeBase58(bytes))).toEqual(bytes);
  });
});

test("the fast length check agrees with a full decode", () => {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  for (let i = 0; i < 3000; i++) {
    const length = 1 + (i % 90);
    let text = "";
    for (let j = 0; j < length; j++) text += alphabet[Math.floor(Math.random() * (i % 7 === 0 ? 2 : 58))];
    expect(base58DecodedLength(text)).toBe(decodeBase58(text)!.length);
  }
  for (let size = 0; size <= 64; size++) {
    const bytes = new Uint8Array(size).map(() => Math.floor(Math.random() * 256));
    if (size > 2) bytes[0] = 0;
    expect(base58DecodedLength(encodeBase58(bytes))).toBe(size);
  }
  expect(base58DecodedLength("abc0")).toBe(-1);
});
