// The signature index's entries as the resolver writes them and why reads them back: an open
// attempt is stored without what its entry already holds, and read back whole; entries written in
// the earlier, full form still read the same.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type IndexedAttempt, indexedAttempts } from "../../../src/chain/resolve";
import { openAttempt } from "../../../src/chain/resolve/open-attempts";
import { openEntry } from "../../../src/chain/resolve/signatures";
import type { Attempt } from "../../../src/chain/resolve/types";
import { openControlDb } from "../../../src/control";
import { SignatureIndex } from "../../../src/signature-index";
import { RunReader } from "../../../src/signature-index/run-file";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SIG = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
const attempt: Attempt = {
  attemptId: "att-1",
  accountId: "acc_a",
  program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  sig: SIG,
  kind: "send",
  lastValidBlockHeight: 301_000_150,
  sentAt: 1_763_700_000_000,
  receivedAt: 1_763_700_000_120,
  rpcHash: "0123456789abcdef",
  rpcLabel: "helius",
  payer: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  cuLimit: 200_000,
  cuPriceMicroLamports: 5_000,
  ixPrefix: "e517cb977ae3ad2a",
  nonce: false,
  preflightError: null,
  simulationLogs: null,
};

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), "txray-signatures-"));
  dirs.push(dir);
  return {
    index: new SignatureIndex(join(dir, "signatures")),
    control: openControlDb(join(dir, "control.sqlite")),
    dir,
  };
}

test("an open attempt is stored once (no repeated signature, payer or program, none of the resolver's bookkeeping) and read back whole", async () => {
  const { index, control, dir } = setUp();
  // The resolver's open attempt, as it writes it: checks, due time and heap version are its own.
  await index.append(
    [openEntry(Object.assign(openAttempt(attempt, 1_763_700_001_000), { checks: 2 }), 1_763_700_001_000)],
    (value) => (value as IndexedAttempt).at,
  );
  const [found] = indexedAttempts(index, control, SIG);
  expect(found).toEqual({
    attemptId: "att-1",
    accountId: "acc_a",
    program: attempt.program,
    payer: attempt.payer,
    rpcHash: attempt.rpcHash,
    rpcLabel: "helius",
    sentAt: attempt.sentAt,
    state: "open",
    at: 1_763_700_001_000,
    attempt,
  });
  // The run holds the signature as the line's key only, and the payer and program once.
  const run = readdirSync(join(dir, "signatures")).find((name) => !name.endsWith(".tmp"))!;
  const [text] = [...RunReader.open(join(dir, "signatures", run)).lines()];
  expect(text.split(SIG).length - 1).toBe(1);
  expect(text.split(attempt.payer).length - 1).toBe(1);
  expect(text.split(attempt.program).length - 1).toBe(1);
  expect(text).not.toContain("checks");
  control.close();
});

test("an open entry written in the full form (index runs before this change) reads the same", async () => {
  const { index, control } = setUp();
  const full = {
    attemptId: "att-1",
    accountId: "acc_a",
    program: attempt.program,
    payer: attempt.payer,
    rpcHash: attempt.rpcHash,
    rpcLabel: "helius",
    sentAt: attempt.sentAt,
    state: "open",
    at: 1,
    attempt,
  };
  await index.append([{ sig: SIG, attemptId: "att-1", value: full }], (value) => (value as IndexedAttempt).at);
  expect(indexedAttempts(index, control, SIG)).toEqual([full as IndexedAttempt]);
  control.close();
});
