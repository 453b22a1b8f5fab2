// Issue fingerprints: exact values (computed independently with Python's hashlib over the same
// canonical JSON) and invariance to per-attempt values (amounts, Left/Right, account indexes).

import { describe, expect, test } from "bun:test";
import {
  decodePreflight,
  decodeSimulation,
  decodeTransaction,
  issueFingerprint,
  storyFingerprint,
} from "../../../src/chain/decode";
import { fixtureJson, mainnetIdls, PROGRAMS } from "./fixtures";

const idls = mainnetIdls();

describe("issueFingerprint", () => {
  test("v1 + first 16 hex of sha256 of the canonical array", () => {
    expect(
      issueFingerprint({
        program: PROGRAMS.pumpfun,
        outcome: "failed_onchain",
        failingProgram: PROGRAMS.pumpfun,
        instruction: "Buy",
        key: 6002,
      }),
    ).toBe("v1:c2abbbeab0dc9a5b");
    expect(
      issueFingerprint({
        program: PROGRAMS.pumpfun,
        outcome: "dropped",
        failingProgram: null,
        instruction: null,
        key: "expired_blockhash",
      }),
    ).toBe("v1:86cc8fd90dd48705");
  });

  test('the key\'s type matters (6002 ≠ "6002") and every part counts', () => {
    const base = {
      program: PROGRAMS.pumpfun,
      outcome: "failed_onchain",
      failingProgram: PROGRAMS.pumpfun,
      instruction: "Buy",
    };
    expect(issueFingerprint({ ...base, key: 6002 })).not.toBe(issueFingerprint({ ...base, key: "6002" }));
    expect(issueFingerprint({ ...base, key: 6002 })).not.toBe(
      issueFingerprint({ ...base, instruction: "Sell", key: 6002 }),
    );
  });

  test("storyFingerprint of fixture 26 equals the hand-computed value", () => {
    const story = decodeTransaction(fixtureJson("26_"), idls);
    expect(storyFingerprint(PROGRAMS.pumpfun, "failed_onchain", story)).toBe("v1:c2abbbeab0dc9a5b");
  });
});

describe("values never enter the key", () => {
  test("other Left/Right values and amounts: same story key and fingerprint", () => {
    const original = fixtureJson("26_") as { meta: { logMessages: string[] } };
    const altered = structuredClone(original);
    altered.meta.logMessages = altered.meta.logMessages.map((line) =>
      line.startsWith("Program log: Left:")
        ? "Program log: Left: 7"
        : line.startsWith("Program log: Right:")
          ? "Program log: Right: 9"
          : line,
    );
    const a = decodeTransaction(original, idls);
    const b = decodeTransaction(altered, idls);
    expect(b).toEqual(a);
    expect(storyFingerprint(PROGRAMS.pumpfun, "failed_onchain", b)).toBe(
      storyFingerprint(PROGRAMS.pumpfun, "failed_onchain", a),
    );
  });

  test("insufficient lamports of different sizes group together (fixtures 18 and 27 differ only by depth)", () => {
    const top = decodeTransaction(fixtureJson("18_"), idls);
    const inner = decodeTransaction(fixtureJson("27_"), idls);
    expect(top.errorKey).toBe("custom:1");
    expect(inner.errorKey).toBe("custom:1");
    expect(top.failingProgram).toBe(inner.failingProgram);
  });

  test("InsufficientFundsForRent on account 0 and 2 share one key", () => {
    const a = decodeSimulation({ err: { InsufficientFundsForRent: { account_index: 0 } }, logs: null });
    const b = decodeSimulation({ err: { InsufficientFundsForRent: { account_index: 2 } }, logs: null });
    expect(storyFingerprint(PROGRAMS.system, "preflight", a)).toBe(storyFingerprint(PROGRAMS.system, "preflight", b));
  });

  test("differently worded clients report one BlockhashNotFound key", () => {
    const key = (t: string) =>
      decodePreflight({ preflightError: t, simulationLogs: [], program: PROGRAMS.system }).errorKey;
    expect(key("failed to send transaction: Transaction simulation failed: Blockhash not found")).toBe(
      "BlockhashNotFound",
    );
    expect(key('Simulation failed: "BlockhashNotFound"')).toBe("BlockhashNotFound");
    expect(key('{"value":{"err":"BlockhashNotFound","logs":[]}}')).toBe("BlockhashNotFound");
  });
});
