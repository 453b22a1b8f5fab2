// Starts txray in one process: the spool, the HTTP app (ingest + read routes) and, unless disabled,
// the job scheduler. Used by `bun run start` and by tests (on a free loopback port). TXRAY_ROLES
// picks which of the three this process runs (src/config/roles.ts); status is always served.

import { closeServingTables } from "./analytics/serving/reader";
import { createApp } from "./api/app";
import type { Context } from "./context";
import { Spool } from "./ingest/spool";
import { IngestWorkers, ingestWorkerCount } from "./ingest/workers";
import { buildNativeEncoder, loadNativeEncoder } from "./ingest/native";
import { startScheduler } from "./scheduler";
import { schedule } from "./scheduler/registry";
import { startSealResponder } from "./ingest/seal-responder";

import { parseRoles } from "./config/roles";

/** `spool` is null on a node without the ingest role. */
export type RunningServer = { url: string; port: number; spool: Spool | null; stop(): Promise<void> };

export async function startServer(ctx: Context, options: { port?: number; hostname?: string; scheduler?: boolean } = {}): Promise<RunningServer> {
  const roles = parseRoles(ctx.config.TXRAY_ROLES);
  if (!roles.allows("ingest")) return await startWithoutIngest(ctx, options, roles.allows("jobs"));
  const spool = new Spool({
    dir: ctx.paths.spool(ctx.config.TXRAY_NODE_ID),
    nodeId: ctx.config.TXRAY_NODE_ID,
    sealAfterMs: ctx.config.SPOOL_SEAL_MS,
    maxSegmentBytes: ctx.config.SPOOL_SEGMENT_MAX_BYTES,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  spool.open();
  // Jobs started in other processes ask this node to seal its active segment (docs/lake.md). Liveness
  // is wall-clock time shared with other processes, hence Date.now rather than the context clock.
  const sealResponder = startSealResponder({ control: ctx.control, spool, nodeId: ctx.config.TXRAY_NODE_ID, rpcUrl: ctx.config.SOLANA_RPC_URL, clock: Date.now, logger: ctx.logger });
  let native = ctx.config.INGEST_NATIVE === "on";
  if (native) {
    const problem = buildNativeEncoder();
    if (problem) {
      ctx.logger.warn("native ingest fast path unavailable; using JavaScript only", { reason: problem });
      native = false;
    }
  }
  const workerCount = ingestWorkerCount(ctx.config.INGEST_WORKERS);
  const ingestWorkers = workerCount > 0 ? new IngestWorkers(workerCount, { controlDbPath: ctx.paths.controlDb, controlUrl: ctx.config.TXRAY_CONTROL_URL, maxBatch: ctx.config.INGEST_MAX_BATCH, native }, ctx.logger) : undefined;
  const app = createApp({ ctx, spool, ingestWorkers, native: native && !ingestWorkers ? loadNativeEncoder() : null });
  app.listen({
    port: options.port ?? ctx.config.API_PORT,
    hostname: options.hostname ?? ctx.config.API_HOST,
    // Ingest enforces its own (configurable) limit and answers 413 itself; this is only a backstop.
    maxRequestBodySize: ctx.config.INGEST_MAX_BODY_BYTES * 4,
  });
  const server = app.server!;
  const scheduler = (options.scheduler ?? (ctx.config.TXRAY_SCHEDULER === "on" && roles.allows("jobs"))) ? startScheduler(ctx, schedule(ctx.config), { spool }) : null;
  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    spool,
    async stop() {
      await scheduler?.stop();
      await server.stop(true);
      ingestWorkers?.close();
      await spool.close();
      sealResponder.stop();
      closeServingTables(ctx);
    },
  };
}

/** A read node, a job runner, or both: no spool, no ingest workers. */
async function startWithoutIngest(ctx: Context, options: { port?: number; hostname?: string; scheduler?: boolean }, jobs: boolean): Promise<RunningServer> {
  const app = createApp({ ctx, spool: null });
  app.listen({ port: options.port ?? ctx.config.API_PORT, hostname: options.hostname ?? ctx.config.API_HOST });
  const server = app.server!;
  const scheduler = (options.scheduler ?? (ctx.config.TXRAY_SCHEDULER === "on" && jobs)) ? startScheduler(ctx, schedule(ctx.config), {}) : null;
  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    spool: null,
    async stop() {
      await scheduler?.stop();
      await server.stop(true);
      closeServingTables(ctx);
    },
  };
}
