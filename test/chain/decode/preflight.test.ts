// decodeSimulation and decodePreflight over real preflight failures: RPC -32002 bodies and
// simulation logs (fixtures 12–15) and client error texts recorded in public issues and code
// (preflight_texts.json; sources in test/fixtures/mainnet/SOURCES.md).

import { describe, expect, test } from "bun:test";
import {
  type DecodedStory,
  decodePreflight,
  decodeSimulation,
  EMPTY_STORY,
  normalizeErrorText,
  readPreflightError,
} from "../../../src/chain/decode";
import { fixtureJson, fixtureText, mainnetIdls, PROGRAMS } from "./fixtures";

const idls = mainnetIdls();

const NOTHING: DecodedStory = EMPTY_STORY;

interface PreflightCase {
  id: string;
  preflightError: string;
  simulationLogs: string[];
}
const { cases: texts } = fixtureJson("preflight_texts.json") as { cases: PreflightCase[] };

const sample13 = fixtureJson("13_") as {
  error: { message: string; data: { err: unknown; logs: string[]; unitsConsumed: number } };
};

const jupiter6001AtIx3: DecodedStory = {
  topLevelProgram: PROGRAMS.jupiterV6,
  instruction: "SharedAccountsRoute",
  ixPath: "3",
  cpiDepth: 0,
  errCode: 6001,
  errName: "SlippageToleranceExceeded",
  errMessage: "Slippage tolerance exceeded",
  failingProgram: PROGRAMS.jupiterV6,
  failingInstruction: "SharedAccountsRoute",
  // Reported as given; a failed simulation under-counts (Jupiter alone logged `consumed 142350`).
  cuUsed: 21115,
  cuRequested: null,
  errorKey: "custom:6001",
  computeExceeded: false,
  logTruncated: false,
  txError: '{"InstructionError":[3,{"Custom":6001}]}',
};

describe("simulation results (RPC -32002 data)", () => {
  test("13: Jupiter AnchorError 6001 at depth 1 after successful CPIs", () => {
    expect(decodeSimulation(sample13.error.data, idls)).toEqual(jupiter6001AtIx3);
  });

  test("13: the same failure from the raw JSON-RPC error body as preflight text", () => {
    const story = decodePreflight(
      { preflightError: JSON.stringify(sample13), simulationLogs: [], program: PROGRAMS.jupiterV6 },
      idls,
    );
    expect(story).toEqual(jupiter6001AtIx3);
  });

  test("13: only the Display message (no data): index and code from the text", () => {
    const story = decodePreflight(
      { preflightError: sample13.error.message, simulationLogs: [], program: PROGRAMS.jupiterV6 },
      idls,
    );
    expect(story).toEqual({
      ...NOTHING,
      ixPath: "3",
      errCode: 6001,
      // Without logs or message the failing program is unknown, so the code stays unnamed.
      errMessage: "custom program error: 0x1771",
      errorKey: "custom:6001",
      txError: '{"InstructionError":[3,{"Custom":6001}]}',
    });
  });

  test("14: Raydium CLMM 6028 raised at CPI depth 2 (5th CPI of top-level 2), Left/Right ignored", () => {
    const logs = fixtureJson("14_") as string[];
    const expected: DecodedStory = {
      topLevelProgram: PROGRAMS.jupiterV6,
      // The targeted program's instruction (Jupiter's frame encloses the failure); the failing
      // CLMM frame's own instruction is failingInstruction.
      instruction: "SharedAccountsRoute",
      ixPath: "2.4",
      cpiDepth: 1,
      errCode: 6028,
      errName: "InvalidFirstTickArrayAccount",
      errMessage: "Invaild first tick array account",
      failingProgram: PROGRAMS.raydiumClmm,
      failingInstruction: "Swap",
      cuUsed: 225269, // no unitsConsumed given: the top-level frames' `consumed` lines (Jupiter's 225269)
      cuRequested: null,
      errorKey: "custom:6028",
      computeExceeded: false,
      logTruncated: false,
      txError: null,
    };
    expect(decodePreflight({ preflightError: null, simulationLogs: logs, program: PROGRAMS.jupiterV6 }, idls)).toEqual(
      expected,
    );
    // With err as the RPC would report it, only txError is added; without any IDL the name still
    // comes from the AnchorError line.
    const withErr = decodeSimulation({ err: { InstructionError: [2, { Custom: 6028 }] }, logs });
    expect(withErr).toEqual({ ...expected, txError: '{"InstructionError":[2,{"Custom":6028}]}' });
  });

  test("15: Kotlin exception text wrapping the raw body: Raydium AMM v4 0x28 at top level 4", () => {
    const story = decodePreflight(
      { preflightError: fixtureText("15_"), simulationLogs: [], program: PROGRAMS.raydiumAmmV4 },
      idls,
    );
    expect(story).toEqual({
      topLevelProgram: PROGRAMS.raydiumAmmV4,
      instruction: null, // Raydium v4 logs `ray_log`, not a name; no message to decode
      ixPath: "4",
      cpiDepth: 0,
      errCode: 40,
      errName: "InsufficientFunds",
      errMessage: "Insufficient funds",
      failingProgram: PROGRAMS.raydiumAmmV4,
      failingInstruction: null,
      cuUsed: 17527,
      cuRequested: null,
      errorKey: "custom:40",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[4,{"Custom":40}]}',
    });
  });

  test("12: InsufficientFundsForRent from signature statuses: one key whatever the account index", () => {
    const rows = (fixtureJson("12_") as { result: { err: unknown }[] }).result;
    const stories = rows.map((row) => decodeSimulation({ err: row.err, logs: null }));
    expect(stories.map((s) => s.errorKey)).toEqual([
      null,
      "InsufficientFundsForRent",
      "InsufficientFundsForRent",
      "InsufficientFundsForRent",
      "InsufficientFundsForRent",
      "InsufficientFundsForRent",
      null,
      null,
      "InsufficientFundsForRent",
      "InsufficientFundsForRent",
    ]);
    expect(stories[1]).toEqual({
      ...NOTHING,
      errName: "InsufficientFundsForRent",
      errMessage: "Transaction results in an account (1) with insufficient funds for rent",
      errorKey: "InsufficientFundsForRent",
      txError: '{"InsufficientFundsForRent":{"account_index":1}}',
    });
    expect(stories[0]).toEqual(NOTHING);
  });
});

describe("preflight error texts captured by clients", () => {
  const loadFailure = (errName: string, errMessage: string): DecodedStory => ({
    ...NOTHING,
    errName,
    errMessage,
    errorKey: errName,
    txError: errName,
  });

  const expectations: Record<string, DecodedStory> = {
    "oldbot-blockhash-not-found": loadFailure("BlockhashNotFound", "Blockhash not found"),
    "wormhole-connect-quoted-blockhash-not-found": loadFailure("BlockhashNotFound", "Blockhash not found"),
    "portal-bridge-simulation-error-json-blockhash": {
      ...loadFailure("BlockhashNotFound", "Blockhash not found"),
      cuUsed: 0,
    },
    "helius-sdk-web3-already-processed": loadFailure("AlreadyProcessed", "This transaction has already been processed"),
    "helius-sdk-web3-blockhash-not-found": loadFailure("BlockhashNotFound", "Blockhash not found"),
    "solana-py-rust-debug-account-not-found": loadFailure(
      "AccountNotFound",
      "Attempt to debit an account but found no record of a prior credit.",
    ),
    "solxen-go-spew-account-not-found": loadFailure(
      "AccountNotFound",
      "Attempt to debit an account but found no record of a prior credit.",
    ),
    "synthetify-insufficient-funds-for-fee": loadFailure("InsufficientFundsForFee", "Insufficient funds for fee"),
    "boltz-usdt0-insufficient-funds-for-rent": {
      // No instruction failed: the story names the tracked program's instruction from the logs.
      topLevelProgram: PROGRAMS.layerZeroOft,
      instruction: "Send",
      ixPath: null, // a transaction-level error: no instruction raised it
      cpiDepth: null,
      errCode: null,
      errName: "InsufficientFundsForRent",
      errMessage: "Transaction results in an account (0) with insufficient funds for rent",
      failingProgram: null,
      failingInstruction: null,
      cuUsed: null,
      cuRequested: null,
      errorKey: "InsufficientFundsForRent",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InsufficientFundsForRent":{"account_index":0}}',
    },
    "wormhole-connect-max-sol-system-transfer": {
      topLevelProgram: PROGRAMS.system,
      instruction: null, // System logs no name and there is no message to decode
      ixPath: "1",
      cpiDepth: 0,
      errCode: 1,
      errName: "ResultWithNegativeLamports",
      errMessage: "account does not have enough SOL to perform the operation",
      failingProgram: PROGRAMS.system,
      failingInstruction: null,
      cuUsed: null,
      cuRequested: null,
      errorKey: "custom:1",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[1,{"Custom":1}]}',
    },
    "wormhole-connect-ntt-system-cpi": {
      topLevelProgram: PROGRAMS.ntt,
      // The tracked program (Jupiter) has no frame around the failure: the failing top-level
      // instruction's name, logged by the NTT frame.
      instruction: "TransferLock",
      ixPath: "1.0",
      cpiDepth: 1,
      errCode: 1,
      errName: "ResultWithNegativeLamports",
      errMessage: "account does not have enough SOL to perform the operation",
      failingProgram: PROGRAMS.system,
      failingInstruction: null, // System logs no name and there is no message to decode
      cuUsed: 15205, // the top-level frames' `consumed` lines: Token 2903 + NTT 12302
      cuRequested: null,
      errorKey: "custom:1",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[1,{"Custom":1}]}',
    },
    "solxtence-web3-last-10-logs-jupiter-raydium-0x28": {
      // web3.js kept the last 10 log lines: the top-level index comes from the error text (3),
      // the inner path from the visible Jupiter frame.
      topLevelProgram: PROGRAMS.jupiterV6,
      instruction: "Route", // the visible Jupiter frame that encloses the failure logs its name
      ixPath: "3.0",
      cpiDepth: 1,
      errCode: 40,
      errName: "InsufficientFunds",
      errMessage: "Insufficient funds",
      failingProgram: PROGRAMS.raydiumAmmV4,
      failingInstruction: null, // Raydium v4 logs `ray_log`, not a name
      cuUsed: null, // the logs start mid-way: no sum from them
      cuRequested: null,
      errorKey: "custom:40",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[3,{"Custom":40}]}',
    },
  };

  test("every recorded text has an expectation", () => {
    expect(texts.map((c) => c.id).sort()).toEqual(Object.keys(expectations).sort());
  });

  for (const c of texts) {
    test(c.id, () => {
      const program = c.id.startsWith("boltz") ? PROGRAMS.layerZeroOft : PROGRAMS.jupiterV6;
      const story = decodePreflight(
        { preflightError: c.preflightError, simulationLogs: c.simulationLogs, program },
        idls,
      );
      expect(story).toEqual(expectations[c.id]);
    });
  }
});

describe("preflight failures that are not TransactionErrors", () => {
  test("confirmation expiry is named, the signature stays out of the key", () => {
    const story = decodePreflight({
      preflightError:
        "TransactionExpiredBlockheightExceededError: Signature 5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL has expired: block height exceeded.",
      simulationLogs: [],
      program: PROGRAMS.jupiterV6,
    });
    expect(story.errName).toBe("BlockheightExceeded");
    expect(story.errorKey).toBe("rpc:BlockheightExceeded");
    expect(story.txError).toBeNull();
  });

  test("RPC health and rate limits", () => {
    const key = (text: string) =>
      decodePreflight({ preflightError: text, simulationLogs: [], program: PROGRAMS.system }).errorKey;
    expect(key('{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots"},"id":1}')).toBe(
      "rpc:NodeUnhealthy",
    );
    expect(key("429 Too Many Requests")).toBe("rpc:RateLimited");
    expect(key("WalletSignTransactionError: User rejected the request.")).toBe("rpc:WalletRejected");
  });

  test("unknown texts group by a value-free normalised key", () => {
    const a = decodePreflight({
      preflightError:
        "Weird failure 0x1f for 5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL (12 lamports)",
      simulationLogs: [],
      program: PROGRAMS.system,
    });
    const b = decodePreflight({
      preflightError: "Weird failure 0x2a for 3V9bd3EN5aNuhE4RiHGbZ1eZakJ1F9cDb8V4YLjCG8cg (99 lamports)",
      simulationLogs: [],
      program: PROGRAMS.system,
    });
    expect(a.errorKey).toBe("preflight:weird failure <hex> for <addr> (<n> lamports)");
    expect(b.errorKey).toBe(a.errorKey);
    expect(a.errName).toBeNull();
    expect(a.errMessage).toStartWith("Weird failure 0x1f");
  });

  test("no error text and no failing log is not a failure", () => {
    expect(decodePreflight({ preflightError: null, simulationLogs: [], program: PROGRAMS.system })).toEqual(NOTHING);
    expect(decodePreflight({ preflightError: "  ", simulationLogs: [], program: PROGRAMS.system })).toEqual(NOTHING);
  });
});

describe("readPreflightError", () => {
  test("Display texts of transaction-level errors with numbers", () => {
    expect(
      readPreflightError(
        "Transaction simulation failed: Transaction results in an account (3) with insufficient funds for rent",
      ).err,
    ).toEqual({
      InsufficientFundsForRent: { account_index: 3 },
    });
    expect(readPreflightError("Transaction contains a duplicate instruction (2) that is not allowed").err).toEqual({
      DuplicateInstruction: 2,
    });
  });

  test("non-custom instruction errors from Display and from Rust Debug", () => {
    expect(
      readPreflightError("Transaction simulation failed: Error processing Instruction 0: Provided owner is not allowed")
        .err,
    ).toEqual({
      InstructionError: [0, "IllegalOwner"],
    });
    expect(
      readPreflightError(
        "RpcResponseError { data: SendTransactionPreflightFailure(RpcSimulateTransactionResult { err: Some(InstructionError(0, Custom(1))), logs: Some([]) }) }",
      ).err,
    ).toEqual({
      InstructionError: [0, { Custom: 1 }],
    });
  });

  test("normalizeErrorText drops the web3.js guide and values", () => {
    expect(
      normalizeErrorText(
        "Simulation failed. \nMessage: x.\nCatch the `SendTransactionError` and call `getLogs()` on it for full details.",
      ),
    ).toBe("simulation failed.");
  });
});
