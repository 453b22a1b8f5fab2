// Loads the recorded mainnet fixtures (test/fixtures/mainnet, provenance in its SOURCES.md) and the
// IDL registry the decoder tests share.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { IdlRegistry, parseIdl } from "../../../src/chain/idl";

export const FIXTURE_DIR = join(import.meta.dir, "../../fixtures/mainnet");

const files = readdirSync(FIXTURE_DIR);

/** Path of the fixture whose name starts with `prefix` (e.g. "11_"). */
export function fixturePath(prefix: string): string {
  const name = files.find((f) => f.startsWith(prefix));
  if (!name) throw new Error(`no fixture ${prefix}`);
  return join(FIXTURE_DIR, name);
}

export function fixtureText(prefix: string): string {
  return readFileSync(fixturePath(prefix), "utf8");
}

export function fixtureJson(prefix: string): unknown {
  return JSON.parse(fixtureText(prefix));
}

export const PROGRAMS = {
  jupiterV6: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  jupiterJups: "JUPSjgjMFjU4453KMgxhqVmzep6W352bQpE4RsNqXAx",
  whirlpool: "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc",
  raydiumAmmV4: "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8",
  raydiumClmm: "CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK",
  pumpfun: "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P",
  system: "11111111111111111111111111111111",
  token: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  ata: "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
  computeBudget: "ComputeBudget111111111111111111111111111111",
  zo: "Zo1ggzTUKMY5bYnDvT5mtVeZxzf2FaLTbKkmvGUhUQk",
  zoDex: "ZDx8a8jBqGmJyxi1whFxxCo5vG6Q9t4hTzW2GSixMKK",
  chainlinkOcr2: "cjg3oHmg9uuPsP8D6g29NWvhySJkdYdAo9D25PRbKXJ",
  okxRouter: "6m2CDdhRgxpH4WjvdzxAYbGxwdGUz5MziiL5jek2kBma",
  smak: "smakEnVFKFy2fZG25bESNBgWuR6ZRnW1697qFZk4RTF",
  gqch: "GqCHpDuPPsyyMxtaQgYxyLLLWv1kZFyy2DD5z1cMNouR",
  ntt: "NTtAaoDJhkeHeaVUHnyhwbPNAN6WgBpHkHBTc6d7vLK",
  layerZeroOft: "Fuww9mfc8ntAwxPUzFia7VJFAdvLppyZwhPJoXySZXf7",
} as const;

/**
 * IDLs of the programs in the fixtures. Jupiter, Whirlpool and pump.fun IDLs declare no address;
 * the Raydium CLMM IDL (02) is the devnet deployment's, registered here under the mainnet id.
 */
export function mainnetIdls(): IdlRegistry {
  const registry = new IdlRegistry();
  registry.set(PROGRAMS.jupiterV6, parseIdl(fixtureText("04_")));
  registry.set(PROGRAMS.whirlpool, parseIdl(fixtureText("05_")));
  registry.add(parseIdl(fixtureText("06_")));
  registry.set(PROGRAMS.pumpfun, parseIdl(fixtureText("07_")));
  registry.set(PROGRAMS.raydiumClmm, parseIdl(fixtureText("02_")));
  return registry;
}
