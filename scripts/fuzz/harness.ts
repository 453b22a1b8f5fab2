// The route fuzzer: builds a small real world (temp data dir, generated lake with two accounts,
// serving tables, keys, a loopback JSON-RPC stub standing in for mainnet), then throws hostile
// requests from the route table at it — in-process through app.handle for speed, and as raw bytes
// over a real loopback socket for what a Request object cannot carry (invalid UTF-8 and control
// bytes in the request target and headers). Every answer is judged: never a 5xx, never a thrown
// handler or a dropped connection, and an error body of the documented shape.
// Used by test/security/fuzz.test.ts (fixed seed, a few thousand inputs) and `bun run fuzz`.

import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { buildServingTables } from "../../src/analytics/tables/build";
import { createApp } from "../../src/api/app";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { createAccountKey, revokeKey } from "../../src/control";
import { type RunningServer, startServer } from "../../src/server";
import { ERROR_STATUS } from "../../src/shared/errors";
import { createLogger } from "../../src/shared/logger";
import { createRng, nastyString, type Rng } from "./generate";
import { type Body, type FuzzWorld, paramValue, ROUTES, type RouteSpec } from "./routes";

export type Finding = {
  route: string;
  kind: "5xx" | "crash" | "dropped" | "shape";
  method: string;
  path: string;
  status?: number;
  detail: string;
};
export type FuzzStats = {
  inputs: number;
  fiveXX: number;
  crashes: number;
  dropped: number;
  badShape: number;
  /**
   * Raw requests the HTTP layer itself refused (malformed request line or header bytes), 400 without a body of ours.
   */
  protocolRejects: number;
  rawInputs: number;
  byRoute: Record<string, { inputs: number; statuses: Record<string, number> }>;
  skipped: { route: string; note: string }[];
  internalErrorLogs: number;
  findings: Finding[];
};

export type FuzzHarness = {
  world: FuzzWorld;
  ctx: Context;
  server: RunningServer;
  app: ReturnType<typeof createApp>;
  routes: RouteSpec[];
  skipped: { route: string; note: string }[];
  internalErrorLogs: () => string[];
  close(): Promise<void>;
};

/** A JSON-RPC endpoint that knows no transaction: what mainnet answers for a signature it never saw. */
function startChainStub() {
  const answer = (call: { id: unknown; method: string; params?: unknown[] }) => {
    const params = (call.params ?? []) as unknown[];
    switch (call.method) {
      case "getTransaction":
        return { jsonrpc: "2.0", id: call.id, result: null };
      case "getSignatureStatuses":
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: { context: { slot: 1 }, value: (Array.isArray(params[0]) ? params[0] : []).map(() => null) },
        };
      case "getBlockHeight":
      case "getSlot":
        return { jsonrpc: "2.0", id: call.id, result: 300_000_000 };
      case "getAccountInfo":
        return { jsonrpc: "2.0", id: call.id, result: { context: { slot: 1 }, value: null } };
      default:
        return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } };
    }
  };
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as never;
      return Response.json(Array.isArray(body) ? (body as never[]).map(answer) : answer(body));
    },
  });
}

export async function createFuzzHarness(options: { seed?: number; envelopes?: number } = {}): Promise<FuzzHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-fuzz-"));
  const chain = startChainStub();
  const slackSecret = "fuzz-slack-signing-secret";
  const config = loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_SNAPSHOTS_DIR: join(dataDir, "snapshots"),
    TXRAY_SCHEDULER: "off",
    TXRAY_LOG_LEVEL: "error",
    API_HOST: "127.0.0.1",
    API_PORT: "0",
    SOLANA_RPC_URL: `http://127.0.0.1:${chain.port}`,
    PUBLIC_RATE_PER_MINUTE: "1000000000",
    INGEST_RATE_PER_SECOND: "1000000000",
    INGEST_BURST: "1000000000",
    INGEST_WORKERS: "1",
    SLACK_SIGNING_SECRET: slackSecret,
    // The fuzzed alert rules point at a closed loopback port.
    ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  });
  const errors: string[] = [];
  const logger = createLogger("error", (line) => errors.push(line));
  const ctx = await createContext(config, { logger });
  const now = Date.now();
  const a = createAccountKey(ctx.control, "fuzz-a", "live", now);
  const readA = createAccountKey(ctx.control, "fuzz-a", "read", now);
  const b = createAccountKey(ctx.control, "fuzz-b", "live", now);
  const revoked = createAccountKey(ctx.control, "fuzz-a", "live", now);
  revokeKey(ctx.control, revoked.record.id, now);
  const generated = await generateLake({
    dataDir,
    envelopes: options.envelopes ?? 3000,
    programs: 3,
    days: 30,
    seed: options.seed ?? 1,
    endMs: now,
    accounts: [a.record.accountId, b.record.accountId],
    control: ctx.control,
    threads: 1,
  });
  await buildServingTables(ctx);
  const sample = await ctx.duck.all<{ sig: string | null; payer: string }>(
    `SELECT sig, payer FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}') USING SAMPLE 60 ROWS`,
  );
  const issues = await ctx.duck.all<{ fingerprint: string }>(
    `SELECT DISTINCT fingerprint FROM read_parquet('${ctx.paths.datasetGlob("resolutions")}') WHERE fingerprint IS NOT NULL ORDER BY fingerprint LIMIT 40`,
  );
  const server = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
  const app = createApp({ ctx, spool: server.spool });
  const world: FuzzWorld = {
    programs: generated.programs,
    fingerprints: issues.map((row) => row.fingerprint),
    sigs: sample.map((row) => row.sig).filter((sig): sig is string => sig !== null),
    wallets: [...new Set(sample.map((row) => row.payer))],
    keys: { liveA: a.key, readA: readA.key, liveB: b.key, revoked: revoked.key },
    cursors: [],
    slackSecret,
  };
  world.cursors = await collectCursors(app, world);
  const { routes, skipped } = await probeRoutes(app, world);
  return {
    world,
    ctx,
    server,
    app,
    routes,
    skipped,
    internalErrorLogs: () => errors.filter((line) => line.includes("internal error")),
    async close() {
      await server.stop();
      chain.stop(true);
      ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Real cursors this server issued (wallet pages, programs), so tampering starts from valid ones. */
async function collectCursors(app: FuzzHarness["app"], world: FuzzWorld): Promise<string[]> {
  const cursors: string[] = [];
  const take = async (path: string, headers: Record<string, string> = {}) => {
    const response = await app.handle(new Request(`http://127.0.0.1${path}`, { headers }));
    const body = (await response.json().catch(() => null)) as { nextCursor?: string | null } | null;
    if (body?.nextCursor) cursors.push(body.nextCursor);
  };
  await take("/v1/programs?limit=1", { "x-api-key": world.keys.liveA });
  for (const program of world.programs)
    for (const wallet of world.wallets.slice(0, 10)) await take(`/v1/wallet/${program}/${wallet}?window=30d&limit=1`);
  return cursors;
}

function fill(template: string, world: FuzzWorld): string {
  return template
    .replace("{program}", world.programs[0])
    .replace("{sig}", world.sigs[0] ?? "1".repeat(88))
    .replace("{wallet}", world.wallets[0]);
}

/** Optional routes answering 404 "no such route" are skipped, with their note. */
async function probeRoutes(
  app: FuzzHarness["app"],
  world: FuzzWorld,
): Promise<{ routes: RouteSpec[]; skipped: { route: string; note: string }[] }> {
  const routes: RouteSpec[] = [];
  const skipped: { route: string; note: string }[] = [];
  for (const route of ROUTES) {
    if (!route.optional) {
      routes.push(route);
      continue;
    }
    const path = fill(route.probe ?? route.template, world);
    const init: RequestInit =
      route.method === "POST"
        ? {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: "{}",
          }
        : {};
    const response = await app.handle(new Request(`http://127.0.0.1${path}`, init));
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (response.status === 404 && body?.error?.message === "no such route")
      skipped.push({ route: route.name, note: route.optional });
    else routes.push(route);
  }
  return { routes, skipped };
}

type Input = {
  route: RouteSpec;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Body | null;
  raw: boolean;
  rawTarget?: Uint8Array;
};

/** encodeURIComponent, except that a lone surrogate becomes the bytes of an encoded surrogate (invalid UTF-8). */
function pct(value: string): string {
  return value
    .replace(/[\ud800-\udfff]/g, (c, at: number) => {
      const code = value.charCodeAt(at);
      const paired =
        code < 0xdc00 ? /[\udc00-\udfff]/.test(value[at + 1] ?? "") : /[\ud800-\udbff]/.test(value[at - 1] ?? "");
      return paired ? c : "\u0000LONE";
    })
    .split("\u0000LONE")
    .map((part) => encodeURIComponent(part))
    .join("%ED%A0%80");
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];

function encodeSegment(rng: Rng, value: string): string {
  switch (rng.int(10)) {
    case 0:
    case 1:
      return value; // raw: `/`, `?`, `#`, `..` act as what they are
    case 2:
      return pct(value).replace(/%/g, "%25"); // double-encoded
    case 3:
      return `${rng.pick(["..", "%2e%2e", "..%2F", "%2F", "%00", "."])}/${pct(value)}`;
    default:
      return pct(value);
  }
}

/** One hostile request for a route. */
export function makeInput(rng: Rng, world: FuzzWorld, route: RouteSpec): Input {
  let path = route.template;
  for (const [name, kind] of Object.entries(route.params ?? {}))
    path = path.replace(`{${name}}`, encodeSegment(rng, paramValue(rng, world, kind)));
  const query: string[] = [];
  for (const [name, kind] of Object.entries(route.query ?? {})) {
    if (!rng.chance(0.6)) continue;
    const value = paramValue(rng, world, kind);
    const times = rng.chance(0.08) ? 2 : 1;
    for (let i = 0; i < times; i++) query.push(`${name}=${rng.chance(0.85) ? pct(value) : value}`);
  }
  if (rng.chance(0.15)) query.push(`${pct(nastyString(rng))}=${pct(nastyString(rng))}`);
  if (rng.chance(0.03)) query.push(`x=${"a".repeat(rng.pick([5000, 60_000]))}`);
  if (query.length > 0) path += (rng.chance(0.05) ? "??" : "?") + query.join("&");
  const headers: Record<string, string> = {};
  if (rng.chance(0.4)) {
    const key = rng.pick([
      world.keys.liveA,
      world.keys.readA,
      world.keys.liveB,
      world.keys.revoked,
      `txr_read_${"1".repeat(32)}`,
      nastyString(rng),
    ]);
    if (/^[\x20-\x7e]*$/.test(key) && key.length < 8000) headers["x-api-key"] = key;
  }
  if (rng.chance(0.05)) headers["x-forwarded-for"] = rng.pick(["1.2.3.4", "::1", "not-an-ip", "0.0.0.0, 1.1.1.1"]);
  Object.assign(headers, route.headers?.(rng, world));
  const method = rng.chance(0.92) ? route.method : rng.pick(METHODS);
  const body = route.body && method !== "GET" && method !== "HEAD" ? route.body(rng, world) : null;
  if (body?.headers) Object.assign(headers, body.headers);
  if (body?.contentType) headers["content-type"] = body.contentType;
  const input: Input = { route, method, path, headers, body, raw: rng.chance(0.1) };
  if (input.raw && rng.chance(0.5)) {
    // Bytes no URL object would carry: invalid UTF-8, controls, spaces, in the request target.
    const bytes = Array.from(new TextEncoder().encode(path));
    const at = 1 + rng.int(Math.max(1, bytes.length - 1));
    bytes.splice(
      at,
      0,
      ...rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0x00], [0x7f], [0x20], [0x09], [0xe2, 0x82]]),
    );
    input.rawTarget = Uint8Array.from(bytes);
  }
  return input;
}

type Answer = { status: number; contentType: string; text: string; producedByApp: boolean };

async function sendInProcess(app: FuzzHarness["app"], input: Input): Promise<Answer> {
  const body = input.body ? input.body.bytes : undefined;
  const request = new Request(`http://127.0.0.1${input.path}`, {
    method: input.method,
    headers: input.headers,
    body: body as BodyInit | undefined,
  });
  const response = await app.handle(request);
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
    producedByApp: true,
  };
}

let lastDrop = "";

/** Sends exact bytes over a loopback socket and reads the whole answer (Connection: close). */
function sendRaw(port: number, input: Input, timeoutMs = 30_000): Promise<Answer | null> {
  const bodyBytes = input.body
    ? typeof input.body.bytes === "string"
      ? new TextEncoder().encode(input.body.bytes)
      : input.body.bytes
    : new Uint8Array(0);
  const target = input.rawTarget ?? new TextEncoder().encode(input.path);
  const head = [`${input.method} `, null, ` HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`];
  for (const [name, value] of Object.entries(input.headers)) head.push(`${name}: ${value}\r\n`);
  if (input.body) head.push(`content-length: ${bodyBytes.byteLength}\r\n`);
  head.push("\r\n");
  const chunks = head.map((part) => (part === null ? Buffer.from(target) : Buffer.from(part, "latin1")));
  const request = Buffer.concat([...chunks, Buffer.from(bodyBytes)]);
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      lastDrop = "timeout";
      resolve(null);
    }, timeoutMs);
    // write, not end: a half-closed socket makes the server drop the request (a client that hangs up).
    socket.on("connect", () => socket.write(request));
    socket.on("data", (data) => received.push(Buffer.from(data)));
    socket.on("error", (error) => {
      lastDrop = `socket error ${(error as NodeJS.ErrnoException).code ?? error.message} after ${received.reduce((n, b) => n + b.length, 0)} bytes`;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      lastDrop = "closed without a complete answer";
      resolve(parseRaw(Buffer.concat(received)));
    });
  });
}

function parseRaw(data: Buffer): Answer | null {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = data.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0])?.[1]);
  if (!Number.isInteger(status)) return null;
  const headers = new Map(
    head
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  let body = data.subarray(end + 4);
  if (headers.get("transfer-encoding")?.includes("chunked")) body = dechunk(body);
  const contentType = headers.get("content-type") ?? "";
  return { status, contentType, text: body.toString("utf8"), producedByApp: contentType !== "" };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** What is wrong with an answer, or null. */
export function judge(input: Input, answer: Answer): Finding["kind"] | "protocol" | null {
  if (answer.status >= 500 && answer.producedByApp) return "5xx";
  if (input.method === "HEAD" || (answer.status < 400 && input.route.answer !== "json")) return null;
  // The HTTP parser (not txray) refuses a malformed request line or oversized head: 400/414/431, or
  // 505 when whitespace in the target splits the request line so the version token is not HTTP/1.x.
  if (
    !answer.producedByApp &&
    input.raw &&
    (answer.status < 500 || (answer.status === 505 && splitsRequestLine(input)))
  )
    return "protocol";
  if (answer.status >= 500) return "5xx";
  const kind = input.route.answer;
  let body: unknown;
  try {
    body = answer.text === "" ? undefined : JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  // A target with dot segments is resolved like any URL (`/v1/..` is `/`), so it may land on a web page.
  if (answer.status < 400 && answer.contentType.includes("text/html") && !resolvedPath(input.path).startsWith("/v1/"))
    return null;
  if (answer.status < 400) return kind === "json" && answer.status !== 204 && body === undefined ? "shape" : null;
  if (isErrorShape(body, answer.status) && answer.contentType.includes("application/json")) return null;
  if (kind === "web" && answer.contentType.includes("text/html")) return null;
  if (
    (kind === "mcp" || kind === "slack") &&
    (body !== undefined || answer.text.startsWith("event:") || answer.text.startsWith("data:"))
  )
    return null;
  return "shape";
}

function resolvedPath(path: string): string {
  try {
    return new URL(path, "http://fuzz.invalid").pathname;
  } catch {
    return path;
  }
}

function splitsRequestLine(input: Input): boolean {
  const target = input.rawTarget ?? new TextEncoder().encode(input.path);
  return target.some((byte) => byte < 0x21);
}

function isErrorShape(body: unknown, status: number): boolean {
  if (typeof body !== "object" || body === null) return false;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    typeof code === "string" &&
    typeof message === "string" &&
    message.length > 0 &&
    (ERROR_STATUS as Record<string, number>)[code] === status
  );
}

/** Runs `inputs` hostile requests spread over the routes; calls onProgress every `progressEvery`. */
export async function runFuzz(
  harness: FuzzHarness,
  options: {
    seed: number;
    inputs: number;
    progressEvery?: number;
    onProgress?: (stats: FuzzStats) => void;
    concurrency?: number;
  },
): Promise<FuzzStats> {
  const rng = createRng(options.seed);
  const stats: FuzzStats = {
    inputs: 0,
    fiveXX: 0,
    crashes: 0,
    dropped: 0,
    badShape: 0,
    protocolRejects: 0,
    rawInputs: 0,
    byRoute: {},
    skipped: harness.skipped,
    internalErrorLogs: 0,
    findings: [],
  };
  const record = (input: Input, kind: Finding["kind"], detail: string, status?: number) => {
    if (kind === "5xx") stats.fiveXX++;
    else if (kind === "crash") stats.crashes++;
    else if (kind === "dropped") stats.dropped++;
    else stats.badShape++;
    if (stats.findings.length < 50)
      stats.findings.push({
        route: input.route.name,
        kind,
        method: input.method,
        path: input.path.slice(0, 300),
        status,
        detail: detail.slice(0, 300),
      });
  };
  const one = async (input: Input) => {
    let answer: Answer | null;
    if (input.raw) {
      stats.rawInputs++;
      answer = await sendRaw(harness.server.port, input);
      if (answer === null) {
        const target = input.rawTarget
          ? ` (raw target ${Buffer.from(input.rawTarget).toString("hex").slice(0, 200)})`
          : "";
        return record(
          input,
          "dropped",
          `no HTTP answer: ${lastDrop}; body ${input.body ? (typeof input.body.bytes === "string" ? input.body.bytes.length : input.body.bytes.byteLength) : 0} bytes${target}; headers ${JSON.stringify(input.headers).slice(0, 200)}`,
        );
      }
    } else {
      try {
        answer = await sendInProcess(harness.app, input);
      } catch (error) {
        // A Request the runtime refuses to build is not a server answer: send the same bytes raw.
        if (error instanceof TypeError && /Request|URL|header/i.test(error.message)) {
          input.raw = true;
          return one(input);
        }
        return record(input, "crash", `handler threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const slot = (stats.byRoute[input.route.name] ??= { inputs: 0, statuses: {} });
    slot.statuses[answer.status] = (slot.statuses[answer.status] ?? 0) + 1;
    const verdict = judge(input, answer);
    if (verdict === "protocol") stats.protocolRejects++;
    else if (verdict) record(input, verdict, answer.text, answer.status);
  };
  const concurrency = options.concurrency ?? 8;
  const progressEvery = options.progressEvery ?? 10_000;
  let nextProgress = progressEvery;
  while (stats.inputs < options.inputs) {
    const wave: Promise<void>[] = [];
    for (let i = 0; i < concurrency && stats.inputs < options.inputs; i++) {
      const route = harness.routes[rng.int(harness.routes.length)];
      const input = makeInput(rng, harness.world, route);
      stats.inputs++;
      (stats.byRoute[route.name] ??= { inputs: 0, statuses: {} }).inputs++;
      wave.push(one(input));
    }
    await Promise.all(wave);
    if (stats.inputs >= nextProgress) {
      nextProgress += progressEvery;
      options.onProgress?.(stats);
    }
  }
  // The server must still answer after everything it was sent.
  const alive = await sendRaw(harness.server.port, {
    route: ROUTES[1],
    method: "GET",
    path: "/v1/status",
    headers: {},
    body: null,
    raw: true,
  });
  if (alive?.status !== 200)
    record(
      { route: ROUTES[1], method: "GET", path: "/v1/status", headers: {}, body: null, raw: true },
      "crash",
      "server stopped answering /v1/status",
    );
  stats.internalErrorLogs = harness.internalErrorLogs().length;
  return stats;
}
