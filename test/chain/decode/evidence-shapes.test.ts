// The same real transaction in the shapes the resolver meets (JSON-RPC envelope, bare result,
// `{ meta, transaction }`, bare meta) and with degraded evidence (logs missing or truncated before
// the failure), derived from the mainnet fixtures by removing parts, never by inventing values.

import { describe, expect, test } from "bun:test";
import { decodeSimulation, decodeTransaction } from "../../../src/chain/decode";
import { TxrayError } from "../../../src/shared/errors";
import { fixtureJson, mainnetIdls, PROGRAMS } from "./fixtures";

const idls = mainnetIdls();

interface RpcResult {
  meta: { logMessages: string[] | null; [k: string]: unknown };
  transaction: unknown;
  [k: string]: unknown;
}
const clone = <T>(value: T): T => structuredClone(value);
const envelope18 = fixtureJson("18_") as { result: RpcResult };

describe("input shapes", () => {
  test("envelope, result and {meta, transaction} give one story", () => {
    const fromEnvelope = decodeTransaction(envelope18, idls);
    const fromResult = decodeTransaction(envelope18.result, idls);
    const fromPair = decodeTransaction(
      { meta: envelope18.result.meta, transaction: envelope18.result.transaction },
      idls,
    );
    const fromMessage = decodeTransaction(
      { meta: envelope18.result.meta, message: (envelope18.result.transaction as { message: unknown }).message },
      idls,
    );
    expect(fromResult).toEqual(fromEnvelope);
    expect(fromPair).toEqual(fromEnvelope);
    expect(fromMessage).toEqual(fromEnvelope);
    expect(fromEnvelope.ixPath).toBe("6");
  });

  test("bare meta: names and path from the logs, no CU request", () => {
    const meta = (fixtureJson("19_") as { result: RpcResult }).result.meta;
    expect(decodeTransaction(meta, idls)).toEqual({
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
      cuRequested: null,
      errorKey: "custom:6001",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[2,{"Custom":6001}]}',
    });
  });

  test("rejects what is not a transaction", () => {
    expect(() => decodeTransaction(null)).toThrow(TxrayError);
    expect(() => decodeTransaction({ jsonrpc: "2.0", error: { code: -32602, message: "x" }, id: 1 })).toThrow(
      TxrayError,
    );
    expect(() => decodeTransaction({ slot: 1 })).toThrow("no meta");
  });
});

describe("degraded evidence", () => {
  test("logMessages null: the failing top-level instruction from meta.err, its name from the IDL", () => {
    const result = clone(fixtureJson("26_") as RpcResult);
    result.meta.logMessages = null;
    expect(decodeTransaction(result, idls)).toEqual({
      topLevelProgram: PROGRAMS.pumpfun,
      instruction: "Buy", // discriminator 66063d1201daebea of the message instruction
      ixPath: "4",
      cpiDepth: null,
      errCode: 6002,
      errName: "TooMuchSolRequired",
      errMessage: "slippage: Too much SOL required to buy the given amount of tokens.",
      failingProgram: PROGRAMS.pumpfun,
      failingInstruction: "Buy",
      cuUsed: 49700,
      cuRequested: 1400000,
      errorKey: "custom:6002",
      computeExceeded: false,
      logTruncated: false,
      txError: '{"InstructionError":[4,{"Custom":6002}]}',
    });
  });

  test("logs truncated before the failing CPI: attributed to the top-level instruction", () => {
    const result = clone(fixtureJson("27_") as RpcResult);
    const logs = result.meta.logMessages as string[];
    const buy = logs.indexOf("Program log: Instruction: Buy");
    result.meta.logMessages = [...logs.slice(0, buy + 1), "Log truncated"];
    expect(decodeTransaction(result, idls)).toEqual({
      topLevelProgram: PROGRAMS.pumpfun,
      instruction: "Buy",
      ixPath: "4",
      cpiDepth: null,
      errCode: 1,
      errName: null, // code 1 looked up for pump.fun: the System frame that raised it is not visible
      errMessage: "custom program error: 0x1",
      failingProgram: PROGRAMS.pumpfun, // the failing System CPI is cut off: the top level re-reported it
      failingInstruction: "Buy",
      cuUsed: 57646,
      cuRequested: 1400000,
      errorKey: "custom:1",
      computeExceeded: false,
      logTruncated: true,
      txError: '{"InstructionError":[4,{"Custom":1}]}',
    });
  });
});

describe("decodeSimulation with the simulated transaction", () => {
  test("a base64 wire transaction as the message gives names and the CU request", () => {
    const result = (fixtureJson("22_") as { result: RpcResult }).result;
    const meta = result.meta as unknown as { err: unknown; logMessages: string[]; computeUnitsConsumed: number };
    const story = decodeSimulation({
      err: meta.err,
      logs: meta.logMessages,
      unitsConsumed: meta.computeUnitsConsumed,
      message: result.transaction,
    });
    expect(story).toEqual(decodeTransaction(result));
    expect(story.cuRequested).toBe(200000);
    expect([story.instruction, story.failingInstruction]).toEqual(["Create", "GetAccountDataSize"]);
  });

  test("without the message: the same failure, no CU request, CUs from the top-level `consumed` line", () => {
    const meta = (fixtureJson("22_") as { result: RpcResult }).result.meta as unknown as {
      err: unknown;
      logMessages: string[];
    };
    const story = decodeSimulation({ err: meta.err, logs: meta.logMessages, unitsConsumed: undefined });
    expect([
      story.ixPath,
      story.cpiDepth,
      story.failingProgram,
      story.errName,
      story.cuRequested,
      story.cuUsed,
    ]).toEqual([
      "0.0",
      1,
      PROGRAMS.token,
      "IncorrectProgramId",
      null,
      6330, // `ATokenGP… consumed 6330 of 200000`, equal to the transaction's computeUnitsConsumed
    ]);
    expect([story.instruction, story.failingInstruction]).toEqual(["Create", "GetAccountDataSize"]);
  });
});
