// The wallet-page store's reader (src/analytics/serving/wallet-store.ts) on a store written here:
// a page's counts whether read from its own rows or counted by the store, versions seeing their own
// rows, and a version whose rows were collected answering null (the lake then), while a page
// that was reading when the collection committed answers from its own snapshot.

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { payerKeyOf } from "../../src/analytics/serving/payer-key";
import {
  storedKey,
  WALLET_STORE_SCHEMA,
  type WalletStoreQuery,
  WalletStoreReader,
  walletStoreFile,
} from "../../src/analytics/serving/wallet-store";
import { metered } from "../../src/shared/work-meter";

const dir = mkdtempSync(join(tmpdir(), "txray-wallet-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PAYER = "BLni55HFg1UydRhpPJJMukGHm3ofSqcq3orBHB9Vd83c";
const PROGRAM = "4TcamGziVJR6SbsJVErwHtPMowxpmwUsyKARYEZM69U5";
const OUTCOMES = ["landed", "failed_onchain", "dropped", "preflight"];

/** A store of `attempts` rows of one payer on one program, written at version 1; returns its writer. */
function writeStore(attempts: number): Database {
  const db = new Database(walletStoreFile(dir, 1), { create: true });
  db.run("PRAGMA journal_mode = WAL");
  for (const statement of WALLET_STORE_SCHEMA) db.run(statement);
  db.run("DELETE FROM attempts");
  db.run("DELETE FROM names");
  db.run("DELETE FROM store_meta");
  const names = [PROGRAM, ...OUTCOMES, "helius"];
  for (const [i, name] of names.entries()) db.run("INSERT INTO names (id, name) VALUES (?, ?)", [i + 1, name]);
  const insert = db.prepare(
    `INSERT INTO attempts (payer, program, sent_at, attempt, valid_from, valid_to, received_at, sig, outcome, rpc_label)
     VALUES (?, 1, ?, ?, 1, NULL, ?, ?, ?, 6)`,
  );
  for (let i = 0; i < attempts; i++)
    insert.run(storedKey(payerKeyOf(PAYER)), 1_000 + i, BigInt(i), 1_000 + i, `sig${i}`, 2 + (i % 4));
  return db;
}

const query = (rows: number, after: WalletStoreQuery["after"] = null): WalletStoreQuery => ({
  payer: payerKeyOf(PAYER),
  program: PROGRAM,
  accountId: null,
  since: 0,
  until: 10_000,
  after,
  rows,
});

describe("wallet store reader", () => {
  test("a page's counts are the window's, on a page that holds it and on one that does not", () => {
    const writer = writeStore(10);
    const reader = WalletStoreReader.open(dir, 1)!;
    try {
      const whole = { landed: 3, failedOnchain: 3, dropped: 2, preflight: 2 };
      const all = reader.page(query(11))!;
      expect(all.items.map((item) => item.sig)).toEqual(Array.from({ length: 10 }, (_, i) => `sig${9 - i}`));
      expect(all.counts).toEqual(whole);
      const first = reader.page(query(4))!;
      expect(first.items).toHaveLength(4);
      expect(first.counts).toEqual(whole);
      const last = first.items[3];
      const next = reader.page(query(11, { sentAt: last.sentAt, attemptKey: last.attemptKey }))!;
      expect(next.items.map((item) => item.sig)).toEqual(["sig5", "sig4", "sig3", "sig2", "sig1", "sig0"]);
      expect(next.counts).toEqual(whole);
      expect(reader.page({ ...query(11), program: "11111111111111111111111111111111" })!.counts.landed).toBe(0);
    } finally {
      reader.close();
      writer.close();
    }
  });

  test("a window that fills more than a page is counted once, whatever the page's size or cursor", () => {
    const writer = writeStore(10);
    const reader = WalletStoreReader.open(dir, 1)!;
    try {
      const internals = reader as unknown as { counts: { all: (params: unknown) => unknown[] } };
      const statement = internals.counts;
      let counted = 0;
      internals.counts = {
        all: (params) => {
          counted++;
          return statement.all(params);
        },
      };
      const whole = { landed: 3, failedOnchain: 3, dropped: 2, preflight: 2 };
      const first = reader.page(query(4))!;
      const last = first.items[2];
      expect(reader.page(query(3))!.counts).toEqual(whole);
      expect(reader.page(query(4, { sentAt: last.sentAt, attemptKey: last.attemptKey }))!.counts).toEqual(whole);
      expect(counted).toBe(1);
      // Another window is counted on its own.
      expect(reader.page({ ...query(3), since: 1_005 })!.counts).toEqual({
        landed: 1,
        failedOnchain: 2,
        dropped: 1,
        preflight: 1,
      });
      expect(counted).toBe(2);
    } finally {
      reader.close();
      writer.close();
    }
  });

  test("a page's time is recorded as the metered request's work", async () => {
    const writer = writeStore(3);
    let now = 0;
    const reader = WalletStoreReader.open(dir, 1, () => (now += 7))!;
    try {
      const meter = { ms: 0 };
      await metered(meter, async () => {
        await Bun.sleep(1); // across an await, as in a request
        reader.page(query(4));
      });
      expect(meter.ms).toBe(7);
      reader.page(query(4)); // outside a request: recorded nowhere
      expect(meter.ms).toBe(7);
    } finally {
      reader.close();
      writer.close();
    }
  });

  test("a version whose rows were collected answers null; a page reads one snapshot", () => {
    const writer = writeStore(6);
    const reader = WalletStoreReader.open(dir, 1)!;
    try {
      expect(reader.page(query(3))!.items).toHaveLength(3);
      // The collection commits while a page reads (after its first page statement): the page's
      // snapshot was taken before, so it answers its version's rows, counts included.
      const internals = reader as unknown as { firstPage: { all: (params: unknown) => unknown[] } };
      const firstPage = internals.firstPage;
      const read = firstPage.all.bind(firstPage);
      internals.firstPage = {
        all: (params) => {
          const rows = read(params);
          writer.run("DELETE FROM attempts WHERE sent_at < 1003");
          writer.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('collected_through', 2)");
          return rows;
        },
      };
      const during = reader.page(query(3))!;
      expect(during.items).toHaveLength(3);
      expect(during.counts).toEqual({ landed: 2, failedOnchain: 2, dropped: 1, preflight: 1 });
      internals.firstPage = firstPage;
      expect(reader.page(query(3))).toBeNull();
      expect(reader.page({ ...query(3), program: "11111111111111111111111111111111" })).toBeNull();
    } finally {
      reader.close();
      writer.close();
    }
  });
});
