// readLake: a read that lost a race with compaction's partition swap is made again; anything else
// fails at once. The race's error is the one a 10-minute soak recorded (DuckDB listed a part that
// compaction had swapped away by the time it opened it).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDuck, readLake, sqlString } from "../../src/lake/duckdb";

test("a part that vanished between listing and reading is read again; other errors are not retried", async () => {
  const duck = await openDuck();
  const dir = mkdtempSync(join(tmpdir(), "txray-readlake-"));
  try {
    await duck.run(`COPY (SELECT 1 AS n) TO ${sqlString(join(dir, "a.parquet"))} (FORMAT parquet)`);
    const missing = new Error(
      `IO Error: Cannot open file "${join(dir, "part-node1-1795475443544-91f2b8-0.parquet")}": No such file or directory`,
    );
    let calls = 0;
    const racing = {
      all: async <T>(sql: string): Promise<T[]> => {
        calls++;
        if (calls === 1) throw missing; // the first listing named a part compaction then swapped away
        return duck.all<T>(sql);
      },
    };
    expect(await readLake(racing, `SELECT n FROM read_parquet(${sqlString(join(dir, "*.parquet"))})`)).toEqual([
      { n: 1 },
    ]);
    expect(calls).toBe(2);
    let syntaxCalls = 0;
    const broken = {
      all: async <T>(): Promise<T[]> => {
        syntaxCalls++;
        throw new Error("Parser Error: syntax error");
      },
    };
    await expect(readLake(broken, "SELEC")).rejects.toThrow("Parser Error");
    expect(syntaxCalls).toBe(1);
  } finally {
    duck.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
