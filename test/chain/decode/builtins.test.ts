// Built-in knowledge: error tables, instruction names, the default compute budget, runtime error
// texts and TransactionError shapes.

import { describe, expect, test } from "bun:test";
import {
  anchorFrameworkError,
  BUILTIN_PROGRAMS,
  builtinProgramError,
  decodeSimulation,
  describeTransactionError,
} from "../../../src/chain/decode";
import { builtinInstructionName, parsedTypeName } from "../../../src/chain/decode/builtin-instructions";
import { requestedComputeUnits } from "../../../src/chain/decode/compute-budget";
import { instructionVariantFromDisplay, parseCustomErrorText } from "../../../src/chain/decode/runtime-errors";
import { isBase58Address } from "../../../src/shared/base58";
import { PROGRAMS } from "./fixtures";

const TOKEN_2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";

describe("error tables", () => {
  test("codes are per program", () => {
    expect(builtinProgramError(PROGRAMS.system, 1)?.name).toBe("ResultWithNegativeLamports");
    expect(builtinProgramError(PROGRAMS.token, 1)?.name).toBe("InsufficientFunds");
    expect(builtinProgramError(PROGRAMS.token, 0x11)?.name).toBe("AccountFrozen");
    expect(builtinProgramError(PROGRAMS.token, 20)).toBeUndefined();
    expect(builtinProgramError(TOKEN_2022, 20)?.name).toBe("ExtensionTypeMismatch");
    expect(builtinProgramError(TOKEN_2022, 37)?.name).toBe("NonTransferable");
    expect(builtinProgramError(TOKEN_2022, 68)?.name).toBe("PendingBalanceNonZero");
    expect(builtinProgramError(PROGRAMS.ata, 0)?.name).toBe("InvalidOwner");
    expect(builtinProgramError(PROGRAMS.computeBudget, 0)).toBeUndefined();
    expect(builtinProgramError(PROGRAMS.jupiterV6, 1)).toBeUndefined();
  });

  test("native programs that publish an error enum: Vote and Stake, named without an IDL (and not as Anchor codes)", () => {
    const VOTE = "Vote111111111111111111111111111111111111111";
    const STAKE = "Stake11111111111111111111111111111111111111";
    expect(builtinProgramError(VOTE, 0)).toEqual({
      name: "VoteTooOld",
      message: "vote already recorded or not in slot hashes history",
    });
    expect(builtinProgramError(VOTE, 20)?.name).toBe("AssertionFailed");
    expect(builtinProgramError(VOTE, 21)).toBeUndefined();
    expect(builtinProgramError(STAKE, 2)).toEqual({ name: "AlreadyDeactivated", message: "Stake already deactivated" });
    expect(builtinProgramError(STAKE, 16)?.name).toBe("EpochRewardsActive");
    expect(builtinProgramError(STAKE, 17)).toBeUndefined();
    // From a failure's logs: a Stake instruction that fails with custom code 3.
    const story = decodeSimulation({
      err: { InstructionError: [0, { Custom: 3 }] },
      logs: [`Program ${STAKE} invoke [1]`, `Program ${STAKE} failed: custom program error: 0x3`],
    });
    expect(story).toMatchObject({
      failingProgram: STAKE,
      errCode: 3,
      errName: "TooSoonToRedelegate",
      errMessage: "One re-delegation permitted per epoch",
    });
    // A code beyond the table stays unnamed (never an Anchor framework code for a native program).
    expect(
      decodeSimulation({
        err: { InstructionError: [0, { Custom: 2000 }] },
        logs: [`Program ${VOTE} invoke [1]`, `Program ${VOTE} failed: custom program error: 0x7d0`],
      }).errName,
    ).toBeNull();
  });

  test("Anchor framework codes", () => {
    expect(anchorFrameworkError(101)?.name).toBe("InstructionFallbackNotFound");
    expect(anchorFrameworkError(1500)?.name).toBe("EventInstructionStub");
    expect(anchorFrameworkError(2006)?.name).toBe("ConstraintSeeds");
    expect(anchorFrameworkError(2039)?.name).toBe("ConstraintMintTransferHookExtensionProgramId");
    expect(anchorFrameworkError(2506)?.name).toBe("RequireGteViolated");
    expect(anchorFrameworkError(3012)?.name).toBe("AccountNotInitialized");
    expect(anchorFrameworkError(3017)?.name).toBe("AccountDuplicateReallocs");
    expect(anchorFrameworkError(4102)?.name).toBe("InvalidNumericConversion");
    expect(anchorFrameworkError(5000)?.name).toBe("Deprecated");
    expect(anchorFrameworkError(6000)).toBeUndefined();
  });

  test("a framework code of an Anchor program without IDL is named; a native program's is not", () => {
    const logs = (program: string) => [
      `Program ${program} invoke [1]`,
      `Program ${program} failed: custom program error: 0xbbc`,
    ];
    const anchorish = decodeSimulation({
      err: { InstructionError: [0, { Custom: 3004 }] },
      logs: logs(PROGRAMS.chainlinkOcr2),
    });
    expect([anchorish.errCode, anchorish.errName]).toEqual([3004, "AccountDidNotSerialize"]);
    const native = decodeSimulation({ err: { InstructionError: [0, { Custom: 3004 }] }, logs: logs(PROGRAMS.token) });
    expect([native.errCode, native.errName, native.errMessage]).toEqual([3004, null, "custom program error: 0xbbc"]);
  });
});

describe("instruction names", () => {
  test("from instruction data", () => {
    expect(builtinInstructionName(PROGRAMS.system, Uint8Array.of(2, 0, 0, 0, 1))).toBe("Transfer");
    expect(builtinInstructionName(PROGRAMS.system, Uint8Array.of(0, 0, 0, 0))).toBe("CreateAccount");
    expect(builtinInstructionName(PROGRAMS.token, Uint8Array.of(12))).toBe("TransferChecked");
    expect(builtinInstructionName(PROGRAMS.token, Uint8Array.of(26))).toBeNull();
    expect(builtinInstructionName(TOKEN_2022, Uint8Array.of(26))).toBe("TransferFeeExtension");
    expect(builtinInstructionName(PROGRAMS.ata, new Uint8Array())).toBe("Create");
    expect(builtinInstructionName(PROGRAMS.ata, Uint8Array.of(1))).toBe("CreateIdempotent");
    expect(builtinInstructionName(PROGRAMS.computeBudget, Uint8Array.of(3))).toBe("SetComputeUnitPrice");
  });

  test("from jsonParsed types, spelled like the raw-data names", () => {
    expect(parsedTypeName("transferChecked")).toBe("TransferChecked");
    expect(parsedTypeName("advanceNonce")).toBe("AdvanceNonceAccount");
    expect(parsedTypeName("createIdempotent")).toBe("CreateIdempotent");
  });
});

describe("requested compute units", () => {
  const ix = (programId: string, data: number[] = []) => ({
    programId,
    rawData: Uint8Array.from(data),
    parsedType: null,
    parsedInfo: null,
    stackHeight: null,
  });

  test("SetComputeUnitLimit anywhere wins, capped at 1.4M", () => {
    expect(
      requestedComputeUnits({
        accountKeys: [],
        instructions: [ix(PROGRAMS.jupiterV6), ix(PROGRAMS.computeBudget, [2, 0x40, 0x0d, 0x03, 0x00])],
      }),
    ).toBe(200000);
    expect(
      requestedComputeUnits({
        accountKeys: [],
        instructions: [ix(PROGRAMS.computeBudget, [2, 0xff, 0xff, 0xff, 0xff])],
      }),
    ).toBe(1400000);
  });

  test("default: 200,000 per program, 3,000 per builtin, capped", () => {
    expect(
      requestedComputeUnits({
        accountKeys: [],
        instructions: [
          ix(PROGRAMS.computeBudget, [3, 1, 0, 0, 0, 0, 0, 0, 0]),
          ix(PROGRAMS.system, [2, 0, 0, 0]),
          ix(PROGRAMS.jupiterV6),
        ],
      }),
    ).toBe(206000);
    expect(
      requestedComputeUnits({ accountKeys: [], instructions: Array.from({ length: 8 }, () => ix(PROGRAMS.jupiterV6)) }),
    ).toBe(1400000);
  });

  test("every listed builtin is a valid address", () => {
    for (const id of BUILTIN_PROGRAMS) expect(isBase58Address(id)).toBe(true);
    expect(BUILTIN_PROGRAMS.has(PROGRAMS.token)).toBe(false);
  });
});

describe("runtime error vocabulary", () => {
  test("custom codes and Display texts", () => {
    expect(parseCustomErrorText("custom program error: 0x1771")).toBe(6001);
    expect(parseCustomErrorText("Provided owner is not allowed")).toBeNull();
    expect(instructionVariantFromDisplay("Provided owner is not allowed")).toBe("IllegalOwner");
    expect(instructionVariantFromDisplay("Failed to serialize or deserialize account data: Unknown")).toBe(
      "BorshIoError",
    );
    expect(instructionVariantFromDisplay("Could not create program address with signer seeds")).toBeNull();
  });

  test("TransactionError shapes, bigints included", () => {
    expect(describeTransactionError({ InstructionError: [2, { Custom: 30n }] })).toEqual({
      variant: "InstructionError",
      instruction: { index: 2, variant: "Custom", custom: 30 },
      number: 2,
      text: '{"InstructionError":[2,{"Custom":30}]}',
    });
    expect(describeTransactionError({ InstructionError: [0, { BorshIoError: "Unknown" }] })?.instruction).toEqual({
      index: 0,
      variant: "BorshIoError",
      custom: null,
    });
    expect(describeTransactionError({ DuplicateInstruction: 3 })).toEqual({
      variant: "DuplicateInstruction",
      instruction: null,
      number: 3,
      text: '{"DuplicateInstruction":3}',
    });
    expect(describeTransactionError("BlockhashNotFound")?.text).toBe("BlockhashNotFound");
    expect(describeTransactionError(null)).toBeNull();
  });

  test("ComputationalBudgetExceeded reported as such, without logs", () => {
    const story = decodeSimulation({ err: { InstructionError: [1, "ComputationalBudgetExceeded"] }, logs: null });
    expect([story.computeExceeded, story.errName, story.errorKey, story.ixPath, story.cpiDepth]).toEqual([
      true,
      "ComputationalBudgetExceeded",
      "ComputationalBudgetExceeded",
      "1",
      null,
    ]);
  });
});
