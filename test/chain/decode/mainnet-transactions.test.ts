// decodeTransaction over real mainnet getTransaction results (test/fixtures/mainnet, see SOURCES.md).
// Each expected story was written from reading the fixture's logs, message and meta; every field is
// asserted. cuRequested is checked against the logs where possible: the first BPF frame's
// `consumed X of Y` plus what earlier builtin instructions used (150 each) equals the limit.

import { describe, expect, test } from "bun:test";
import { type DecodedStory, DecodedStorySchema, decodeTransaction } from "../../../src/chain/decode";
import { fixtureJson, mainnetIdls, PROGRAMS } from "./fixtures";

const idls = mainnetIdls();

function resultOf(prefix: string): unknown {
  const json = fixtureJson(prefix);
  return Array.isArray(json) ? json[0] : json;
}

const cases: { fixture: string; what: string; input?: () => unknown; expected: DecodedStory }[] = [
  {
    fixture: "01_",
    what: "success, jsonParsed, durable nonce + USDC TransferChecked; main = the frame that consumed CUs",
    expected: {
      topLevelProgram: PROGRAMS.token,
      instruction: "TransferChecked", // jsonParsed `parsed.type` (this Token frame logs no name)
      ixPath: "1",
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 555,
      cuRequested: 2558, // SetComputeUnitLimit; logs: `consumed 105 of 2408` after AdvanceNonce (150)
      errorKey: null,
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    },
  },
  {
    fixture: "08_",
    what: "success, bare meta (no message), CPI depth 3: story from logs only",
    expected: {
      topLevelProgram: PROGRAMS.smak,
      instruction: null, // its invoke line is followed by a CPI, not a log line
      ixPath: "1",
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 64618,
      cuRequested: null,
      errorKey: null,
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    },
  },
  {
    fixture: "09_",
    what: "success, base64 v0 transaction, Jupiter Route",
    expected: {
      topLevelProgram: PROGRAMS.jupiterV6,
      instruction: "Route",
      ixPath: "5",
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 111048,
      cuRequested: 137822, // ATA `consumed 19315 of 137522` after two ComputeBudget ixs
      errorKey: null,
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    },
  },
  {
    fixture: "11_",
    what: "failed, base64, Raydium AMM v4 (Shank IDL) custom 30 at top level",
    expected: {
      topLevelProgram: PROGRAMS.raydiumAmmV4,
      instruction: "SwapBaseIn", // Shank discriminant 9
      ixPath: "2",
      cpiDepth: 0,
      errCode: 30,
      errName: "ExceededSlippage",
      errMessage: "instruction exceeds desired slippage limit",
      failingProgram: PROGRAMS.raydiumAmmV4,
      failingInstruction: "SwapBaseIn",
      cuUsed: 17108,
      cuRequested: 38500, // `consumed 16808 of 38200` after two ComputeBudget ixs
      errorKey: "custom:30",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[2,{"Custom":30}]}',
    },
  },
  {
    fixture: "16_",
    what: "failed 2022 tx (no computeUnitsConsumed): Zo DEX fails at CPI depth 2, Zo re-reports it",
    expected: {
      topLevelProgram: PROGRAMS.zo,
      instruction: "CancelPerpOrder", // the targeted 01 (Zo) frame's `Program log: Instruction: CancelPerpOrder`
      ixPath: "0.0",
      cpiDepth: 1,
      errCode: 41,
      errName: null,
      errMessage: "custom program error: 0x29",
      failingProgram: PROGRAMS.zoDex,
      failingInstruction: null, // the Zo DEX frame logs no name and no IDL is known
      cuUsed: 41649, // no computeUnitsConsumed: the top-level frame's `consumed 41649 of 200000`
      cuRequested: 200000, // `consumed 41649 of 200000`
      errorKey: "custom:41",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[0,{"Custom":41}]}',
    },
  },
  {
    fixture: "17_",
    what: "success, v0, OKX router → pump AMM → fee program at depth 3",
    expected: {
      topLevelProgram: PROGRAMS.okxRouter,
      instruction: "SwapV3",
      ixPath: "7",
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 220908,
      cuRequested: 332000, // `consumed 3443 of 331550` after CB, CB, System
      errorKey: null,
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    },
  },
  {
    fixture: "18_",
    what: "failed, v0 + 2 address tables: top-level System transfer, insufficient lamports (0x1)",
    expected: {
      topLevelProgram: PROGRAMS.system,
      instruction: "Transfer", // System tag 2 from the raw data
      ixPath: "6",
      cpiDepth: 0,
      errCode: 1,
      errName: "ResultWithNegativeLamports",
      errMessage: "account does not have enough SOL to perform the operation",
      failingProgram: PROGRAMS.system,
      failingInstruction: "Transfer",
      cuUsed: 30602,
      cuRequested: 1400000, // first frame: `consumed 4537 of 1400000`
      errorKey: "custom:1",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[6,{"Custom":1}]}',
    },
  },
  {
    fixture: "19_",
    what: "failed, Jupiter 6001 without an AnchorError line: named from the IDL",
    expected: {
      topLevelProgram: PROGRAMS.jupiterV6,
      instruction: "Route",
      ixPath: "2",
      cpiDepth: 0,
      errCode: 6001,
      errName: "SlippageToleranceExceeded",
      errMessage: "Slippage tolerance exceeded",
      failingProgram: PROGRAMS.jupiterV6,
      failingInstruction: "Route",
      cuUsed: 104305,
      cuRequested: 146000, // `consumed 104005 of 145700` after two ComputeBudget ixs
      errorKey: "custom:6001",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[2,{"Custom":6001}]}',
    },
  },
  {
    fixture: "20_",
    what: "failed, getBlock entry (jsonParsed): syscall error → ProgramFailedToComplete, not compute",
    input: () => (fixtureJson("20_") as { transactions: unknown[] }).transactions[0],
    expected: {
      topLevelProgram: PROGRAMS.gqch,
      instruction: null,
      ixPath: "3",
      cpiDepth: 0,
      errCode: null,
      errName: "ProgramFailedToComplete",
      errMessage: "Could not create program address with signer seeds: Provided seeds do not result in a valid address",
      failingProgram: PROGRAMS.gqch,
      failingInstruction: null,
      cuUsed: 52577,
      // Current default rule: System 3,000 + 4 × 200,000. In Jan 2024 the runtime granted
      // 5 × 200,000 (logs: `consumed 3443 of 999850` after a 150-CU System ix); see compute-budget.ts.
      cuRequested: 803000,
      errorKey: "InstructionError:ProgramFailedToComplete",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[3,"ProgramFailedToComplete"]}',
    },
  },
  {
    fixture: "21_",
    what: "success, Jupiter SharedAccountsRoute through Sanctum to the Stake program at depth 4",
    expected: {
      topLevelProgram: PROGRAMS.jupiterV6,
      instruction: "SharedAccountsRoute",
      ixPath: "2",
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 588927,
      cuRequested: 735995, // `consumed 588627 of 735695` after two ComputeBudget ixs
      errorKey: null,
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    },
  },
  {
    fixture: "22_",
    what: "failed, base64 legacy: ATA Create → SPL Token GetAccountDataSize fails at depth 2",
    expected: {
      topLevelProgram: PROGRAMS.ata,
      instruction: "Create", // the targeted ATA frame logs `Program log: Create`
      ixPath: "0.0",
      cpiDepth: 1,
      errCode: null,
      errName: "IncorrectProgramId",
      errMessage: "incorrect program id for instruction",
      failingProgram: PROGRAMS.token,
      failingInstruction: "GetAccountDataSize", // `Program log: Instruction: GetAccountDataSize` of the failing Token frame
      cuUsed: 6330,
      cuRequested: 200000,
      errorKey: "InstructionError:IncorrectProgramId",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[0,"IncorrectProgramId"]}',
    },
  },
  {
    fixture: "23_",
    what: "failed, Chainlink OCR2 `AnchorError thrown in` 6003 without IDL, no `Instruction:` log",
    expected: {
      topLevelProgram: PROGRAMS.chainlinkOcr2,
      instruction: null,
      ixPath: "1",
      cpiDepth: 0,
      errCode: 6003,
      errName: "StaleReport",
      errMessage: "Stale report",
      failingProgram: PROGRAMS.chainlinkOcr2,
      failingInstruction: null,
      cuUsed: 6654,
      cuRequested: 200000, // `consumed 6504 of 199850` after one ComputeBudget ix
      errorKey: "custom:6003",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[1,{"Custom":6003}]}',
    },
  },
  {
    fixture: "24_",
    what: "failed, compute exhaustion in Jupiter's event self-CPI (6th CPI of top-level 6) reported as ProgramFailedToComplete",
    expected: {
      topLevelProgram: PROGRAMS.jupiterJups,
      instruction: null, // the top-level JUPS frame logs no name and no IDL is known
      ixPath: "6.5",
      cpiDepth: 1,
      errCode: null,
      errName: "ComputationalBudgetExceeded",
      errMessage: "exceeded CUs meter at BPF instruction",
      failingProgram: PROGRAMS.jupiterJups,
      failingInstruction: "AnchorEventCpi", // inner data starts with Anchor's EVENT_IX_TAG
      cuUsed: 227081,
      cuRequested: 227081, // the limit was set to exactly the simulated consumption
      errorKey: "ComputationalBudgetExceeded",
      computeExceeded: true,
      logTruncated: false,
      txError: '{"InstructionError":[6,"ProgramFailedToComplete"]}',
    },
  },
  {
    fixture: "25_",
    what: "failed after execution: InsufficientFundsForRent although every System transfer logged success",
    expected: {
      topLevelProgram: PROGRAMS.system,
      instruction: "Transfer",
      ixPath: null, // a transaction-level error: no instruction raised it
      cpiDepth: null,
      errCode: null,
      errName: "InsufficientFundsForRent",
      errMessage: "Transaction results in an account (2) with insufficient funds for rent",
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 3000,
      cuRequested: 60000, // 20 builtin instructions × 3,000
      errorKey: "InsufficientFundsForRent",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InsufficientFundsForRent":{"account_index":2}}',
    },
  },
  {
    fixture: "26_",
    what: "failed, jsonParsed, pump.fun Buy TooMuchSolRequired with Left/Right lines",
    expected: {
      topLevelProgram: PROGRAMS.pumpfun,
      instruction: "Buy",
      ixPath: "4",
      cpiDepth: 0,
      errCode: 6002,
      errName: "TooMuchSolRequired",
      errMessage: "slippage: Too much SOL required to buy the given amount of tokens.",
      failingProgram: PROGRAMS.pumpfun,
      failingInstruction: "Buy",
      cuUsed: 49700,
      cuRequested: 1400000, // ATA `consumed 21803 of 1399550` after CB, CB, System
      errorKey: "custom:6002",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[4,{"Custom":6002}]}',
    },
  },
  {
    fixture: "27_",
    what: "failed, jsonParsed: System transfer at CPI depth 2 inside pump.fun Buy (second CPI)",
    expected: {
      topLevelProgram: PROGRAMS.pumpfun,
      instruction: "Buy", // the targeted pump.fun frame (the failing System CPI is failingInstruction)
      ixPath: "4.1",
      cpiDepth: 1,
      errCode: 1,
      errName: "ResultWithNegativeLamports",
      errMessage: "account does not have enough SOL to perform the operation",
      failingProgram: PROGRAMS.system,
      failingInstruction: "Transfer", // jsonParsed inner instruction `parsed.type`
      cuUsed: 57646,
      cuRequested: 1400000,
      errorKey: "custom:1",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[4,{"Custom":1}]}',
    },
  },
  {
    fixture: "28_",
    what: "failed, ATA Create with `failed: Provided owner is not allowed` (IllegalOwner)",
    expected: {
      topLevelProgram: PROGRAMS.ata,
      instruction: "Create",
      ixPath: "3",
      cpiDepth: 0,
      errCode: null,
      errName: "IllegalOwner",
      errMessage: "Provided owner is not allowed",
      failingProgram: PROGRAMS.ata,
      failingInstruction: "Create",
      cuUsed: 5378,
      cuRequested: 1400000,
      errorKey: "InstructionError:IllegalOwner",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[3,"IllegalOwner"]}',
    },
  },
  {
    fixture: "29_",
    what: "failed, pump.fun Sell NotEnoughTokensToSell (6023) with Left/Right",
    expected: {
      topLevelProgram: PROGRAMS.pumpfun,
      instruction: "Sell",
      ixPath: "3",
      cpiDepth: 0,
      errCode: 6023,
      errName: "NotEnoughTokensToSell",
      errMessage: "Not enough tokens to sell",
      failingProgram: PROGRAMS.pumpfun,
      failingInstruction: "Sell",
      cuUsed: 29229,
      cuRequested: 1400000,
      errorKey: "custom:6023",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[3,{"Custom":6023}]}',
    },
  },
  {
    fixture: "30_",
    what: "success with `Log truncated` after the 5th ATA Create",
    expected: {
      topLevelProgram: PROGRAMS.ata,
      instruction: "Create",
      ixPath: "4", // the visible top-level frame that consumed the most (22089)
      cpiDepth: 0,
      errCode: null,
      errName: null,
      errMessage: null,
      failingProgram: null,
      failingInstruction: null,
      cuUsed: 218680,
      cuRequested: 272975, // `consumed 20589 of 272675` after two ComputeBudget ixs
      errorKey: null,
      computeExceeded: false,
      logTruncated: true,
      txError: null,
    },
  },
];

describe("decodeTransaction over real mainnet transactions", () => {
  for (const c of cases) {
    test(`${c.fixture} ${c.what}`, () => {
      const story = decodeTransaction(c.input ? c.input() : resultOf(c.fixture), idls);
      expect(story).toEqual(c.expected);
      expect(DecodedStorySchema.parse(story)).toEqual(story);
    });
  }
});

describe("focus program", () => {
  test("the tracked program's first instruction is the main one of a success", () => {
    const story = decodeTransaction(resultOf("09_"), idls, { program: PROGRAMS.token });
    expect(story.topLevelProgram).toBe(PROGRAMS.token);
    expect(story.ixPath).toBe("4");
    expect(story.instruction).toBe("SyncNative");
  });
  test("a focus program does not move the story of a failure", () => {
    const story = decodeTransaction(resultOf("27_"), idls, { program: PROGRAMS.ata });
    expect(story.ixPath).toBe("4.1");
    expect(story.failingProgram).toBe(PROGRAMS.system);
  });
});
