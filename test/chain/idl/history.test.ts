// IDL history: every IDL a program had is kept with the slot it applies from, and a failure is named
// by the IDL in force at its slot (a release that renames an error must not rename old failures).

import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeTransaction } from "../../../src/chain/decode";
import {
  anchorIdlAddress,
  IdlRegistry,
  loadIdls,
  parseIdl,
  refreshOnchainIdls,
  saveIdlVersion,
  storedIdlSlots,
} from "../../../src/chain/idl";
import { landedFromStatus, resolveFromTransaction } from "../../../src/chain/resolve/outcomes";
import { createRpcClient } from "../../../src/chain/rpc";
import { run } from "../../../src/cli/commands";
import { randomAddress } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { idlAccountData } from "./support";

const PROGRAM = randomAddress();
const PAYER = randomAddress();
const RELEASE_SLOT = 300_000_000;

/** Two releases of one program: code 6000 renamed, and the instruction renamed too. */
const idlV1 = {
  version: "0.1.0",
  name: "vault",
  instructions: [{ name: "deposit", accounts: [], args: [] }],
  errors: [{ code: 6000, name: "InsufficientFunds", msg: "not enough funds" }],
};
const idlV2 = {
  version: "0.2.0",
  name: "vault",
  instructions: [{ name: "deposit", accounts: [], args: [], discriminator: [1, 2, 3, 4, 5, 6, 7, 8] }],
  errors: [{ code: 6000, name: "VaultPaused", msg: "the vault is paused" }],
};

/** A getTransaction result of PROGRAM failing with custom error 6000 (no Anchor log line to name it). */
function failureAt(slot: number) {
  return {
    slot,
    blockTime: 1_790_000_000,
    meta: {
      err: { InstructionError: [0, { Custom: 6000 }] },
      logMessages: [
        `Program ${PROGRAM} invoke [1]`,
        `Program ${PROGRAM} consumed 4000 of 200000 compute units`,
        `Program ${PROGRAM} failed: custom program error: 0x1770`,
      ],
      innerInstructions: [],
      computeUnitsConsumed: 4000,
    },
    transaction: {
      signatures: ["1111111111111111111111111111111111111111111111111111111111111111"],
      message: {
        accountKeys: [PAYER, PROGRAM],
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        recentBlockhash: PAYER,
        instructions: [{ programIdIndex: 1, accounts: [0], data: "" }],
      },
    },
  };
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "txray-idl-history-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("a view answers with the version in force at its slot; no slot means the newest", () => {
  const registry = new IdlRegistry().set(PROGRAM, parseIdl(idlV1)).set(PROGRAM, parseIdl(idlV2), RELEASE_SLOT);
  expect(registry.versions(PROGRAM).map((v) => v.fromSlot)).toEqual([0, RELEASE_SLOT]);
  expect(registry.errorFor(PROGRAM, 6000)?.name).toBe("VaultPaused");
  expect(registry.atSlot(RELEASE_SLOT - 1).errorFor(PROGRAM, 6000)?.name).toBe("InsufficientFunds");
  expect(registry.atSlot(RELEASE_SLOT).errorFor(PROGRAM, 6000)?.name).toBe("VaultPaused");
  expect(registry.atSlot(null).errorFor(PROGRAM, 6000)?.name).toBe("VaultPaused");
  const onlyLater = new IdlRegistry().set(PROGRAM, parseIdl(idlV2), RELEASE_SLOT);
  expect(onlyLater.atSlot(5).get(PROGRAM)).toBeUndefined(); // before its first version, no IDL
  expect(() => registry.set(PROGRAM, parseIdl(idlV1), -1)).toThrow("fromSlot");
});

test("stored versions load back, and failures before and after the change keep their own names", () => {
  const dir = dataDir();
  saveIdlVersion(dir, PROGRAM, idlV1);
  saveIdlVersion(dir, PROGRAM, JSON.stringify(idlV2), RELEASE_SLOT);
  expect(storedIdlSlots(dir, PROGRAM)).toEqual([0, RELEASE_SLOT]);
  expect(readdirSync(join(dir, "idl", PROGRAM))).toEqual([`${RELEASE_SLOT}.json`]); // no temp file left
  const idls = loadIdls(dir);
  expect(idls.skipped).toEqual([]);

  const before = decodeTransaction(failureAt(RELEASE_SLOT - 10), idls);
  const after = decodeTransaction(failureAt(RELEASE_SLOT + 10), idls);
  expect([before.errName, before.errMessage]).toEqual(["InsufficientFunds", "not enough funds"]);
  expect([after.errName, after.errMessage]).toEqual(["VaultPaused", "the vault is paused"]);

  // The resolver names them the same way, from the transaction's slot.
  const attempt = { program: PROGRAM, ixPrefix: null, nonce: false, attemptId: "a1" } as never;
  const resolved = resolveFromTransaction(attempt, null, failureAt(RELEASE_SLOT - 1), idls, 0, 0);
  expect(resolved.story.errName).toBe("InsufficientFunds");
  expect(resolveFromTransaction(attempt, null, failureAt(RELEASE_SLOT), idls, 0, 0).story.errName).toBe("VaultPaused");
  const landed = { program: PROGRAM, ixPrefix: "0102030405060708", cuLimit: null } as never;
  expect(landedFromStatus(landed, { slot: RELEASE_SLOT + 1 } as never, null, idls, null, 0).story.instruction).toBe(
    "Deposit",
  );
  expect(
    landedFromStatus(landed, { slot: RELEASE_SLOT - 1 } as never, null, idls, null, 0).story.instruction,
  ).toBeNull();
});

test("saving without a slot replaces the IDL in force now; bad slots and stray files are refused or skipped", () => {
  const dir = dataDir();
  saveIdlVersion(dir, PROGRAM, idlV1);
  expect(saveIdlVersion(dir, PROGRAM, idlV2, RELEASE_SLOT).fromSlot).toBe(RELEASE_SLOT);
  expect(saveIdlVersion(dir, PROGRAM, idlV2).fromSlot).toBe(RELEASE_SLOT);
  expect(storedIdlSlots(dir, PROGRAM)).toEqual([0, RELEASE_SLOT]);
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) {
    expect(() => saveIdlVersion(dir, PROGRAM, idlV1, bad)).toThrow("fromSlot");
  }
  writeFileSync(join(dir, "idl", PROGRAM, "0.json"), "{}");
  writeFileSync(join(dir, "idl", PROGRAM, "..json"), "{}");
  writeFileSync(join(dir, "idl", PROGRAM, "12.json"), "{broken");
  const idls = loadIdls(dir);
  expect(idls.versions(PROGRAM).map((v) => v.fromSlot)).toEqual([0, RELEASE_SLOT]);
  expect(idls.skipped.map((s) => s.file).sort()).toEqual(
    [`${PROGRAM}/..json`, `${PROGRAM}/0.json`, `${PROGRAM}/12.json`].sort(),
  );
});

test("idl add --from-slot stores a dated version; a bad slot is refused", async () => {
  const dir = dataDir();
  const v1 = join(dir, "v1.json");
  const v2 = join(dir, "v2.json");
  writeFileSync(v1, JSON.stringify(idlV1));
  writeFileSync(v2, JSON.stringify(idlV2));
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => (stdout += t),
    stderr: (t: string) => (stderr += t),
    env: { TXRAY_DATA_DIR: dir },
  };
  expect(await run(["idl", "add", PROGRAM, v1], io)).toBe(0);
  expect(await run(["idl", "add", PROGRAM, v2, "--from-slot", String(RELEASE_SLOT)], io)).toBe(0);
  expect(stdout).toContain(`from slot ${RELEASE_SLOT}`);
  expect(storedIdlSlots(dir, PROGRAM)).toEqual([0, RELEASE_SLOT]);
  for (const bad of ["-5", "abc", "1e9", "99999999999999999"]) {
    expect(await run(["idl", "add", PROGRAM, v1, "--from-slot", bad], io)).not.toBe(0);
  }
  expect(stderr).toContain("--from-slot needs a slot number");
  expect(storedIdlSlots(dir, PROGRAM)).toEqual([0, RELEASE_SLOT]);
});

test("a changed on-chain IDL after a deploy applies from the deploy slot; an unchanged one writes nothing", async () => {
  const accounts: Record<string, Uint8Array> = { [anchorIdlAddress(PROGRAM)]: idlAccountData(idlV1) };
  const rpc = startRecordedRpc([], { accounts });
  try {
    const dir = dataDir();
    const client = createRpcClient({ url: rpc.url });
    expect((await refreshOnchainIdls(dir, client, [PROGRAM], new Set())).fetched).toEqual([PROGRAM]);
    expect(storedIdlSlots(dir, PROGRAM)).toEqual([0]);
    await refreshOnchainIdls(dir, client, [PROGRAM], new Map([[PROGRAM, RELEASE_SLOT - 5]]));
    expect(storedIdlSlots(dir, PROGRAM)).toEqual([0]); // same IDL after the deploy: no new version
    accounts[anchorIdlAddress(PROGRAM)] = idlAccountData(idlV2);
    await refreshOnchainIdls(dir, client, [PROGRAM], new Map([[PROGRAM, RELEASE_SLOT]]));
    expect(storedIdlSlots(dir, PROGRAM)).toEqual([0, RELEASE_SLOT]);
    const idls = loadIdls(dir);
    expect(decodeTransaction(failureAt(RELEASE_SLOT - 1), idls).errName).toBe("InsufficientFunds");
    expect(decodeTransaction(failureAt(RELEASE_SLOT + 1), idls).errName).toBe("VaultPaused");
    expect(existsSync(join(dir, "idl", `${PROGRAM}.json`))).toBe(true);
  } finally {
    rpc.stop();
  }
});
