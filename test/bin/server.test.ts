// Starting the server as the README says (`bun run start`): Bun's thread pool, which runs DuckDB's
// queries and the file syncs of every thread, has 16 threads unless the environment sets
// UV_THREADPOOL_SIZE (docs/operations.md, "The thread pool"). With Bun's default (one per core) a
// long tables build held a 2-core machine's pool and ingest's syncs waited behind it.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD, VERSION } from "../../src/shared/version";
import { startServerProcess } from "../helpers/process";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function started(env: Record<string, string>): Promise<number | null> {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-start-"));
  dirs.push(dataDir);
  const server = await startServerProcess({ TXRAY_DATA_DIR: dataDir, ...env }, { command: ["bun", "run", "start"] });
  try {
    expect((await fetch(`${server.url}/v1/status`)).status).toBe(200);
    const listening = server
      .stderr()
      .split("\n")
      .find((line) => line.includes('"txray listening"'))!;
    const fields = JSON.parse(listening);
    expect(fields.version).toBe(VERSION); // the start-up line names the version and build
    expect(fields.build).toBe(BUILD);
    return fields.threadPool as number | null;
  } finally {
    server.process.kill("SIGTERM");
    expect(await server.process.exited).toBe(0); // `bun run` passes the signal on: a clean stop
  }
}

test("`bun run start` gives Bun's thread pool 16 threads, or what UV_THREADPOOL_SIZE says", async () => {
  expect(await started({ UV_THREADPOOL_SIZE: "" })).toBe(16);
  expect(await started({ UV_THREADPOOL_SIZE: "24" })).toBe(24);
}, 60_000);
