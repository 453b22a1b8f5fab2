// Instructions are numbered for people as Solana Explorer numbers them (#3, #3.2: inner ones in
// invoke order at any depth), the same numbers the chain record gives: on recorded mainnet
// transactions with nested calls, every frame of the call stack gets the number of the record's
// instruction of the same program, served as the frame's `number`; the path-only cases; and the web
// app's words from the numbers the server gives.
import { describe, expect, test } from "bun:test";
import { callStack, transactionDetails } from "../../src/chain/decode";
import { IdlRegistry } from "../../src/chain/idl";
import {
  frameNumber,
  instructionNumber,
  instructionPlace,
  type PlacedFrame,
} from "../../src/shared/instruction-number";
import * as web from "../../src/web/format";
import { recordedTransaction } from "../helpers/recorded-rpc";

const RECORDED = [
  "17_", // OKX DEX into PumpSwap, calls three deep
  "19_", // a Jupiter route whose second leg (Meteora DLMM) calls itself; Jupiter fails at the end
  "21_", // Jupiter into a Sanctum stake pool, calls four deep
  "27_", // pump.fun buy whose System transfer fails (#5.2)
];

describe("a frame's number is the chain record's number of that instruction", () => {
  for (const prefix of RECORDED)
    test(prefix, () => {
      const { result } = recordedTransaction(prefix);
      const record = transactionDetails(result, new IdlRegistry())!;
      const programOf = new Map<string, string | null>();
      for (const top of record.instructions) {
        programOf.set(`#${top.number}`, top.programId);
        for (const inner of top.inner) programOf.set(`#${inner.number}`, inner.programId);
      }
      const stack = callStack(result.meta.logMessages, {
        ixPath: result.meta.err ? String(result.meta.err.InstructionError[0]) : null,
      });
      expect(stack.length).toBeGreaterThan(3);
      const numbered = stack.map((frame) => [frameNumber(frame, stack), frame.program]);
      expect(numbered.map(([number]) => programOf.has(number!))).toEqual(stack.map(() => true));
      expect(numbered.map(([number]) => [number, programOf.get(number!)])).toEqual(numbered);
      // The answer carries each frame's number (the web app shows it as it is).
      expect(stack.map((frame) => frame.number)).toEqual(numbered.map(([number]) => number));
    });

  test("a second call after a nested one is counted after the nested one, not by its position among siblings", () => {
    const { result } = recordedTransaction("19_");
    const stack = callStack(result.meta.logMessages, { ixPath: "2" });
    // Jupiter (#3) calls Raydium (#3.1, which calls Token twice: #3.2, #3.3), then itself (#3.4), then
    // Meteora DLMM (#3.5): per level that is path 2.2, the third direct call.
    const dlmm = stack.find((frame) => frame.program.startsWith("LBUZ") && frame.depth === 2)!;
    expect(dlmm.path).toBe("2.2");
    expect(frameNumber(dlmm, stack)).toBe("#3.5");
    expect(instructionNumber("2.2", stack)).toBe("#3.5");
    expect(instructionPlace("2.2.2", instructionNumber("2.2.2", stack))).toBe("instruction #3.8");
  });
});

describe("from the path alone", () => {
  const cases: [string | null, string | null, string | null][] = [
    [null, null, null],
    ["0", "#1", "instruction #1"],
    ["2", "#3", "instruction #3"],
    ["2.0", "#3.1", "instruction #3.1"],
    ["2.0.0", "#3.2", "instruction #3.2"],
    // Which of #3's calls "2.1" is depends on how many calls its first call made.
    ["2.1", null, "a call inside instruction #3"],
  ];
  for (const [path, number, place] of cases)
    test(`${path}`, () => {
      expect([instructionNumber(path), instructionPlace(path, instructionNumber(path))]).toEqual([number, place]);
      // The web app words the number the answer gives (`ixNumber`, instructionNumber's) the same.
      expect(web.instructionPlace(path, instructionNumber(path))).toEqual(place);
    });

  test("a frame the logs cannot place has no number", () => {
    const detached: PlacedFrame[] = [{ index: 0, parent: null, depth: 2, path: null }];
    expect(frameNumber(detached[0], detached)).toBeNull();
  });
});
