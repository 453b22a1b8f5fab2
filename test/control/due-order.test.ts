// A resolve run picks its due attempts through an index in the order it reads them: with a backlog
// of millions pending, SQLite must not sort the whole queue (a temp B-tree) on the main thread.
import { expect, test } from "bun:test";
import { DUE_ATTEMPTS_SQL, openControlDb } from "../../src/control";

test("the due-attempts query reads pending_due_order without sorting", () => {
  const db = openControlDb(":memory:");
  const plan = db
    .query<{ detail: string }, [number, number]>(`EXPLAIN QUERY PLAN ${DUE_ATTEMPTS_SQL}`)
    .all(0, 20_000)
    .map((row) => row.detail);
  expect(plan.join("\n")).toContain("pending_due_order");
  expect(plan.join("\n")).not.toContain("TEMP B-TREE");
  db.close();
});
