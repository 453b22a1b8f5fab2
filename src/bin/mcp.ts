// `bun run mcp`: the MCP tools over stdio for a local client (Claude Desktop, Claude Code, Cursor),
// answering from the same TXRAY_DATA_DIR a txray server writes (serving tables, signature index,
// control database: all read-only here). stdout carries only MCP messages; logs go to stderr.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { servingReaderComponent } from "../analytics/serving/reader";
import { type Config, ConfigError, loadConfig } from "../config";
import { type Component, createContext, startComponents } from "../context";
import { chainAccess } from "../contract";
import { createMcpServer } from "../mcp";
import { NewerDataError } from "../shared/version";

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`txray mcp: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
const ctx = await createContext(config).catch((error: unknown) => {
  if (!(error instanceof NewerDataError)) throw error;
  process.stderr.write(`txray mcp: ${error.message}\n`); // an older binary on an upgraded data directory stops here
  return process.exit(1);
});
const spoolDir = ctx.paths.spool(config.TXRAY_NODE_ID);
/** The spool backlog as the server would report it: its segment files on disk. */
const spool = {
  backlogBytes() {
    try {
      return readdirSync(spoolDir)
        .filter((name) => name.endsWith(".sealed") || name.endsWith(".active"))
        .reduce((sum, name) => sum + statSync(join(spoolDir, name)).size, 0);
    } catch {
      return 0;
    }
  },
};
const server = createMcpServer({ ctx, chain: chainAccess(ctx), spool }, null);
const stdio: Component = {
  name: "mcp stdio",
  start: () => server.connect(new StdioServerTransport()),
  stop: () => server.close(),
};
const running = await startComponents([servingReaderComponent(ctx), stdio], {
  logger: ctx.logger,
  stopTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
ctx.logger.info("txray mcp on stdio", { dataDir: config.dataDir });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await running.stop(config.SHUTDOWN_TIMEOUT_MS);
  ctx.close();
  process.exit(0);
};
process.stdin.on("end", stop);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, stop);
