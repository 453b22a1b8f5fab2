// The why story's `instruction` names the targeted program's instruction (among the frames that
// enclose the failure), `failingInstruction` the innermost failing frame's; errCode/errName stay the
// failing frame's. Real recorded mainnet transactions (test/fixtures/mainnet, SOURCES.md).

import { describe, expect, test } from "bun:test";
import { decodePreflight, decodeSimulation, decodeTransaction, storyFingerprint } from "../../../src/chain/decode";
import { fixtureJson, mainnetIdls, PROGRAMS } from "./fixtures";

const idls = mainnetIdls();
const resultOf = (prefix: string) => {
  const json = fixtureJson(prefix) as { result?: unknown };
  return json.result ?? json;
};
const LIFI = "3i5JeuZuUxeKtVysUnwQNGerJP2bSMX9fTFfS4Nxe3Br";

describe("instruction of the targeted program", () => {
  test("#14 Jupiter → Raydium CLMM preflight failure: Jupiter's route, CLMM's Swap failed", () => {
    const logs = fixtureJson("14_") as string[];
    const story = decodePreflight({ preflightError: null, simulationLogs: logs, program: PROGRAMS.jupiterV6 }, idls);
    expect(story).toMatchObject({
      instruction: "SharedAccountsRoute",
      failingProgram: PROGRAMS.raydiumClmm,
      failingInstruction: "Swap",
      errCode: 6028,
      errName: "InvalidFirstTickArrayAccount", // CLMM's error table, not Jupiter's
      ixPath: "2.4",
      cpiDepth: 1,
    });
    // An integrator tracking the CLMM itself reads its own instruction.
    const forClmm = decodePreflight(
      { preflightError: null, simulationLogs: logs, program: PROGRAMS.raydiumClmm },
      idls,
    );
    expect([forClmm.instruction, forClmm.failingInstruction]).toEqual(["Swap", "Swap"]);
    // Issues group by the targeted instruction: the same CLMM failure under another Jupiter route
    // name is another issue for Jupiter.
    expect(storyFingerprint(PROGRAMS.jupiterV6, "preflight", story)).not.toBe(
      storyFingerprint(PROGRAMS.jupiterV6, "preflight", { ...story, instruction: "Route" }),
    );
  });

  test("#16 01 (Zo) CancelPerpOrder whose Serum DEX CPI fails with custom 41", () => {
    const story = decodeTransaction(resultOf("16_"), idls, { program: PROGRAMS.zo });
    expect(story).toMatchObject({
      instruction: "CancelPerpOrder",
      failingProgram: PROGRAMS.zoDex,
      failingInstruction: null,
      errCode: 41,
      errName: null, // no table for the DEX program
      ixPath: "0.0",
      cpiDepth: 1,
      cuUsed: 41649, // a 2022 transaction without computeUnitsConsumed
    });
  });

  test("#22 ATA Create → SPL Token GetAccountDataSize fails", () => {
    const story = decodeTransaction(resultOf("22_"), idls, { program: PROGRAMS.ata });
    expect(story).toMatchObject({
      instruction: "Create",
      failingProgram: PROGRAMS.token,
      failingInstruction: "GetAccountDataSize",
      errName: "IncorrectProgramId",
      errCode: null,
    });
  });

  test("#18 a failing top-level System transfer in a transaction that targets another program", () => {
    const story = decodeTransaction(resultOf("18_"), idls, { program: LIFI });
    expect(story).toMatchObject({
      instruction: "Transfer",
      failingProgram: PROGRAMS.system,
      failingInstruction: "Transfer",
      ixPath: "6",
      errCode: 1,
    });
  });
});

describe("transaction-level errors", () => {
  test("#25 InsufficientFundsForRent: no ixPath, cpiDepth or errCode; errName is the error's name", () => {
    const story = decodeTransaction(resultOf("25_"), idls);
    expect(story).toMatchObject({
      ixPath: null,
      cpiDepth: null,
      errCode: null,
      errName: "InsufficientFundsForRent",
      failingProgram: null,
      failingInstruction: null,
    });
  });

  test("#12 InsufficientFundsForRent as getSignaturesForAddress reports it (err only)", () => {
    const entries = (fixtureJson("12_") as { result: { err: unknown }[] }).result;
    const failed = entries.find((entry) => entry.err !== null)!;
    const story = decodeSimulation({ err: failed.err, logs: null });
    expect(story).toMatchObject({
      ixPath: null,
      cpiDepth: null,
      errCode: null,
      errName: "InsufficientFundsForRent",
      errorKey: "InsufficientFundsForRent",
    });
  });
});
