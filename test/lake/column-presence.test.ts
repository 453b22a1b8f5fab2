// A reader filters on a column a lake version added only in the parts where every row has it
// (src/lake/column-presence.ts): a part written before has no such column, and a compacted part
// that merged old and new parts has it null in the old rows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anyFileHasColumn, filesWithCompleteColumn } from "../../src/lake/column-presence";
import { type Duck, openDuck } from "../../src/lake/duckdb";

let dir: string;
let duck: Duck;
const part = (name: string) => join(dir, `${name}.parquet`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "txray-column-presence-"));
  duck = await openDuck();
  const rows = "SELECT i AS attempt_id FROM range(100) t(i)";
  await duck.run(`COPY (${rows}) TO '${part("without")}' (FORMAT parquet)`);
  await duck.run(
    `COPY (SELECT *, (attempt_id % 7)::USMALLINT AS payer_bucket FROM (${rows})) TO '${part("complete")}' (FORMAT parquet, ROW_GROUP_SIZE 16)`,
  );
  // Null in one row of one row group among several: the part is not complete.
  await duck.run(
    `COPY (SELECT *, CASE WHEN attempt_id = 90 THEN NULL ELSE 1 END::USMALLINT AS payer_bucket FROM (${rows})) TO '${part("one-null")}' (FORMAT parquet, ROW_GROUP_SIZE 16)`,
  );
});

afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

test("only the parts where the column has a value in every row count as complete", async () => {
  const files = ["without", "complete", "one-null"].map(part);
  expect(await filesWithCompleteColumn(duck, files, "payer_bucket")).toEqual(new Set([part("complete")]));
  // Asked again (remembered by name) and for a subset: the same answers.
  expect(await filesWithCompleteColumn(duck, [part("one-null"), part("complete")], "payer_bucket")).toEqual(
    new Set([part("complete")]),
  );
  expect(await filesWithCompleteColumn(duck, [part("without")], "payer_bucket")).toEqual(new Set());
  // Another column of the same parts is asked about on its own.
  expect(await filesWithCompleteColumn(duck, files, "attempt_id")).toEqual(new Set(files));
  expect(await filesWithCompleteColumn(duck, [], "payer_bucket")).toEqual(new Set());
});

test("a merge knows whether any of its parts has the column", async () => {
  expect(await anyFileHasColumn(duck, [part("without")], "payer_bucket")).toBe(false);
  expect(await anyFileHasColumn(duck, [part("without"), part("one-null")], "payer_bucket")).toBe(true);
  expect(await anyFileHasColumn(duck, [], "payer_bucket")).toBe(false);
});
