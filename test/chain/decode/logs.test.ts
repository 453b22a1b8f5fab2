// The log-line parser: frames, paths, AnchorError variants, consumed lines, truncation.

import { describe, expect, test } from "bun:test";
import { parseLogs } from "../../../src/chain/decode";
import { innerPath, parseAnchorErrorLog } from "../../../src/chain/decode/logs";
import { fixtureJson } from "./fixtures";

describe("parseLogs", () => {
  test("fixture 21: depth-4 tree, child indexes and CPI ordinals per top-level instruction", () => {
    const logs = (fixtureJson("21_") as { result: { meta: { logMessages: string[] } } }).result.meta.logMessages;
    const trace = parseLogs(logs);
    expect(trace.topFrames.map((f) => f.programId.slice(0, 6))).toEqual(["Comput", "Comput", "JUP6Lk"]);
    expect(Math.max(...trace.frames.map((f) => f.depth))).toBe(4);
    const jupiter = trace.topFrames[2];
    expect(jupiter.consumed).toBe(588627);
    expect(jupiter.available).toBe(735695);
    expect(jupiter.firstLog).toBe("Instruction: SharedAccountsRoute");
    // First Stake frame at depth 4: under SPL stake pool (3rd-level) under Sanctum router (1st CPI... ).
    const firstStake = trace.frames.find((f) => f.depth === 4)!;
    expect(firstStake.programId).toBe("Stake11111111111111111111111111111111111111");
    expect(innerPath(firstStake)).toEqual([1, 5, 0]);
    expect(firstStake.cpiOrdinal).toBe(8);
    expect(trace.failed).toBeNull();
    expect(trace.truncated).toBe(false);
    expect(trace.startsMidway).toBe(false);
  });

  test("the first failed line marks the innermost frame; ancestors re-report", () => {
    const trace = parseLogs(fixtureJson("14_") as string[]);
    expect(trace.failed?.programId).toBe("CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK");
    expect(trace.failed?.failure).toBe("custom program error: 0x178c");
    expect(trace.failed?.anchorError).toEqual({
      name: "InvalidFirstTickArrayAccount",
      number: 6028,
      message: "Invaild first tick array account",
    });
    expect(innerPath(trace.failed!)).toEqual([4]);
    expect(trace.topFrames[2].failure).toBe("custom program error: 0x178c");
  });

  test("logs that start mid-way keep depths but not the top-level count", () => {
    const trace = parseLogs([
      "Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL success",
      "Program JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4 invoke [1]",
      "Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 invoke [2]",
      "Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 failed: custom program error: 0x28",
    ]);
    expect(trace.startsMidway).toBe(true);
    expect(trace.failed?.depth).toBe(2);
    expect(innerPath(trace.failed!)).toEqual([0]);
  });

  test("a CPI whose parent's invoke line is missing is detached", () => {
    const trace = parseLogs([
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [3]",
      "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: Program failed to complete",
    ]);
    expect(trace.failed?.attached).toBe(false);
    expect(innerPath(trace.failed!)).toBeNull();
  });

  test("Log truncated and the CU meter line", () => {
    const trace = parseLogs([
      "Program JUPSjgjMFjU4453KMgxhqVmzep6W352bQpE4RsNqXAx invoke [1]",
      "Program JUPSjgjMFjU4453KMgxhqVmzep6W352bQpE4RsNqXAx consumed 71 of 71 compute units",
      "Program JUPSjgjMFjU4453KMgxhqVmzep6W352bQpE4RsNqXAx failed: exceeded CUs meter at BPF instruction",
      "Log truncated",
    ]);
    expect(trace.truncated).toBe(true);
    expect(trace.meterExceeded).toBe(true);
  });
});

describe("parseAnchorErrorLog", () => {
  test("occurred / thrown in / caused by account", () => {
    expect(
      parseAnchorErrorLog(
        "AnchorError occurred. Error Code: SlippageToleranceExceeded. Error Number: 6001. Error Message: Slippage tolerance exceeded.",
      ),
    ).toEqual({ name: "SlippageToleranceExceeded", number: 6001, message: "Slippage tolerance exceeded" });
    expect(
      parseAnchorErrorLog(
        "AnchorError thrown in programs/pump/src/lib.rs:283. Error Code: TooMuchSolRequired. Error Number: 6002. Error Message: slippage: Too much SOL required to buy the given amount of tokens..",
      ),
    ).toEqual({
      name: "TooMuchSolRequired",
      number: 6002,
      message: "slippage: Too much SOL required to buy the given amount of tokens.",
    });
    expect(
      parseAnchorErrorLog(
        "AnchorError caused by account: bonding_curve. Error Code: ConstraintSeeds. Error Number: 2006. Error Message: A seeds constraint was violated.",
      ),
    ).toEqual({ name: "ConstraintSeeds", number: 2006, message: "A seeds constraint was violated" });
    expect(parseAnchorErrorLog("AnchorError something else")).toBeNull();
  });
});
