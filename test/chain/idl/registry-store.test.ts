// IdlRegistry look-ups and the on-disk store (`<dataDir>/idl/<programId>.json`).

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IdlRegistry, loadIdls, parseIdl, saveIdl } from "../../../src/chain/idl";
import { TxrayError } from "../../../src/shared/errors";

const FIXTURES = join(import.meta.dir, "../../fixtures/mainnet");
const idlText = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
const JUPITER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const PUMP = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const RAYDIUM_V4 = "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8";

describe("IdlRegistry", () => {
  const registry = new IdlRegistry()
    .set(JUPITER, parseIdl(idlText("04_idl_jupiter_v6_legacy.json")))
    .set(PUMP, parseIdl(idlText("07_idl_pumpfun_legacy.json")))
    .add(parseIdl(idlText("06_idl_raydium_amm_v4_shank.json")));

  test("errors are looked up by (program, code)", () => {
    expect(registry.errorFor(JUPITER, 6001)?.name).toBe("SlippageToleranceExceeded");
    expect(registry.errorFor(PUMP, 6001)?.name).toBe("AlreadyInitialized");
    expect(registry.errorFor(RAYDIUM_V4, 30)?.name).toBe("ExceededSlippage");
    expect(registry.errorFor(JUPITER, 30)).toBeUndefined();
    expect(registry.errorFor("11111111111111111111111111111111", 1)).toBeUndefined();
  });

  test("instructions by discriminator prefix of the data", () => {
    const buyData = Buffer.from("66063d1201daebea00e1f50500000000", "hex");
    expect(registry.instructionFor(PUMP, buyData)?.displayName).toBe("Buy");
    expect(registry.instructionFor(PUMP, buyData.subarray(0, 7))).toBeUndefined();
    expect(registry.instructionFor(RAYDIUM_V4, Uint8Array.of(11, 1, 2))?.displayName).toBe("SwapBaseOut");
    expect(registry.instructionFor(JUPITER, buyData)).toBeUndefined();
  });

  test("program ids are validated; IDLs without an address need one", () => {
    expect(registry.size).toBe(3);
    expect(registry.programIds().sort()).toEqual([PUMP, RAYDIUM_V4, JUPITER].sort());
    expect(() => new IdlRegistry().set("not-an-address", registry.get(PUMP)!)).toThrow(TxrayError);
    expect(() => new IdlRegistry().add(registry.get(PUMP)!)).toThrow("declares no program id");
  });
});

describe("IDL store", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "txray-idl-"));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("save then load round-trips, leaving no temp files", () => {
    const saved = saveIdl(dataDir, PUMP, idlText("07_idl_pumpfun_legacy.json"));
    saveIdl(dataDir, JUPITER, JSON.parse(idlText("04_idl_jupiter_v6_legacy.json")));
    expect(saved.name).toBe("pumpfun");
    expect(readdirSync(join(dataDir, "idl")).sort()).toEqual([`${PUMP}.json`, `${JUPITER}.json`].sort());
    expect(readFileSync(join(dataDir, "idl", `${PUMP}.json`), "utf8")).toBe(idlText("07_idl_pumpfun_legacy.json"));
    const registry = loadIdls(dataDir);
    expect(registry.size).toBe(2);
    expect(registry.errorFor(PUMP, 6002)?.name).toBe("TooMuchSolRequired");
    expect(registry.errorFor(JUPITER, 6001)?.name).toBe("SlippageToleranceExceeded");
    expect(registry.skipped).toEqual([]);
  });

  test("a program id that is not a 32-byte address never becomes a path", () => {
    for (const bad of ["../../etc/passwd", "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV", `${JUPITER}/x`, ""]) {
      expect(() => saveIdl(dataDir, bad, idlText("07_idl_pumpfun_legacy.json"))).toThrow(TxrayError);
    }
    expect(existsSync(join(dataDir, "idl"))).toBe(false);
  });

  test("an invalid IDL is refused before anything is written", () => {
    expect(() => saveIdl(dataDir, PUMP, { name: "x" })).toThrow("idl: instructions");
    expect(existsSync(join(dataDir, "idl", `${PUMP}.json`))).toBe(false);
  });

  test("loading skips bad files and names them; a missing directory is empty", () => {
    expect(loadIdls(join(dataDir, "nowhere")).size).toBe(0);
    mkdirSync(join(dataDir, "idl"));
    writeFileSync(join(dataDir, "idl", `${PUMP}.json`), idlText("07_idl_pumpfun_legacy.json"));
    writeFileSync(join(dataDir, "idl", `${JUPITER}.json`), "{broken");
    writeFileSync(join(dataDir, "idl", "notes.json"), "{}");
    writeFileSync(join(dataDir, "idl", "README.txt"), "ignored");
    const registry = loadIdls(dataDir);
    expect(registry.programIds()).toEqual([PUMP]);
    expect(registry.skipped).toEqual([
      { file: `${JUPITER}.json`, reason: "idl: not valid JSON" },
      { file: "notes.json", reason: "file name is not a program id" },
    ]);
  });
});
