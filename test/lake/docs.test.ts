// docs/lake.md is the data teams' contract: every column of src/lake/schema.ts, with its type,
// must be documented there, and nothing documented may be missing from the schema.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DATASETS, LAKE_VERSION } from "../../src/lake/schema";

const docs = readFileSync(join(import.meta.dir, "..", "..", "docs", "lake.md"), "utf8");

test("documents the layout version", () => {
  expect(docs).toContain(`layout version ${LAKE_VERSION}`);
});

for (const [name, dataset] of Object.entries(DATASETS)) {
  test(`documents every ${name} column with its type`, () => {
    const section = docs.split(`\n## ${name}\n`)[1]?.split("\n## ")[0];
    expect(section).toBeDefined();
    const rows = [...section!.matchAll(/^\| ([a-z_]+) \| ([A-Z[\]]+) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(dataset.columns.map((c) => [c.name, c.type]));
  });
}
