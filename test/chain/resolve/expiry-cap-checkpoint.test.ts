// The expiry cap is checkpointed apart from the client's lastValidBlockHeight: a restart keeps both,
// and the expiry is the lower. A checkpoint written before the cap had a field of its own reads as
// uncapped (its lastValidBlockHeight already holds the capped value). A durable-nonce attempt keeps
// its nonce account the same way; a checkpoint written before it was carried reads it as null.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointPath, readCheckpoint, writeCheckpoint } from "../../../src/chain/resolve/checkpoint";
import {
  capExpiry,
  cappedExpiry,
  expiryOf,
  MAX_BLOCKS_TO_EXPIRY,
  type OpenAttempt,
  openAttempt,
} from "../../../src/chain/resolve/open-attempts";
import type { Attempt } from "../../../src/chain/resolve/types";
import { dataPaths } from "../../../src/lake/paths";

const dir = mkdtempSync(join(tmpdir(), "txray-expiry-cap-"));
const paths = dataPaths(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const attempt = (id: string, lastValidBlockHeight: number): OpenAttempt =>
  openAttempt(
    {
      attemptId: id,
      accountId: "acct",
      program: "11111111111111111111111111111111",
      sig: `sig-${id}`,
      kind: "send",
      lastValidBlockHeight,
      sentAt: 1,
      receivedAt: 2,
      rpcHash: "a1b2c3d4e5f60718",
      rpcLabel: "alpha",
      payer: "payer",
      cuLimit: null,
      cuPriceMicroLamports: null,
      ixPrefix: null,
      nonce: false,
      preflightError: null,
      simulationLogs: null,
    } satisfies Attempt,
    0,
  );

test("the client's value and the cap both survive a checkpoint; the lower decides", () => {
  const forged = attempt("forged", 1e12);
  const honest = attempt("honest", 1_000_150);
  for (const a of [forged, honest]) capExpiry(a, 1_000_000);
  expect(forged).toMatchObject({ lastValidBlockHeight: 1e12, expiryCap: 1_000_000 + MAX_BLOCKS_TO_EXPIRY });
  writeCheckpoint(paths, { format: 1, through: 5, open: [forged, honest], names: [] });

  const [readForged, readHonest] = readCheckpoint(paths)!.open;
  expect(readForged).toMatchObject({ lastValidBlockHeight: 1e12, expiryCap: 1_000_300 });
  expect([expiryOf(readForged), cappedExpiry(readForged)]).toEqual([1_000_300, true]);
  expect([expiryOf(readHonest), cappedExpiry(readHonest)]).toEqual([1_000_150, false]);
});

test("a checkpoint without the field reads as uncapped", () => {
  writeCheckpoint(paths, { format: 1, through: 5, open: [attempt("old", 1_000_300)], names: [] });
  const raw = JSON.parse(readFileSync(checkpointPath(paths), "utf8"));
  const at = raw.fields.indexOf("expiryCap");
  raw.fields.splice(at, 1);
  for (const row of raw.open) row.splice(at, 1);
  writeFileSync(checkpointPath(paths), JSON.stringify(raw));
  const [old] = readCheckpoint(paths)!.open;
  expect(old.expiryCap).toBeNull();
  expect([expiryOf(old), cappedExpiry(old)]).toEqual([1_000_300, false]);
});

test("a durable-nonce attempt's nonce account and value survive a checkpoint; one written without them reads null", () => {
  const durable = attempt("durable", 1_000_150);
  Object.assign(durable, {
    nonce: true,
    nonceAccount: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku",
    nonceValue: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
  });
  writeCheckpoint(paths, { format: 1, through: 5, open: [durable], names: [] });
  expect(readCheckpoint(paths)!.open[0]).toMatchObject({
    nonce: true,
    nonceAccount: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku",
    nonceValue: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
  });

  const raw = JSON.parse(readFileSync(checkpointPath(paths), "utf8"));
  for (const field of ["nonceAccount", "nonceValue"]) {
    const at = raw.fields.indexOf(field);
    raw.fields.splice(at, 1);
    for (const row of raw.open) row.splice(at, 1);
  }
  writeFileSync(checkpointPath(paths), JSON.stringify(raw));
  const [old] = readCheckpoint(paths)!.open;
  expect(old).toMatchObject({ nonce: true, nonceAccount: null, nonceValue: null });
});
