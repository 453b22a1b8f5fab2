// The HTTP surface (Elysia): ingest, the read routes, status, metrics and health. Handlers are thin: each parses its
// inputs, calls one function of the query layer and renders the answer; errors become docs/api.md#errors
// bodies in one place. createApp takes everything it needs, so tests call it in-process with
// app.handle(request) or serve it on a free loopback port.

import { Elysia } from "elysia";
import { publicRequestCost } from "../analytics/queries";
import { parseRoles } from "../config";
import type { Context } from "../context";
import {
  bearerTokenMatches,
  chainAccess,
  duckdbMemoryBytes,
  METRICS_CONTENT_TYPE,
  metricsText,
  readiness,
  SERVER_METRICS,
  serviceStatus,
} from "../contract";
import { PrincipalCache, ProgramQuota } from "../control";
import type { NativeEncoder } from "../ingest/native";
import { prepareBatch } from "../ingest/prepare";
import type { IngestWorkers } from "../ingest/workers";
import { MCP_MAX_BODY_BYTES } from "../mcp";
import { tooLarge } from "../shared/bounded-body";
import { TxrayError } from "../shared/errors";
import { clientIdOf, forwardedClient } from "../shared/ip-address";
import { TokenBuckets } from "../shared/token-buckets";
import { metered, type WorkMeter } from "../shared/work-meter";
import type { Spool } from "../spool";
import { ingestPreflight, withIngestCors } from "./cors";
import { errorResponse, json } from "./http";
import { alertRoutes } from "./routes/alerts";
import { analyticsRoutes, issueRoutes } from "./routes/analytics";
import { handleIngest, type IngestDeps } from "./routes/ingest";
import { listPrograms } from "./routes/programs";
import { mountSurfaces, type SurfaceOptions } from "./surfaces";
import {
  ASSET_PREFIX,
  assetResponse,
  FAVICON_PATH,
  faviconResponse,
  LANDING_SCORE_PREFIX,
  landingScoreResponse,
  PAGE_PATHS,
  pageResponse,
} from "./web";

/**
 * `ingestWorkers`: prepare ingest batches on worker threads; without it they are prepared in-process,
 * with the native fast path `native` when given. `spool` is null on a node without the ingest role.
 */
export type AppDeps = {
  ctx: Context;
  spool: Spool | null;
  ingestWorkers?: IngestWorkers;
  native?: NativeEncoder | null;
  chat?: SurfaceOptions["chat"];
};

export function createApp({ ctx, spool, ingestWorkers, native, chat: chatOptions }: AppDeps) {
  const { config } = ctx;
  // TXRAY_ROLES: each group of routes is registered only on nodes with its role (status on every node).
  const roles = parseRoles(config.TXRAY_ROLES);
  const allows = roles.allows;
  const ingestBuckets = new TokenBuckets(config.INGEST_BURST, config.INGEST_RATE_PER_SECOND, ctx.clock);
  const publicBuckets = new TokenBuckets(config.PUBLIC_RATE_PER_MINUTE, config.PUBLIC_RATE_PER_MINUTE / 60, ctx.clock);
  const principals = new PrincipalCache(ctx.control, 2000, ctx.clock);
  const inProcess = { principal: (key: string) => principals.get(key), maxBatch: config.INGEST_MAX_BATCH, native };
  const ingestDeps: IngestDeps = {
    prepare: ingestWorkers
      ? (request) => ingestWorkers.prepare(request)
      : (request) => prepareBatch(request, inProcess),
    spool: spool!,
    buckets: ingestBuckets,
    unauthenticated: new TokenBuckets(
      config.INGEST_UNAUTHENTICATED_PER_MINUTE,
      config.INGEST_UNAUTHENTICATED_PER_MINUTE / 60,
      ctx.clock,
    ),
    principal: inProcess.principal,
    quota: new ProgramQuota(ctx.control, config.ACCOUNT_PROGRAMS_PER_DAY),
    clock: ctx.clock,
    maxBodyBytes: config.INGEST_MAX_BODY_BYTES,
  };

  // Who a per-client limit counts (docs/security.md, "Client identity"): the address the outermost trusted proxy saw,
  // read from the right of its header, else the socket's peer; an IPv6 client counted by its /64.
  const proxyHops = config.TRUSTED_PROXY_HOPS ?? (config.TRUSTED_PROXY_HEADER ? 1 : 0);
  const proxyHeader = config.TRUSTED_PROXY_HEADER ?? "x-forwarded-for";
  const clientIp = (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) => {
    const forwarded = forwardedClient(request.headers.get(proxyHeader), proxyHops);
    if (forwarded) return forwarded;
    const peer = server?.requestIP(request)?.address;
    return peer ? (clientIdOf(peer) ?? peer) : "unknown";
  };

  /**
   * Wraps a public handler in the per-IP rate limit: a 429 at once when the client's budget is spent,
   * else the handler's response (errors in the shape of docs/api.md#errors) with the RateLimit headers.
   */
  const limited =
    (handler: (request: Request, params: Record<string, string>, client: string) => Promise<Response> | Response) =>
    async ({
      request,
      server,
      params,
    }: {
      request: Request;
      server: Parameters<typeof clientIp>[1];
      params?: Record<string, string>;
    }) => {
      const client = clientIp(request, server);
      const rate = publicBuckets.take(
        client,
        await publicRequestCost(ctx, new URL(request.url), config.PUBLIC_LAKE_READ_COST),
      );
      if (!rate.allowed)
        return errorResponse(
          new TxrayError("rate_limited", `rate limit exceeded; retry in ${rate.retryAfterSeconds}s`, {
            retryAfterSeconds: rate.retryAfterSeconds,
          }),
          ctx.logger,
          rate.headers,
        );
      // Work found out only once done (a bot's wallet page) is charged after it: later requests wait.
      const meter: WorkMeter = { ms: 0 };
      try {
        const response = await metered(meter, () => handler(request, params ?? {}, client));
        for (const [name, value] of Object.entries(rate.headers)) response.headers.set(name, value);
        return response;
      } catch (error) {
        return errorResponse(error, ctx.logger, rate.headers);
      } finally {
        publicBuckets.charge(client, Math.floor(meter.ms / config.PUBLIC_WORK_MS));
      }
    };
  /** A JSON read route: rate limited, path segments checked, the answer as JSON. */
  const read = (
    handler: (request: Request, url: URL, params: Record<string, string>, client: string) => unknown | Promise<unknown>,
  ) =>
    limited(async (request, params, client) => {
      // Elysia hands over null for a path segment that is not valid percent-encoding (found by the fuzzer).
      const undecodable = Object.entries(params).find(([, value]) => typeof value !== "string");
      if (undecodable) throw new TxrayError("bad_request", `${undecodable[0]}: invalid percent-encoding in the path`);
      return json(await handler(request, new URL(request.url), params, client), 200);
    });
  const chain = chainAccess(ctx);

  // Request timing for /metrics and the access log: when each request arrived, its id, and the status of the ones an
  // error hook answered.
  const metrics = ctx.own(SERVER_METRICS);
  const arrivedAt = new WeakMap<Request, number>();
  const requestIds = new WeakMap<Request, string>();
  const errorStatus = new WeakMap<Request, number>();
  const accessLog = config.TXRAY_ACCESS_LOG === "on";
  const timed = (request: Request, route: string | undefined, status: number) => {
    const start = arrivedAt.get(request);
    if (start === undefined) return;
    const seconds = (performance.now() - start) / 1000;
    metrics.requestAnswered(request.method, route ?? "unmatched", status, seconds);
    // The route's pattern, never the URL: a path or query string may carry a key or a user's address.
    if (accessLog)
      ctx.logger.info("request", {
        method: request.method,
        route: route ?? "unmatched",
        status,
        durationMs: Math.round(seconds * 100_000) / 100,
        requestId: requestIds.get(request),
      });
  };
  /** The operator's routes: never rate limited; /metrics asks for METRICS_TOKEN when it is set. */
  const metricsToken = config.METRICS_TOKEN;
  const operatorRoute =
    (answer: (request: Request) => Response | Promise<Response>) => async (input: { request: Request }) => {
      try {
        return await answer(input.request);
      } catch (error) {
        return errorResponse(error, ctx.logger);
      }
    };

  // A declared body above every route's limit is refused before routing, whatever the path or
  // method (src/server/index.ts sets no limit at Bun's layer: its 413 would have no body).
  const bodyCeiling = Math.max(config.INGEST_MAX_BODY_BYTES, MCP_MAX_BODY_BYTES);
  const app = new Elysia()
    .onRequest(({ request, set }) => {
      arrivedAt.set(request, performance.now());
      const requestId = requestIdOf(request);
      requestIds.set(request, requestId);
      set.headers["x-request-id"] = requestId;
      const declared = request.headers.get("content-length");
      if (declared !== null && Number(declared) > bodyCeiling) {
        timed(request, undefined, 413);
        metrics.refusedBeforeRouting(request, 413);
        return errorResponse(tooLarge(bodyCeiling), ctx.logger, { connection: "close", "x-request-id": requestId });
      }
    })
    .onError(({ code, error, request }) => {
      let response: Response;
      if (code === "NOT_FOUND") {
        const node = roles.list.length < 3 ? ` on this node (TXRAY_ROLES=${roles.list.join(",")})` : "";
        response = errorResponse(new TxrayError("not_found", `no such route${node}`), ctx.logger);
      } else response = errorResponse(error, ctx.logger);
      errorStatus.set(request, response.status);
      return response;
    })
    .onAfterResponse(({ request, route, responseValue, set }) => {
      const status =
        responseValue instanceof Response
          ? responseValue.status
          : (errorStatus.get(request) ?? (typeof set.status === "number" ? set.status : 200));
      timed(request, route, status);
    })
    .get(
      "/v1/status",
      read(() => serviceStatus(ctx, spool)),
    )
    .get(
      "/metrics",
      operatorRoute(async (request) => {
        if (metricsToken !== undefined) {
          if (!bearerTokenMatches(request.headers.get("authorization"), metricsToken))
            return errorResponse(
              new TxrayError("unauthorized", "GET /metrics needs the METRICS_TOKEN bearer token"),
              ctx.logger,
              { "www-authenticate": 'Bearer realm="metrics"' },
            );
        }
        return new Response(metricsText(ctx, spool, { duckdbBytes: await duckdbMemoryBytes(ctx) }), {
          headers: { "content-type": METRICS_CONTENT_TYPE },
        });
      }),
    )
    .get(
      "/healthz",
      operatorRoute(() => json({ ok: true }, 200)),
    )
    .get(
      "/readyz",
      operatorRoute(() => {
        const ready = readiness(ctx);
        if (ready.ready) return json({ ok: true }, 200);
        return errorResponse(
          new TxrayError("unavailable", `not ready: ${ready.reasons.join("; ")}`, { retryAfterSeconds: 5 }),
          ctx.logger,
        );
      }),
    );
  // Elysia registers routes on the instance itself; the returned (re-typed) value is the same app.
  if (allows("ingest") && spool) {
    app.post(
      "/v1/ingest",
      async ({ request, server }) => {
        let response: Response;
        let accepted = 0;
        try {
          ({ response, accepted } = await handleIngest(request, ingestDeps, clientIp(request, server)));
        } catch (error) {
          response = errorResponse(error, ctx.logger);
        }
        metrics.ingestAnswered(response.status, accepted);
        return withIngestCors(response);
      },
      { parse: "none" },
    );
    app.options("/v1/ingest", () => ingestPreflight());
  }
  if (allows("read")) {
    app.get(
      "/v1/programs",
      read((request, url) => listPrograms(ctx, request, url)),
    );
    // Alert rules (docs/alerts.md): an account key's, never public.
    const alerts = alertRoutes(ctx);
    app
      .post(
        "/v1/alerts",
        limited((request) => alerts.create(request)),
        { parse: "none" },
      )
      .get(
        "/v1/alerts",
        limited((request) => alerts.list(request)),
      )
      .delete(
        "/v1/alerts/:id",
        limited((request, params) => alerts.remove(request, params)),
        { parse: "none" },
      )
      .post(
        "/v1/alerts/:id/test",
        limited((request, params) => alerts.test(request, params)),
        { parse: "none" },
      );
    // Issue triage (docs/api.md#issue-states): an account key's, never public.
    const issues = issueRoutes(ctx);
    app.get("/v1/issues/:program", read(issues.list)).get("/v1/issue/:fingerprint/state", read(issues.state));
    app.post("/v1/issue/:fingerprint/state", limited(issues.change), { parse: "none" });
    // why, diagnose-drop, the analytical routes and the ecosystem: the question table (src/contract).
    for (const route of analyticsRoutes(ctx, chain)) app.get(route.path, read(route.handler));

    // MCP (/mcp), Slack (/chat/slack), /openapi.json and /docs: the same questions, same rate limit.
    mountSurfaces(app, { questions: { ctx, chain, spool }, limited, chat: chatOptions });

    // Web app (src/web): its pages and assets (the overview it reads, /v1/ecosystem, is a question).
    // Only these fixed paths: /v1, /mcp, /chat, /openapi.json and /docs stay with their own routes.
    const notFound = () => errorResponse(new TxrayError("not_found", "no such route"), ctx.logger);
    const web = async (serve: () => Promise<Response | null>) => {
      try {
        return (await serve()) ?? notFound();
      } catch (error) {
        return errorResponse(error, ctx.logger);
      }
    };
    for (const path of PAGE_PATHS) app.get(path, ({ request }) => web(() => pageResponse(request)));
    app.get(`${ASSET_PREFIX}:name`, ({ request, params }) => web(() => assetResponse(request, params.name)));
    for (const path of [FAVICON_PATH, "/favicon.ico"])
      app.get(path, ({ request }) => web(() => faviconResponse(request)));
    // The published Landing Score. Its page links its files relatively, so /landing-score (which
    // Elysia routes here too) is sent to /landing-score/.
    app.get(LANDING_SCORE_PREFIX, ({ request }) =>
      new URL(request.url).pathname.endsWith("/")
        ? web(() => landingScoreResponse(config.snapshotsDir, ""))
        : new Response(null, { status: 308, headers: { location: LANDING_SCORE_PREFIX } }),
    );
    app.get(`${LANDING_SCORE_PREFIX}:name`, ({ params }) =>
      web(() => landingScoreResponse(config.snapshotsDir, params.name)),
    );
  }
  return app;
}

export type App = ReturnType<typeof createApp>;

/** A request id a client or proxy may choose: short, and only characters safe in a header and a log line. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The request's X-Request-Id when it is a safe token (a proxy's id follows the request through), else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}
