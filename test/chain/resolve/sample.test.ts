// The success sample is a contract (docs/lake.md, "The success sample"): anyone recomputes it from
// the lake with DuckDB's sha256() — the first 8 hex digits of sha256(attempt_id) as an unsigned
// integer over 2^32. The resolver's samplePoint must give exactly that for every id.
import { expect, test } from "bun:test";
import { inSuccessSample, samplePoint } from "../../../src/chain/resolve/sample";
import { openDuck } from "../../../src/lake/duckdb";

test("samplePoint is DuckDB's sha256 reading of the attempt id, for every id", async () => {
  const ids = Array.from({ length: 2_000 }, (_, i) =>
    i % 3 === 0 ? crypto.randomUUID() : `${i}-é-${Math.random().toString(36).slice(2)}`,
  );
  const duck = await openDuck();
  try {
    const rows = await duck.all<{ id: string; point: number }>(
      `SELECT id, ('0x' || left(sha256(id), 8))::UBIGINT / 4294967296 AS point FROM (SELECT unnest([${ids.map((id) => `'${id}'`).join(", ")}]) AS id)`,
    );
    expect(rows.length).toBe(ids.length);
    for (const row of rows) expect(samplePoint(row.id)).toBe(Number(row.point));
  } finally {
    duck.close();
  }
  expect(ids.filter((id) => inSuccessSample(id, 1)).length).toBe(ids.length);
  const sampled = ids.filter((id) => inSuccessSample(id, 1 / 32)).length;
  expect(sampled).toBeGreaterThan(20);
  expect(sampled).toBeLessThan(120);
});
