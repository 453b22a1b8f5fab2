// `bun run start`: ingest + read server + scheduler on API_PORT, data under TXRAY_DATA_DIR.

import { ConfigError, loadConfig } from "./config";
import { createContext } from "./context";
import { ControlPlaneError } from "./control";
import { startServer } from "./server";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`txray: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
let ctx;
try {
  ctx = await createContext(config);
} catch (error) {
  if (!(error instanceof ControlPlaneError)) throw error;
  console.error(`txray: TXRAY_CONTROL_URL: ${error.message}`); // a wrong or unreachable PostgreSQL stops start-up here
  process.exit(2);
}
const server = await startServer(ctx);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    ctx.logger.info("stopping", { signal });
    await server.stop();
    ctx.close();
    process.exit(0);
  });
}
// Announced once the signal handlers are in place, so a stop right after start is a clean one.
ctx.logger.info("txray listening", { url: server.url, dataDir: config.dataDir, scheduler: config.TXRAY_SCHEDULER, roles: config.TXRAY_ROLES, node: config.TXRAY_NODE_ID });
