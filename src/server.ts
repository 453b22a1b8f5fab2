// Starts txray in one process: the spool, the HTTP app (ingest + read routes) and, unless disabled,
// the job scheduler. Used by `bun run start` and by tests (on a free loopback port).
//
// stop() is the graceful shutdown (SIGTERM, src/main.ts): from its first moment every new request
// gets 503 unavailable with Retry-After (so nothing is acknowledged that could then be lost); the
// requests already in flight finish (an ingest batch gets its 202 once its group commit is durable);
// the running jobs end at a safe point; then the listener closes and the spool seals its segment.
// Each wait is bounded by SHUTDOWN_TIMEOUT_MS; whatever is cut short is safe, as after a kill -9.

import { closeServingTables } from "./analytics/serving/reader";
import { createApp } from "./api/app";
import type { Context } from "./context";
import { Spool } from "./ingest/spool";
import { IngestWorkers, ingestWorkerCount } from "./ingest/workers";
import { buildNativeEncoder, loadNativeEncoder } from "./ingest/native";
import { startScheduler } from "./scheduler";
import { schedule } from "./scheduler/registry";
import { errorResponse } from "./api/http";
import { TxrayError } from "./shared/errors";

export type RunningServer = { url: string; port: number; spool: Spool; stop(options?: { timeoutMs?: number }): Promise<void> };

export async function startServer(ctx: Context, options: { port?: number; hostname?: string; scheduler?: boolean } = {}): Promise<RunningServer> {
  const spool = new Spool({
    dir: ctx.paths.spool(ctx.config.TXRAY_NODE_ID),
    nodeId: ctx.config.TXRAY_NODE_ID,
    sealAfterMs: ctx.config.SPOOL_SEAL_MS,
    maxSegmentBytes: ctx.config.SPOOL_SEGMENT_MAX_BYTES,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  spool.open();
  let native = ctx.config.INGEST_NATIVE === "on";
  if (native) {
    const problem = buildNativeEncoder();
    if (problem) {
      ctx.logger.warn("native ingest fast path unavailable; using JavaScript only", { reason: problem });
      native = false;
    }
  }
  const workerCount = ingestWorkerCount(ctx.config.INGEST_WORKERS);
  const ingestWorkers = workerCount > 0 ? new IngestWorkers(workerCount, { controlDbPath: ctx.paths.controlDb, maxBatch: ctx.config.INGEST_MAX_BATCH, native }, ctx.logger) : undefined;
  const app = createApp({ ctx, spool, ingestWorkers, native: native && !ingestWorkers ? loadNativeEncoder() : null });
  let draining = false;
  // A global hook (Elysia runs it before routing, whatever the order of registration).
  app.onRequest(() => {
    if (!draining) return;
    return errorResponse(new TxrayError("unavailable", "txray is shutting down; nothing was accepted, retry shortly", { retryAfterSeconds: 1 }), ctx.logger, { connection: "close" });
  });
  app.listen({
    port: options.port ?? ctx.config.API_PORT,
    hostname: options.hostname ?? ctx.config.API_HOST,
    // Ingest enforces its own (configurable) limit and answers 413 itself; this is only a backstop.
    maxRequestBodySize: ctx.config.INGEST_MAX_BODY_BYTES * 4,
  });
  const server = app.server!;
  const scheduler = (options.scheduler ?? ctx.config.TXRAY_SCHEDULER === "on") ? startScheduler(ctx, schedule(ctx.config), { spool }) : null;
  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    spool,
    async stop({ timeoutMs = ctx.config.SHUTDOWN_TIMEOUT_MS } = {}) {
      const deadline = Date.now() + timeoutMs;
      draining = true;
      const jobs = scheduler?.stop();
      while (server.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(5);
      if (server.pendingRequests > 0) ctx.logger.warn("shutdown: requests still in flight at the deadline are cut", { requests: server.pendingRequests });
      await server.stop(true);
      if (jobs && !(await settlesBy(jobs, deadline))) ctx.logger.warn("shutdown: a job did not reach a safe point before the deadline");
      ingestWorkers?.close();
      await settlesBy(spool.close(), deadline + 1000);
      closeServingTables(ctx);
    },
  };
}

/** Whether the promise settled before the deadline (it keeps running either way). */
async function settlesBy(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
