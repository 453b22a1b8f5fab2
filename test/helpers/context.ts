// A txray context over a fresh temp data directory, silent, for tests.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { loadConfig } from "../../src/config";
import { type Context, createContext, type Effects } from "../../src/context";
import { silentLogger } from "../../src/shared/logger";
import { type DirectoryFiles, writeDirectory } from "./directory-files";

/**
 * `clock`: the context's clock (default the wall clock), e.g. an advancingClock() a test moves forward.
 * `timers`: the context's timers (default real ones), e.g. a manualTime()'s that fire as the test advances it.
 * `files`: the data directory's contents before the context opens it (default empty).
 */
export async function testContext(
  env: Record<string, string> = {},
  { clock, timers, files }: Pick<Effects, "clock" | "timers"> & { files?: DirectoryFiles } = {},
): Promise<Context & { dispose(): void }> {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-test-"));
  if (files) writeDirectory(dataDir, files);
  const control = await testControlUrl();
  const config = loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_SCHEDULER: "off",
    TXRAY_LOG_LEVEL: "silent",
    API_HOST: "127.0.0.1",
    API_PORT: "0",
    ...control,
    ...env,
  });
  const ctx = await createContext(config, { logger: silentLogger, clock, timers });
  return Object.assign(ctx, {
    dispose() {
      ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/**
 * TXRAY_TEST_POSTGRES_URL=postgres://…/postgres runs the suites built on testContext with the control
 * plane on PostgreSQL: each context gets a fresh database there (e.g.
 * `TXRAY_TEST_POSTGRES_URL=… bun test test/api test/chain/resolve`). Unset: SQLite, as usual.
 */
async function testControlUrl(): Promise<{ TXRAY_CONTROL_URL?: string }> {
  const admin = process.env.TXRAY_TEST_POSTGRES_URL;
  if (!admin) return {};
  const name = `txray_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const sql = new SQL({ url: admin, max: 1 });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.close();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { TXRAY_CONTROL_URL: url.toString() };
}
