// Duck.columns: the resolver's reads of many rows (intake, the held sends, the retry check's lake
// read) as one array per column. Values are what a plain conversion gives (BIGINT as a number, lists
// as arrays, booleans, null), and a read of more rows than the memory ceiling holds at once still
// completes: an earlier version aggregated the rows into one text inside DuckDB and ran out of the
// ceiling in a soak ("failed to allocate data of size 256.0 MiB").
import { expect, test } from "bun:test";
import { openDuck } from "../../src/lake/duckdb";

test("values come back as plain JavaScript, by column, every row", async () => {
  const duck = await openDuck();
  try {
    const c = await duck.columns<{
      id: number[];
      name: (string | null)[];
      flag: (boolean | null)[];
      logs: (string[] | null)[];
      'odd "name"': number[];
    }>(
      `SELECT i::BIGINT AS id, CASE WHEN i % 2 = 0 THEN 'a"b\\n' || i ELSE NULL END AS name, i % 3 = 0 AS flag,
         CASE WHEN i = 1 THEN ['x', 'y'] ELSE NULL END AS logs, 1795598325192 + i AS "odd ""name"""
       FROM range(5000) t(i) ORDER BY i`,
    );
    expect(Object.keys(c)).toEqual(["id", "name", "flag", "logs", 'odd "name"']);
    expect(c.id.length).toBe(5000);
    expect(c.id.slice(0, 3)).toEqual([0, 1, 2]);
    expect(typeof c.id[4999]).toBe("number");
    expect(c.name.slice(0, 3)).toEqual(['a"b\\n0', null, 'a"b\\n2']);
    expect(c.flag.slice(0, 4)).toEqual([true, false, false, true]);
    expect(c.logs.slice(0, 3)).toEqual([null, ["x", "y"], null]);
    expect(c['odd "name"'][10]).toBe(1795598325202);
    const empty = await duck.columns<{ id: number[] }>("SELECT 1 AS id WHERE false");
    expect(empty).toEqual({ id: [] });
  } finally {
    duck.close();
  }
});

test("a read larger than the memory ceiling completes", async () => {
  const duck = await openDuck(":memory:", { memory_limit: "48MB", threads: "2" });
  try {
    // ~1.5M rows of ~100 bytes: 150 MB of rows, three times the ceiling.
    const c = await duck.columns<{ n: number[]; s: string[] }>(
      "SELECT range AS n, repeat('x', 90) || range AS s FROM range(1500000)",
    );
    expect(c.n.length).toBe(1_500_000);
    expect(new Set(c.s.map((s) => s.length)).size).toBeGreaterThan(1);
  } finally {
    duck.close();
  }
});
