// Starts txray in one process: the serving reader, the spool and ingest workers, the HTTP app
// (ingest + read routes) and, unless disabled, the job scheduler, as one ordered list of components
// (src/context/components.ts). Used by `bun run start` and by tests (on a free loopback port).
// TXRAY_ROLES picks which of them this process runs (src/config/roles.ts); status is always served.
//
// stop() is the graceful shutdown (SIGTERM, src/bin/server.ts): from its first moment every new request
// gets 503 unavailable with Retry-After (so nothing is acknowledged that could then be lost) and the
// running jobs are asked to end at a safe point; the jobs end, the requests already in flight finish
// (an ingest batch gets its 202 once its group commit is durable), then the listener closes and the
// spool seals its segment. Each wait is bounded by SHUTDOWN_TIMEOUT_MS; whatever is cut short is
// safe, as after a kill -9.

import { httpOrigin, LISTENING_ADDRESS } from "../alerts";
import { servingReaderComponent } from "../analytics/serving/reader";
import { createApp } from "../api/app";
import { errorResponse } from "../api/http";
import { parseRoles } from "../config";
import { type Component, type Context, settlesBy, startComponents } from "../context";
import { buildNativeEncoder, loadNativeEncoder, type NativeEncoder } from "../ingest/native";
import { IngestWorkers, ingestWorkerCount } from "../ingest/workers";
import { schedule, schedulerComponent } from "../jobs";
import { TxrayError } from "../shared/errors";
import { Spool, startSealResponder } from "../spool";
import { PortInUseError } from "./single-instance";
import { stoppedTogether } from "./stop-together";

export {
  PortInUseError,
  type ServerLock,
  ServerLockedError,
  type ServerLockHolder,
  takeServerLock,
} from "./single-instance";

/** `spool` is null on a node without the ingest role. */
export type RunningServer = {
  url: string;
  port: number;
  spool: Spool | null;
  stop(options?: { timeoutMs?: number }): Promise<void>;
};

export type ServerOptions = {
  port?: number;
  hostname?: string;
  /** Run the job scheduler (default: TXRAY_SCHEDULER=on and the jobs role). */
  scheduler?: boolean;
  /**
   * Jobs may run where RESOLVE_THREAD, TABLES_PROCESS and COMPACT_PROCESS put them (a thread, a
   * child process), each with a context of its own made from the config. Off (the default), every
   * job runs on this thread with this context: a test's injected clock and logger stay in effect.
   */
  hostedRuns?: boolean;
};

export async function startServer(ctx: Context, options: ServerOptions = {}): Promise<RunningServer> {
  const { components, http, ingest } = serverComponents(ctx, options);
  const running = await startComponents(components, {
    logger: ctx.logger,
    stopTimeoutMs: ctx.config.SHUTDOWN_TIMEOUT_MS,
  });
  return {
    url: http.url,
    port: http.port,
    spool: ingest?.spool ?? null,
    stop: ({ timeoutMs = ctx.config.SHUTDOWN_TIMEOUT_MS } = {}) => running.stop(timeoutMs),
  };
}

/**
 * The server's components in start order (stopped in reverse): the serving reader, ingest (when the
 * role allows it), the HTTP server and the scheduler (when it runs), which stop together.
 */
export function serverComponents(ctx: Context, options: ServerOptions = {}) {
  const roles = parseRoles(ctx.config.TXRAY_ROLES);
  const ingest = roles.allows("ingest") ? ingestComponent(ctx) : null;
  const http = httpComponent(ctx, ingest, options);
  const runScheduler = options.scheduler ?? (ctx.config.TXRAY_SCHEDULER === "on" && roles.allows("jobs"));
  const scheduler = runScheduler
    ? schedulerComponent(ctx, schedule(ctx.config, { hostedRuns: options.hostedRuns === true }), {
        spool: ingest?.spool,
      })
    : null;
  // The scheduler's wait for its jobs and the HTTP server's for its requests run at once at shutdown.
  const components: Component[] = [
    servingReaderComponent(ctx),
    ...(ingest ? [ingest] : []),
    scheduler ? stoppedTogether([http, scheduler], ctx.config.SHUTDOWN_TIMEOUT_MS) : http,
  ];
  return { components, http, ingest };
}

type IngestComponent = Component & {
  readonly spool: Spool;
  readonly workers: IngestWorkers | undefined;
  readonly native: NativeEncoder | null;
};

/** The ingest role's parts: the spool, the seal responder and the worker threads that prepare batches. */
function ingestComponent(ctx: Context): IngestComponent {
  const spool = new Spool({
    dir: ctx.paths.spool(ctx.config.TXRAY_NODE_ID),
    nodeId: ctx.config.TXRAY_NODE_ID,
    sealAfterMs: ctx.config.SPOOL_SEAL_MS,
    maxSegmentBytes: ctx.config.SPOOL_SEGMENT_MAX_BYTES,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  let sealResponder: { stop(): void } | null = null;
  let workers: IngestWorkers | undefined;
  let native: NativeEncoder | null = null;
  return {
    name: "ingest",
    spool,
    get workers() {
      return workers;
    },
    get native() {
      return native;
    },
    start() {
      spool.open();
      // Jobs started in other processes ask this node to seal its active segment (docs/lake.md). Liveness
      // is wall-clock time shared with other processes, hence Date.now rather than the context clock.
      sealResponder = startSealResponder({
        control: ctx.control,
        spool,
        nodeId: ctx.config.TXRAY_NODE_ID,
        rpcUrl: ctx.config.SOLANA_RPC_URL,
        clock: Date.now,
        logger: ctx.logger,
      });
      let useNative = ctx.config.INGEST_NATIVE === "on";
      if (useNative) {
        const problem = buildNativeEncoder();
        if (problem) {
          ctx.logger.warn("native ingest fast path unavailable; using JavaScript only", { reason: problem });
          useNative = false;
        }
      }
      const workerCount = ingestWorkerCount(ctx.config.INGEST_WORKERS);
      workers =
        workerCount > 0
          ? new IngestWorkers(
              workerCount,
              {
                controlDbPath: ctx.paths.controlDb,
                controlUrl: ctx.config.TXRAY_CONTROL_URL,
                maxBatch: ctx.config.INGEST_MAX_BATCH,
                native: useNative,
              },
              ctx.logger,
            )
          : undefined;
      native = useNative && !workers ? loadNativeEncoder() : null;
    },
    async stop(deadline) {
      workers?.close();
      await settlesBy(spool.close(), deadline + 1000);
      sealResponder?.stop();
    },
  };
}

type HttpComponent = Component & { readonly url: string; readonly port: number };

/** The HTTP app on its listener; draining answers every new request 503 while those in flight finish. */
function httpComponent(ctx: Context, ingest: IngestComponent | null, options: ServerOptions): HttpComponent {
  let draining = false;
  let server: NonNullable<ReturnType<typeof createApp>["server"]> | null = null;
  return {
    name: "http",
    get url() {
      return `http://${server!.hostname}:${server!.port}`;
    },
    get port() {
      return server!.port!;
    },
    start() {
      const app = createApp({
        ctx,
        spool: ingest?.spool ?? null,
        ingestWorkers: ingest?.workers,
        native: ingest?.native ?? null,
      });
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
      const port = options.port ?? ctx.config.API_PORT;
      const hostname = options.hostname ?? ctx.config.API_HOST;
      try {
        app.listen({
          port,
          hostname,
          // Never shared (Elysia asks Bun for SO_REUSEPORT unless told not to): a taken port fails the start.
          reusePort: false,
          // No limit at this layer: Bun's own refusal is a 413 with an empty body. Every route that reads a
          // body bounds it and answers 413 with the error shape (shared/bounded-body.ts), and the app
          // refuses a declared size above every route's limit before routing (api/app.ts).
          maxRequestBodySize: Number.MAX_SAFE_INTEGER,
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new PortInUseError(port, hostname);
        throw error;
      }
      server = app.server!;
      // Alert links point here unless TXRAY_PUBLIC_URL says otherwise: the bound port, even when 0 was asked.
      ctx.own(LISTENING_ADDRESS).url = httpOrigin(server.hostname!, server.port!);
    },
    drain() {
      draining = true;
    },
    async stop(deadline) {
      const listener = server!;
      while (listener.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(5);
      if (listener.pendingRequests > 0)
        ctx.logger.warn("shutdown: requests still in flight at the deadline are cut", {
          requests: listener.pendingRequests,
        });
      await listener.stop(true);
    },
  };
}
