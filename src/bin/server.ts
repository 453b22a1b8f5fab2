// `bun run start`: ingest + read server + scheduler on API_PORT, data under TXRAY_DATA_DIR.
// SIGTERM / SIGINT: graceful shutdown (RunningServer.stop), bounded by SHUTDOWN_TIMEOUT_MS; the
// process exits 0 when everything finished, 1 when the deadline forced it. One server per port and per
// data directory and node (src/server/single-instance.ts): a second one exits 1 with one line saying why.

import { type Config, ConfigError, loadConfig } from "../config";
import { type Context, createContext } from "../context";
import { ControlPlaneError } from "../control";
import {
  PortInUseError,
  type RunningServer,
  type ServerLock,
  ServerLockedError,
  startServer,
  takeServerLock,
} from "../server";
import { BUILD, NewerDataError, VERSION } from "../shared/version";

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`txray: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
const lock = lockDataDirectory(config);
// Whatever way the process ends; a kill -9 leaves the file, which the next start finds stale.
process.on("exit", () => lock.release());
let ctx: Context;
try {
  ctx = await createContext(config);
} catch (error) {
  if (error instanceof NewerDataError) {
    console.error(`txray: ${error.message}`); // an older binary on an upgraded data directory stops here
    process.exit(1);
  }
  if (!(error instanceof ControlPlaneError)) throw error;
  console.error(`txray: TXRAY_CONTROL_URL: ${error.message}`); // a wrong or unreachable PostgreSQL stops start-up here
  process.exit(2);
}
// Jobs run where RESOLVE_THREAD, TABLES_PROCESS and COMPACT_PROCESS put them (this process made its own logger and
// clock).
const server = await startOrExit(ctx);
lock.setPort(server.port);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    ctx.logger.info("stopping", { signal });
    const force = setTimeout(() => {
      ctx.logger.error("shutdown did not finish in time; exiting anyway", { timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS + 2000);
    try {
      await server.stop();
    } catch (error) {
      ctx.logger.error("shutdown step failed; exiting (whatever was cut short is recovered at the next start)", {
        error: String(error),
      });
      process.exit(1);
    }
    clearTimeout(force);
    ctx.close();
    lock.release();
    ctx.logger.info("stopped", { signal });
    process.exit(0);
  });
}
// Announced once the signal handlers are in place, so a stop right after start is a clean one.
// threadPool: Bun's pool for DuckDB's queries and file syncs (UV_THREADPOOL_SIZE, set by `bun run start`;
// docs/operations.md, "The thread pool"); null: Bun's default, one thread per core.
const threadPool = Number(process.env.UV_THREADPOOL_SIZE) || null;
ctx.logger.info("txray listening", {
  url: server.url,
  dataDir: config.dataDir,
  scheduler: config.TXRAY_SCHEDULER,
  roles: config.TXRAY_ROLES,
  node: config.TXRAY_NODE_ID,
  threadPool,
  version: VERSION,
  build: BUILD,
});

/** The data directory's lock for this node, or exit 1 with one line when a live server holds it. */
function lockDataDirectory(config: Config): ServerLock {
  try {
    return takeServerLock(config.dataDir, config.TXRAY_NODE_ID, config.API_PORT || null);
  } catch (error) {
    if (!(error instanceof ServerLockedError)) throw error;
    console.error(`txray: ${error.message}`);
    process.exit(1);
  }
}

/** The running server, or exit 1 with one line when its port is taken. */
async function startOrExit(ctx: Context): Promise<RunningServer> {
  try {
    return await startServer(ctx, { hostedRuns: true });
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    console.error(`txray: ${error.message}`);
    ctx.close();
    process.exit(1);
  }
}
