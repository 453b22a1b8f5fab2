// A txray context over a fresh temp data directory, silent, for tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createContext, type Context } from "../../src/context";
import { silentLogger } from "../../src/shared/logger";

export async function testContext(env: Record<string, string> = {}): Promise<Context & { dispose(): void }> {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-test-"));
  const config = loadConfig({ TXRAY_DATA_DIR: dataDir, TXRAY_SCHEDULER: "off", TXRAY_LOG_LEVEL: "silent", API_HOST: "127.0.0.1", API_PORT: "0", ...env });
  const ctx = await createContext(config, { logger: silentLogger });
  return Object.assign(ctx, {
    dispose() {
      ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}
