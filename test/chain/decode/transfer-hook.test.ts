// A failure inside a Token-2022 transfer hook: Token-2022's Execute CPI into the hook program fails,
// and the failure is the hook program's, named from the transfer-hook interface's error codes
// (spl-transfer-hook-interface `error.rs`, from 2_110_272_652). No recorded mainnet failure of this
// kind is in test/fixtures: the logs below are constructed in the runtime's stable log format (the real
// logs of hooks that fail on the LiteSVM local chain are in localnet-transfer-hook.test.ts).

import { describe, expect, test } from "bun:test";
import { decodeSimulation } from "../../../src/chain/decode";
import { TRANSFER_HOOK_ERRORS } from "../../../src/chain/decode/builtin-errors";
import { isTransferHookExecute } from "../../../src/chain/decode/builtin-instructions";

const TOKEN_2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const HOOK = "HookXyz1111111111111111111111111111111111111";

/** TransferChecked on Token-2022 whose transfer hook (a CPI at depth 2) fails with `code`. */
function hookFailure(code: number, caller = TOKEN_2022) {
  const hex = `0x${code.toString(16)}`;
  return decodeSimulation({
    err: { InstructionError: [0, { Custom: code }] },
    logs: [
      `Program ${caller} invoke [1]`,
      "Program log: Instruction: TransferChecked",
      `Program ${HOOK} invoke [2]`,
      "Program log: Instruction: Execute",
      `Program ${HOOK} consumed 4100 of 190000 compute units`,
      `Program ${HOOK} failed: custom program error: ${hex}`,
      `Program ${caller} consumed 14000 of 200000 compute units`,
      `Program ${caller} failed: custom program error: ${hex}`,
    ],
  });
}

describe("Token-2022 transfer hooks", () => {
  test("the interface's codes, as its source numbers them", () => {
    expect([...TRANSFER_HOOK_ERRORS].map(([code, e]) => [code, e.name])).toEqual([
      [2_110_272_652, "IncorrectAccount"],
      [2_110_272_653, "MintHasNoMintAuthority"],
      [2_110_272_654, "IncorrectMintAuthority"],
      [2_110_272_655, "ProgramCalledOutsideOfTransfer"],
    ]);
  });

  test("a failing hook is the failing program, its code named by the interface", () => {
    expect(hookFailure(2_110_272_652)).toMatchObject({
      topLevelProgram: TOKEN_2022,
      failingProgram: HOOK,
      ixPath: "0.0",
      cpiDepth: 1,
      errCode: 2_110_272_652,
      errName: "IncorrectAccount",
      errMessage: "Incorrect account provided",
    });
    expect(hookFailure(2_110_272_655).errName).toBe("ProgramCalledOutsideOfTransfer");
  });

  test("the same code from a program another program invoked is not claimed as a hook's", () => {
    const story = hookFailure(2_110_272_652, "SomeOtherProgram1111111111111111111111111111");
    expect(story.failingProgram).toBe(HOOK);
    expect(story.errName).toBeNull();
  });

  test("Execute is known by its 8-byte interface tag followed by the u64 amount, nothing else", () => {
    const tag = [105, 37, 101, 197, 75, 251, 102, 26]; // sha256("spl-transfer-hook-interface:execute")[..8]
    expect(isTransferHookExecute(Uint8Array.from([...tag, 5, 0, 0, 0, 0, 0, 0, 0]))).toBe(true);
    expect(isTransferHookExecute(Uint8Array.from(tag))).toBe(false);
    expect(isTransferHookExecute(Uint8Array.from([...tag.slice(0, 7), 0, 5, 0, 0, 0, 0, 0, 0, 0]))).toBe(false);
  });

  test("Token-2022's own errors keep their names", () => {
    const story = decodeSimulation({
      err: { InstructionError: [0, { Custom: 37 }] },
      logs: [`Program ${TOKEN_2022} invoke [1]`, `Program ${TOKEN_2022} failed: custom program error: 0x25`],
    });
    expect(story).toMatchObject({ failingProgram: TOKEN_2022, errCode: 37, errName: "NonTransferable" });
  });
});
