// The Anchor IDL account: address derivation and account decoding.

import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { PublicKey } from "@solana/web3.js";
import {
  anchorIdlAddress,
  decodeAnchorIdlAccount,
  fetchOnchainIdl,
  IDL_ACCOUNT_DISCRIMINATOR,
} from "../../../src/chain/idl";
import { decodeBase58 } from "../../../src/shared/base58";
import { TxrayError } from "../../../src/shared/errors";

const PUMP = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const pumpIdlText = readFileSync(join(import.meta.dir, "../../fixtures/mainnet/07_idl_pumpfun_legacy.json"), "utf8");
const AUTHORITY = "3V9bd3EN5aNuhE4RiHGbZ1eZakJ1F9cDb8V4YLjCG8cg";

function idlAccountData(json: string, discriminator: Uint8Array = IDL_ACCOUNT_DISCRIMINATOR): Uint8Array {
  const payload = deflateSync(Buffer.from(json));
  const data = new Uint8Array(44 + payload.length + 16); // accounts are allocated larger than the payload
  data.set(discriminator, 0);
  data.set(decodeBase58(AUTHORITY)!, 8);
  new DataView(data.buffer).setUint32(40, payload.length, true);
  data.set(payload, 44);
  return data;
}

describe("anchorIdlAddress", () => {
  test("a known mainnet IDL account (Loopscale)", () => {
    // Published in a public audit note indexed by the search corpus (an IDL account of 23,594 bytes
    // was read at this address on mainnet).
    expect(anchorIdlAddress("1oopBoJG58DgkUVKkEzKgyG9dvRmpgeEm1AVjoHkF78")).toBe(
      "8jaPDEbzjkgJT8qTgMwCxbVUZt3p2MoMsCovyNyuNShD",
    );
  });

  test("agrees with web3.js findProgramAddress + createWithSeed", async () => {
    for (const program of [
      PUMP,
      "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc",
    ]) {
      const id = new PublicKey(program);
      const [base] = PublicKey.findProgramAddressSync([], id);
      const expected = await PublicKey.createWithSeed(base, "anchor:idl", id);
      expect(anchorIdlAddress(program)).toBe(expected.toBase58());
    }
  });

  test("rejects an invalid program id", () => {
    expect(() => anchorIdlAddress("nope")).toThrow(TxrayError);
  });
});

describe("decodeAnchorIdlAccount", () => {
  test('the discriminator is sha256("internal:IdlAccount")[..8]', () => {
    const digest = createHash("sha256").update("internal:IdlAccount").digest();
    expect(Array.from(IDL_ACCOUNT_DISCRIMINATOR)).toEqual(Array.from(digest.subarray(0, 8)));
  });

  test("authority and inflated JSON (trailing allocation ignored)", () => {
    const account = decodeAnchorIdlAccount(idlAccountData(pumpIdlText));
    expect(account.authority).toBe(AUTHORITY);
    expect(account.json).toEqual(JSON.parse(pumpIdlText));
  });

  test("refuses other accounts and damaged data", () => {
    const wrongDiscriminator = createHash("sha256").update("account:IdlAccount").digest().subarray(0, 8);
    expect(() => decodeAnchorIdlAccount(idlAccountData(pumpIdlText, wrongDiscriminator))).toThrow("discriminator");
    expect(() => decodeAnchorIdlAccount(new Uint8Array(10))).toThrow("too short");
    const data = idlAccountData(pumpIdlText);
    new DataView(data.buffer).setUint32(40, data.length, true);
    expect(() => decodeAnchorIdlAccount(data)).toThrow("length exceeds data");
    const garbage = idlAccountData(pumpIdlText);
    garbage.fill(7, 44, 60);
    expect(() => decodeAnchorIdlAccount(garbage)).toThrow(TxrayError);
  });
});

describe("fetchOnchainIdl", () => {
  test("reads the IDL account at the derived address", async () => {
    const asked: string[] = [];
    const idl = await fetchOnchainIdl(async (address) => {
      asked.push(address);
      return Buffer.from(idlAccountData(pumpIdlText)).toString("base64");
    }, PUMP);
    expect(asked).toEqual([anchorIdlAddress(PUMP)]);
    expect(idl?.address).toBe(anchorIdlAddress(PUMP));
    expect(idl?.authority).toBe(AUTHORITY);
    expect(idl?.idl.name).toBe("pumpfun");
    expect(idl?.idl.instructions.map((ix) => ix.displayName)).toContain("Buy");
  });

  test("null when the program publishes no IDL", async () => {
    expect(await fetchOnchainIdl(async () => null, PUMP)).toBeNull();
  });
});
