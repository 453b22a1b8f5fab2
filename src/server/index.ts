// Starts txray in one process: the spool, the HTTP app (ingest + read routes) and, unless disabled,
// the job scheduler. Used by `bun run start` and by tests (on a free loopback port). TXRAY_ROLES
// picks which of the three this process runs (src/config/roles.ts); status is always served.
//
// stop() is the graceful shutdown (SIGTERM, src/bin/server.ts): from its first moment every new request
// gets 503 unavailable with Retry-After (so nothing is acknowledged that could then be lost); the
// requests already in flight finish (an ingest batch gets its 202 once its group commit is durable);
// the running jobs end at a safe point; then the listener closes and the spool seals its segment.
// Each wait is bounded by SHUTDOWN_TIMEOUT_MS; whatever is cut short is safe, as after a kill -9.

import { closeServingTables } from "../analytics/serving/reader";
import { createApp } from "../api/app";
import { errorResponse } from "../api/http";
import { parseRoles } from "../config";
import type { Context } from "../context";
import { Spool } from "../spool";
import { IngestWorkers, ingestWorkerCount } from "../ingest/workers";
import { buildNativeEncoder, loadNativeEncoder } from "../ingest/native";
import { startSealResponder } from "../spool";
import { startScheduler } from "../jobs";
import { schedule } from "../jobs";
import { TxrayError } from "../shared/errors";

/** `spool` is null on a node without the ingest role. */
export type RunningServer = {
  url: string;
  port: number;
  spool: Spool | null;
  stop(options?: { timeoutMs?: number }): Promise<void>;
};

export async function startServer(
  ctx: Context,
  options: { port?: number; hostname?: string; scheduler?: boolean } = {},
): Promise<RunningServer> {
  const roles = parseRoles(ctx.config.TXRAY_ROLES);
  const ingest = roles.allows("ingest") ? startIngest(ctx) : null;
  const spool = ingest?.spool ?? null;
  const app = createApp({ ctx, spool, ingestWorkers: ingest?.workers, native: ingest?.native ?? null });
  let draining = false;
  // A global hook (Elysia runs it before routing, whatever the order of registration).
  app.onRequest(() => {
    if (!draining) return;
    return errorResponse(
      new TxrayError("unavailable", "txray is shutting down; nothing was accepted, retry shortly", {
        retryAfterSeconds: 1,
      }),
      ctx.logger,
      { connection: "close" },
    );
  });
  app.listen({
    port: options.port ?? ctx.config.API_PORT,
    hostname: options.hostname ?? ctx.config.API_HOST,
    // No limit at this layer: Bun's own refusal is a 413 with an empty body. Every route that reads a
    // body bounds it and answers 413 with the error shape (shared/bounded-body.ts), and the app
    // refuses a declared size above every route's limit before routing (api/app.ts).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
  const server = app.server!;
  const runScheduler = options.scheduler ?? (ctx.config.TXRAY_SCHEDULER === "on" && roles.allows("jobs"));
  const scheduler = runScheduler ? startScheduler(ctx, schedule(ctx.config), spool ? { spool } : {}) : null;
  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    spool,
    async stop({ timeoutMs = ctx.config.SHUTDOWN_TIMEOUT_MS } = {}) {
      const deadline = Date.now() + timeoutMs;
      draining = true;
      const jobs = scheduler?.stop();
      while (server.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(5);
      if (server.pendingRequests > 0)
        ctx.logger.warn("shutdown: requests still in flight at the deadline are cut", {
          requests: server.pendingRequests,
        });
      await server.stop(true);
      if (jobs && !(await settlesBy(jobs, deadline)))
        ctx.logger.warn("shutdown: a job did not reach a safe point before the deadline");
      if (ingest) await ingest.stop(deadline);
      closeServingTables(ctx);
    },
  };
}

/** The ingest role's parts: the spool, the seal responder and the worker threads that prepare batches. */
function startIngest(ctx: Context) {
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
  const sealResponder = startSealResponder({
    control: ctx.control,
    spool,
    nodeId: ctx.config.TXRAY_NODE_ID,
    rpcUrl: ctx.config.SOLANA_RPC_URL,
    clock: Date.now,
    logger: ctx.logger,
  });
  let native = ctx.config.INGEST_NATIVE === "on";
  if (native) {
    const problem = buildNativeEncoder();
    if (problem) {
      ctx.logger.warn("native ingest fast path unavailable; using JavaScript only", { reason: problem });
      native = false;
    }
  }
  const workerCount = ingestWorkerCount(ctx.config.INGEST_WORKERS);
  const workers =
    workerCount > 0
      ? new IngestWorkers(
          workerCount,
          {
            controlDbPath: ctx.paths.controlDb,
            controlUrl: ctx.config.TXRAY_CONTROL_URL,
            maxBatch: ctx.config.INGEST_MAX_BATCH,
            native,
          },
          ctx.logger,
        )
      : undefined;
  return {
    spool,
    workers,
    native: native && !workers ? loadNativeEncoder() : null,
    async stop(deadline: number) {
      workers?.close();
      await settlesBy(spool.close(), deadline + 1000);
      sealResponder.stop();
    },
  };
}

/** Whether the promise settled before the deadline (it keeps running either way). */
async function settlesBy(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>(
    (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))),
  );
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
