// parseIdl over the real IDLs in test/fixtures/mainnet (02–07) and heck-compatible case conversion.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { anchorInstructionDiscriminator, parseIdl, toSnakeCase, toUpperCamelCase } from "../../../src/chain/idl";
import { TxrayError } from "../../../src/shared/errors";

const FIXTURES = join(import.meta.dir, "../../fixtures/mainnet");
const idlText = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

const CLMM_LEGACY = "02_idl_raydium_clmm_amm_v3_anchor-0.29_legacy.json";
const CLMM_SPEC = "03_idl_raydium_clmm_amm_v3_anchor-0.30.1_spec0.1.0.json";

describe("case conversion (heck rules)", () => {
  test("snake_case", () => {
    expect(toSnakeCase("routeWithTokenLedger")).toBe("route_with_token_ledger");
    expect(toSnakeCase("aldrinV2Swap")).toBe("aldrin_v2_swap");
    expect(toSnakeCase("raydiumClmmSwapV2")).toBe("raydium_clmm_swap_v2");
    expect(toSnakeCase("initialize2")).toBe("initialize2");
    expect(toSnakeCase("HTTPServer")).toBe("http_server");
    expect(toSnakeCase("a2B")).toBe("a2_b");
    expect(toSnakeCase("already_snake")).toBe("already_snake");
  });
  test("UpperCamelCase as Anchor logs it", () => {
    expect(toUpperCamelCase("shared_accounts_route")).toBe("SharedAccountsRoute");
    expect(toUpperCamelCase("swap_v2")).toBe("SwapV2");
    expect(toUpperCamelCase("swapBaseIn")).toBe("SwapBaseIn");
    expect(toUpperCamelCase("initialize2")).toBe("Initialize2");
  });
});

describe("parseIdl", () => {
  test("legacy (computed) and spec (declared) discriminators of the same program agree", () => {
    const legacy = parseIdl(JSON.parse(idlText(CLMM_LEGACY)));
    const spec = parseIdl(idlText(CLMM_SPEC));
    expect(legacy.format).toBe("anchor-legacy");
    expect(spec.format).toBe("anchor");
    expect(legacy.instructions.length).toBe(23);
    expect(legacy.instructions.map((ix) => ix.displayName)).toEqual(spec.instructions.map((ix) => ix.displayName));
    expect(legacy.instructions.map((ix) => hex(ix.discriminator))).toEqual(
      spec.instructions.map((ix) => hex(ix.discriminator)),
    );
    expect(Array.from(spec.instructions[0].discriminator)).toEqual([137, 52, 237, 212, 215, 117, 108, 104]);
    expect(spec.instructions[0]).toMatchObject({ name: "create_amm_config", displayName: "CreateAmmConfig" });
    expect(legacy.programId).toBe("devi51mZmdwUJGU9hjN27vEz64Gps7uUefqxg27EAtH");
    expect(spec.programId).toBe("devi51mZmdwUJGU9hjN27vEz64Gps7uUefqxg27EAtH");
    expect(legacy.errors).toEqual(spec.errors);
    expect(spec.errors.find((e) => e.code === 6028)).toEqual({
      code: 6028,
      name: "InvalidFirstTickArrayAccount",
      msg: "Invaild first tick array account",
    });
  });

  test("Jupiter v6 legacy: known discriminators, no program id", () => {
    const jup = parseIdl(idlText("04_idl_jupiter_v6_legacy.json"));
    expect(jup.programId).toBeNull();
    expect(jup.name).toBe("jupiter_swap");
    const byName = new Map(jup.instructions.map((ix) => [ix.name, ix]));
    expect(hex(byName.get("route")!.discriminator)).toBe("e517cb977ae3ad2a");
    expect(Array.from(byName.get("sharedAccountsRoute")!.discriminator)).toEqual([193, 32, 155, 51, 65, 214, 156, 129]);
    expect(byName.get("raydiumClmmSwapV2")!.displayName).toBe("RaydiumClmmSwapV2");
    expect(jup.errors.find((e) => e.code === 6001)?.name).toBe("SlippageToleranceExceeded");
  });

  test("pump.fun legacy", () => {
    const pump = parseIdl(idlText("07_idl_pumpfun_legacy.json"));
    expect(pump.instructions.map((ix) => [ix.displayName, hex(ix.discriminator)])).toEqual([
      ["Initialize", "afaf6d1f0d989bed"],
      ["SetParams", "1beab2349302bb8d"],
      ["Create", "181ec828051c0777"],
      ["Buy", "66063d1201daebea"],
      ["Sell", "33e685a4017f83ad"],
      ["Withdraw", "b712469c946da122"],
    ]);
    expect(pump.errors.length).toBe(9);
  });

  test("Whirlpool legacy: 46 instructions, 56 errors", () => {
    const whirlpool = parseIdl(idlText("05_idl_orca_whirlpool_legacy.json"));
    expect(whirlpool.instructions.length).toBe(46);
    expect(whirlpool.errors.length).toBe(56);
    expect(hex(whirlpool.instructions.find((ix) => ix.name === "swap")!.discriminator)).toBe(
      hex(anchorInstructionDiscriminator("swap")),
    );
  });

  test("Shank (Raydium AMM v4): one-byte discriminants, codes from 0", () => {
    const amm = parseIdl(idlText("06_idl_raydium_amm_v4_shank.json"));
    expect(amm.format).toBe("shank");
    expect(amm.programId).toBe("675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8");
    const swapBaseIn = amm.instructions.find((ix) => ix.name === "swapBaseIn")!;
    expect(Array.from(swapBaseIn.discriminator)).toEqual([9]);
    expect(swapBaseIn.displayName).toBe("SwapBaseIn");
    expect(amm.errors.find((e) => e.code === 30)?.name).toBe("ExceededSlippage");
    expect(amm.errors.find((e) => e.code === 40)?.name).toBe("InsufficientFunds");
  });

  test("Shank without discriminant: the instruction's position is its tag", () => {
    const idl = parseIdl({
      name: "native",
      metadata: { origin: "shank" },
      instructions: [
        { name: "first" },
        { name: "second", discriminant: { type: "u16", value: 258 } },
        { name: "third" },
      ],
    });
    expect(idl.instructions.map((ix) => Array.from(ix.discriminator))).toEqual([[0], [2, 1], [2]]);
  });

  test("explicit discriminators win in legacy IDLs (Anchor 0.31 custom discriminators)", () => {
    const idl = parseIdl({
      name: "x",
      instructions: [{ name: "doIt", discriminator: [7] }],
      errors: [{ code: 6000, name: "E" }],
    });
    expect(Array.from(idl.instructions[0].discriminator)).toEqual([7]);
    expect(idl.errors).toEqual([{ code: 6000, name: "E", msg: null }]);
  });

  test("rejects what is not an IDL, naming the problem", () => {
    expect(() => parseIdl("{not json")).toThrow(TxrayError);
    expect(() => parseIdl({ name: "x" })).toThrow("idl: instructions");
    expect(() => parseIdl({ instructions: [{ name: "a" }], errors: [{ code: "6000", name: "E" }] })).toThrow(
      "idl: errors.0.code",
    );
    expect(() => parseIdl({ metadata: { spec: "0.1.0" }, instructions: [{ name: "a" }] })).toThrow(
      "missing discriminator",
    );
    expect(() => parseIdl({ kind: "rootNode", program: {} })).toThrow("Codama");
  });
});
