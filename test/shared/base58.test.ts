import { describe, expect, test } from "bun:test";
import { decodeBase58, encodeBase58, isBase58Address, isBase58Signature } from "../../src/shared/base58";

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
