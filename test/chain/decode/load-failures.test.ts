// SIMD-0191: a transaction whose top-level program is missing or not executable, or whose loaded
// account data exceeds its limit, is committed and charged the fee, nothing executed; the fee
// payer's, the blockhash's and the status cache's failures are still never committed.
import { expect, test } from "bun:test";
import { committedWithFee, decodeTransaction, transactionErrorStage } from "../../../src/chain/decode";
import { IdlRegistry } from "../../../src/chain/idl/registry";
import { resolveFromTransaction } from "../../../src/chain/resolve/outcomes";
import type { Attempt } from "../../../src/chain/resolve/types";

test("load-stage failures are committed and charged; failures before loading are not", () => {
  for (const variant of ["ProgramAccountNotFound", "InvalidProgramForExecution", "MaxLoadedAccountsDataSizeExceeded"]) {
    expect([variant, transactionErrorStage(variant), committedWithFee(variant)]).toEqual([variant, "load", true]);
  }
  expect(committedWithFee("InstructionError")).toBe(true);
  for (const variant of ["BlockhashNotFound", "AlreadyProcessed", "InsufficientFundsForFee", "AccountNotFound"])
    expect([variant, committedWithFee(variant)]).toEqual([variant, false]);
  expect(committedWithFee("NoSuchVariant")).toBeNull();
});

test("a committed ProgramAccountNotFound is a failure on chain, decoded without logs", () => {
  const missing = "Missing1111111111111111111111111111111111111";
  const tx = {
    slot: 310_000_000,
    blockTime: 1_764_000_000,
    transaction: {
      signatures: ["5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL"],
      message: {
        accountKeys: ["Payer11111111111111111111111111111111111111", missing],
        recentBlockhash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
        instructions: [{ programIdIndex: 1, accounts: [0], data: "" }],
      },
    },
    meta: { err: "ProgramAccountNotFound", fee: 5000, logMessages: [], computeUnitsConsumed: 0 },
  };
  expect(decodeTransaction(tx)).toMatchObject({
    errName: "ProgramAccountNotFound",
    errorKey: "ProgramAccountNotFound",
  });
  const attempt = { attemptId: "a", program: missing, ixPrefix: null, nonce: false } as unknown as Attempt;
  const resolution = resolveFromTransaction(attempt, null, tx, new IdlRegistry(), 0, 1);
  expect(resolution).toMatchObject({ outcome: "failed_onchain", err: '"ProgramAccountNotFound"', slot: 310_000_000 });
  expect(resolution.fingerprint).not.toBeNull();
});
