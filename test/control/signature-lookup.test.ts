// Look-ups by signature go through the indexes on the signature's first characters (control
// migration 8; src/control/signatures.ts): the whole-signature indexes are gone, and neither
// look-up may fall back to scanning the queue or the attempt index (millions of rows; `why` is a
// public route).
import { expect, test } from "bun:test";
import { openControlDb } from "../../src/control";
import { BY_SIGNATURE, signatureParams } from "../../src/control/signatures";

const SIG = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";

test("the queue and the attempt index are read by signature through their prefix indexes", () => {
  const db = openControlDb(":memory:");
  const plan = (sql: string) =>
    db
      .query<{ detail: string }, [string, string]>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...signatureParams(SIG))
      .map((row) => row.detail)
      .join("\n");
  expect(plan(`SELECT min(next_check_at) FROM pending_attempts WHERE ${BY_SIGNATURE}`)).toContain("USING INDEX pending_by_sig_prefix");
  expect(plan(`SELECT * FROM attempt_index WHERE ${BY_SIGNATURE}`)).toContain("USING INDEX attempt_index_by_sig_prefix");
  const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index'").all().map((row) => row.name);
  expect(indexes).not.toContain("pending_by_sig");
  expect(indexes).not.toContain("attempt_index_by_sig");
  db.close();
});

test("a look-up matches the whole signature, not just its prefix", () => {
  const db = openControlDb(":memory:");
  const insert = db.query("INSERT INTO pending_attempts (attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer, next_check_at) VALUES (?, 'a', 'p', ?, 1, 1, 1, 'h', 'l', 'payer', ?)");
  const twin = SIG.slice(0, 8) + "1".repeat(SIG.length - 8); // same first 8 characters
  insert.run("one", SIG, 100);
  insert.run("two", twin, 50);
  const due = (sig: string) => db.query<{ at: number | null }, [string, string]>(`SELECT min(next_check_at) AS at FROM pending_attempts WHERE ${BY_SIGNATURE}`).get(...signatureParams(sig))!.at;
  expect(due(SIG)).toBe(100);
  expect(due(twin)).toBe(50);
  expect(due(SIG.slice(0, 8) + "2".repeat(SIG.length - 8))).toBeNull();
  db.close();
});
