// Every DuckDB instance of a process spills into a directory of its own (DuckDB names its spill
// files alike, so two instances spilling into one directory overwrite each other's: a soak under a
// small DUCKDB_MEMORY_LIMIT failed resolve runs with "Could not read enough bytes from file
// duckdb_temp_storage…"), and spill directories of processes that are gone are removed at start.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { silentLogger } from "../../src/shared/logger";
import { testContext } from "../helpers/context";

test("each instance its own spill directory under the ceiling; dead processes' directories go", async () => {
  const ctx = await testContext({ DUCKDB_MEMORY_LIMIT: "64MB" });
  try {
    const jobs = ctx.duckOptions("jobs");
    const tables = ctx.duckOptions("tables-7");
    expect(jobs.memory_limit).toBe("64MB");
    expect(jobs.temp_directory).not.toBe(tables.temp_directory);
    expect(jobs.temp_directory.startsWith(ctx.paths.duckTemp)).toBe(true);
    // The jobs instance really runs under it: a sort of more than 64 MB completes by spilling.
    const [row] = await ctx.duck.all<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT md5(range::VARCHAR) AS s FROM range(2000000) ORDER BY s)",
    );
    expect(row.n).toBe(2_000_000);

    const dead = join(ctx.paths.duckTemp, `${hostname()}-2147483646-jobs`); // no such process here
    const live = join(ctx.paths.duckTemp, `${hostname()}-${process.pid}-reader-3`);
    const elsewhere = join(ctx.paths.duckTemp, "another-host-2147483646-jobs"); // a shared data directory
    for (const dir of [dead, live, elsewhere]) mkdirSync(dir, { recursive: true });
    const again = await createContext(
      loadConfig({ TXRAY_DATA_DIR: ctx.paths.root, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" }),
      { logger: silentLogger },
    );
    again.close();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(elsewhere)).toBe(true);
  } finally {
    ctx.dispose();
  }
}, 60_000);
