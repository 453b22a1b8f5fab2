// The fuzzer's route table: every route the server may serve, as a template with a generator per
// path and query parameter, the body it takes and the kind of answer it owes. Adding a route is one
// entry here. Entries marked `optional` belong to surfaces other work adds (MCP, Slack, OpenAPI, the
// web app): the fuzzer probes them first and skips them, with the note, while the server answers
// 404 "no such route" for them.

import { createHmac } from "node:crypto";
import {
  base58String,
  deepNesting,
  ENVELOPE_KEYS,
  hostileValue,
  mutateBytes,
  mutateJson,
  nastyString,
  type Rng,
  randomJson,
  tamperCursor,
} from "./generate";

/** What the fuzzer knows about the world it runs against (valid ids, keys and cursors to start from). */
export type FuzzWorld = {
  programs: string[];
  /** Issue fingerprints the lake holds. */
  fingerprints: string[];
  sigs: string[];
  wallets: string[];
  keys: { liveA: string; readA: string; liveB: string; revoked: string };
  cursors: string[];
  slackSecret: string;
};

/**
 * `json`: errors are `{error:{code,message}}`; `web`: HTML pages (errors JSON or HTML); `mcp`: JSON-RPC; `slack`:
 * Slack's JSON.
 */
export type AnswerKind = "json" | "web" | "mcp" | "slack";
export type ParamKind =
  | "program"
  | "sig"
  | "wallet"
  | "fingerprint"
  | "window"
  | "scope"
  | "limit"
  | "cursor"
  | "segment"
  | "deploy"
  | "alert"
  | "any";

export type Body = { bytes: Uint8Array | string; contentType: string | null; headers?: Record<string, string> };

export type RouteSpec = {
  name: string;
  method: "GET" | "POST" | "DELETE";
  /** Path with `{param}` placeholders. */
  template: string;
  params?: Record<string, ParamKind>;
  query?: Record<string, ParamKind>;
  body?: (rng: Rng, world: FuzzWorld) => Body;
  /** Extra headers the route needs (e.g. an MCP session), per request. */
  headers?: (rng: Rng, world: FuzzWorld) => Record<string, string>;
  answer: AnswerKind;
  /** Set for routes another piece of work adds: skipped (with this note) while they answer 404 no-such-route. */
  optional?: string;
  /** A request path that exists when the route does (for the probe). */
  probe?: string;
};

const encoder = new TextEncoder();

/** A value for a parameter: valid half the time (so the request reaches the query layer), hostile otherwise. */
export function paramValue(rng: Rng, world: FuzzWorld, kind: ParamKind): string {
  if (rng.chance(0.5)) {
    switch (kind) {
      case "program":
        return rng.chance(0.8) ? rng.pick(world.programs) : base58String(rng, 44);
      case "sig":
        return rng.chance(0.5) && world.sigs.length > 0 ? rng.pick(world.sigs) : base58String(rng, 88);
      case "wallet":
        return rng.chance(0.8) && world.wallets.length > 0 ? rng.pick(world.wallets) : base58String(rng, 44);
      case "fingerprint":
        return rng.chance(0.8) && world.fingerprints.length > 0
          ? rng.pick(world.fingerprints)
          : `v1:${rng.pick(["", "0".repeat(16), "g".repeat(16), "F".repeat(16), "0".repeat(17)])}`;
      case "window":
        return rng.pick(["1d", "7d", "30d"]);
      case "scope":
        return rng.pick(["account", "public", ""]);
      case "limit":
        return String(rng.pick([1, 2, 50, 500]));
      case "cursor":
        return rng.chance(0.3) && world.cursors.length > 0
          ? rng.pick(world.cursors)
          : tamperCursor(rng, world.cursors.length > 0 ? rng.pick(world.cursors) : null);
      case "segment":
        return rng.pick(["human", "mixed", "bot"]);
      case "deploy":
        return String(rng.pick([1, 250_000_000, 0]));
      case "alert":
        return `alr_${Array.from({ length: 16 }, () => "0123456789abcdef"[rng.int(16)]).join("")}`;
      default:
        return nastyString(rng);
    }
  }
  if (kind === "cursor") return tamperCursor(rng, world.cursors.length > 0 ? rng.pick(world.cursors) : null);
  if (kind === "limit")
    return rng.pick([
      "0",
      "501",
      "-1",
      "1.5",
      "1e3",
      "9999999999999999999999",
      "０",
      "50 ",
      " 50",
      "0x10",
      nastyString(rng),
    ]);
  return nastyString(rng);
}

const validEnvelope = (rng: Rng, world: FuzzWorld) => ({
  sig: base58String(rng, 88),
  program: rng.pick(world.programs),
  blockhash: base58String(rng, 44),
  lastValidBlockHeight: 289_000_150,
  sentAt: 1_763_700_000_000,
  rpcHash: "a1b2c3d4e5f60718",
  rpcLabel: "helius",
  walletAdapter: "Phantom",
  kind: "send",
  preflightError: null,
  simulationLogs: [],
  payer: rng.pick(world.wallets.length > 0 ? world.wallets : [base58String(rng, 44)]),
  sdkVersion: "0.1.0",
});

/** Ingest bodies: valid batches, mutated ones, random JSON, deep nesting, invalid UTF-8, oversized. */
export function ingestBody(rng: Rng, world: FuzzWorld): Body {
  const key = rng.pick([
    world.keys.liveA,
    world.keys.liveB,
    world.keys.readA,
    world.keys.revoked,
    `txr_live_${base58String(rng, 32)}`,
    nastyString(rng),
  ]);
  const batch: Record<string, unknown> = {
    envelopes: Array.from({ length: 1 + rng.int(3) }, () => validEnvelope(rng, world)),
  };
  const headers: Record<string, string> = {};
  if (rng.chance(0.5)) batch.apiKey = key;
  else if (/^[\x20-\x7e]*$/.test(key)) headers["x-api-key"] = key;
  const contentType = rng.pick([
    "application/json",
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    null,
  ]);
  switch (rng.int(8)) {
    case 0:
      return { bytes: JSON.stringify(batch), contentType, headers };
    case 1:
    case 2:
      return { bytes: JSON.stringify(mutateJson(rng, batch)), contentType, headers };
    case 3:
      return { bytes: mutateBytes(rng, encoder.encode(JSON.stringify(batch))), contentType, headers };
    case 4:
      return { bytes: JSON.stringify(randomJson(rng, 5)), contentType, headers };
    case 5:
      return { bytes: deepNesting(rng, rng.pick([100, 10_000, 200_000])), contentType, headers };
    case 6:
      return {
        bytes: JSON.stringify({
          ...batch,
          envelopes: Array.from({ length: rng.pick([1001, 3000]) }, () => batch.envelopes && validEnvelope(rng, world)),
        }),
        contentType,
        headers,
      };
    default:
      return { bytes: rng.chance(0.5) ? "" : "x".repeat(rng.pick([10, 1_100_000])), contentType, headers };
  }
}

/**
 * Alert rules (POST /v1/alerts): valid rules, mutated ones, random JSON, deep nesting, oversized.
 * Destinations are loopback port 9 (nothing listens): a test send never leaves the machine.
 */
export function alertBody(rng: Rng, world: FuzzWorld): Body {
  const rule = {
    program: rng.pick(world.programs),
    rule: rng.pick(["new_issue", "regression", "landing_rate", "provider_drops", "cu_headroom"]),
    params: rng.chance(0.5)
      ? {}
      : { minCount: rng.int(10), window: rng.pick(["1d", "7d", "2d"]), threshold: rng.pick([0.5, 2, -1]) },
    destination: rng.chance(0.5)
      ? { type: "webhook", url: `http://127.0.0.1:9/${base58String(rng, 8)}`, secret: base58String(rng, 24) }
      : { type: "slack", url: `http://127.0.0.1:9/services/${base58String(rng, 8)}` },
  };
  const contentType = rng.pick(["application/json", "text/plain", null]);
  switch (rng.int(7)) {
    case 0:
    case 1:
      return { bytes: JSON.stringify(rule), contentType };
    case 2:
    case 3:
      return { bytes: JSON.stringify(mutateJson(rng, rule)), contentType };
    case 4:
      return { bytes: mutateBytes(rng, encoder.encode(JSON.stringify(rule))), contentType };
    case 5:
      return { bytes: JSON.stringify(randomJson(rng, 5)), contentType };
    default:
      return {
        bytes: rng.chance(0.5) ? deepNesting(rng, rng.pick([100, 10_000])) : "x".repeat(rng.pick([10, 20_000])),
        contentType,
      };
  }
}

const MCP_TOOLS = [
  "why",
  "diagnose_drop",
  "baseline",
  "release_diff",
  "top_issues",
  "issue",
  "cu_headroom",
  "wallet_history",
  "provider_report",
  nastyString,
];

/** MCP (JSON-RPC 2.0 over Streamable HTTP): tool calls with hostile arguments, malformed messages. */
export function mcpBody(rng: Rng, world: FuzzWorld): Body {
  const tool = rng.pick(MCP_TOOLS);
  const name = typeof tool === "function" ? tool(rng) : tool;
  const args: Record<string, unknown> = {};
  for (const field of [
    "sig",
    "program",
    "wallet",
    "fingerprint",
    "window",
    "scope",
    "limit",
    "cursor",
    "segment",
    "deploy",
  ]) {
    if (rng.chance(0.5)) args[field] = rng.chance(0.5) ? paramValue(rng, world, field as ParamKind) : hostileValue(rng);
  }
  const message = {
    jsonrpc: "2.0",
    id: rng.int(1000),
    method: rng.pick(["tools/call", "tools/call", "tools/list", "initialize", nastyString(rng)]),
    params: { name, arguments: rng.chance(0.9) ? args : hostileValue(rng) },
  };
  const headers = { accept: "application/json, text/event-stream" };
  switch (rng.int(5)) {
    case 0:
      return { bytes: JSON.stringify(mutateJson(rng, message)), contentType: "application/json", headers };
    case 1:
      return {
        bytes: mutateBytes(rng, encoder.encode(JSON.stringify(message))),
        contentType: "application/json",
        headers,
      };
    default:
      return { bytes: JSON.stringify(message), contentType: "application/json", headers };
  }
}

/** Slack slash commands: signed (with the test secret) and unsigned, hostile command text. */
export function slackBody(rng: Rng, world: FuzzWorld): Body {
  const text = rng.chance(0.5)
    ? `${rng.pick(["why", "drop", "baseline", "top", "issue", "help", nastyString(rng)])} ${paramValue(rng, world, rng.pick(["sig", "program", "fingerprint", "any"]))}`
    : nastyString(rng);
  const fields: Record<string, string> = {
    command: rng.pick(["/txray", nastyString(rng)]),
    text,
    user_id: "U1",
    team_id: "T1",
    response_url: "https://hooks.slack.invalid/x",
  };
  let body: string | Uint8Array = new URLSearchParams(fields).toString();
  if (rng.chance(0.2)) body = mutateBytes(rng, encoder.encode(body));
  const timestamp = String(rng.chance(0.8) ? Math.floor(Date.now() / 1000) : rng.pick([0, 1, 99999999999]));
  const raw = typeof body === "string" ? body : Buffer.from(body).toString("latin1");
  const signature = rng.chance(0.7)
    ? `v0=${createHmac("sha256", world.slackSecret).update(`v0:${timestamp}:${raw}`).digest("hex")}`
    : rng.pick(["", "v0=", `v0=${"0".repeat(64)}`, nastyString(rng)]);
  const headers: Record<string, string> = { "x-slack-request-timestamp": timestamp };
  if (/^[\x20-\x7e]*$/.test(signature)) headers["x-slack-signature"] = signature;
  return {
    bytes: body,
    contentType: rng.pick(["application/x-www-form-urlencoded", "application/json", null]),
    headers,
  };
}

const WINDOWED = { window: "window", scope: "scope" } as const;

/** Every route. Optional entries are probed and skipped (with their note) while absent. */
export const ROUTES: RouteSpec[] = [
  { name: "ingest", method: "POST", template: "/v1/ingest", body: ingestBody, answer: "json" },
  { name: "status", method: "GET", template: "/v1/status", query: { scope: "any" }, answer: "json" },
  {
    name: "programs",
    method: "GET",
    template: "/v1/programs",
    query: { limit: "limit", cursor: "cursor" },
    answer: "json",
  },
  {
    name: "why",
    method: "GET",
    template: "/v1/why/{sig}",
    params: { sig: "sig" },
    query: { scope: "scope" },
    answer: "json",
  },
  { name: "diagnose-drop", method: "GET", template: "/v1/diagnose-drop/{sig}", params: { sig: "sig" }, answer: "json" },
  {
    name: "baseline",
    method: "GET",
    template: "/v1/baseline/{program}",
    params: { program: "program" },
    query: WINDOWED,
    answer: "json",
  },
  {
    name: "release-diff",
    method: "GET",
    template: "/v1/release-diff/{program}",
    params: { program: "program" },
    query: { ...WINDOWED, deploy: "deploy" },
    answer: "json",
  },
  {
    name: "top-issues",
    method: "GET",
    template: "/v1/top-issues/{program}",
    params: { program: "program" },
    query: { ...WINDOWED, segment: "segment", limit: "limit" },
    answer: "json",
  },
  {
    name: "cu-headroom",
    method: "GET",
    template: "/v1/cu-headroom/{program}",
    params: { program: "program" },
    query: WINDOWED,
    answer: "json",
  },
  {
    name: "wallet",
    method: "GET",
    template: "/v1/wallet/{program}/{wallet}",
    params: { program: "program", wallet: "wallet" },
    query: { ...WINDOWED, limit: "limit", cursor: "cursor" },
    answer: "json",
  },
  {
    name: "provider-report",
    method: "GET",
    template: "/v1/provider-report/{program}",
    params: { program: "program" },
    query: WINDOWED,
    answer: "json",
  },
  {
    name: "issue",
    method: "GET",
    template: "/v1/issue/{fingerprint}",
    params: { fingerprint: "fingerprint" },
    query: WINDOWED,
    answer: "json",
  },
  { name: "alerts-create", method: "POST", template: "/v1/alerts", body: alertBody, answer: "json" },
  {
    name: "alerts-list",
    method: "GET",
    template: "/v1/alerts",
    query: { limit: "limit", cursor: "cursor" },
    answer: "json",
  },
  {
    name: "alerts-delete",
    method: "DELETE",
    template: "/v1/alerts/{alert}",
    params: { alert: "alert" },
    answer: "json",
  },
  {
    name: "alerts-test",
    method: "POST",
    template: "/v1/alerts/{alert}/test",
    params: { alert: "alert" },
    answer: "json",
  },
  { name: "unknown-v1", method: "GET", template: "/v1/{any}", params: { any: "any" }, answer: "json" },
  {
    name: "unknown-deep",
    method: "GET",
    template: "/v1/{any}/{sig}/{any2}",
    params: { any: "any", sig: "sig", any2: "any" },
    answer: "json",
  },
  // Surfaces added by other work (docs/architecture.md): fuzzed once they exist.
  {
    name: "mcp",
    method: "POST",
    template: "/mcp",
    body: mcpBody,
    answer: "mcp",
    optional: "MCP over Streamable HTTP (/mcp) not served yet",
    probe: "/mcp",
  },
  {
    name: "slack",
    method: "POST",
    template: "/chat/slack",
    body: slackBody,
    answer: "slack",
    optional: "Slack slash commands (/chat/slack) not served yet",
    probe: "/chat/slack",
  },
  {
    name: "openapi",
    method: "GET",
    template: "/openapi.json",
    query: { any: "any" },
    answer: "json",
    optional: "OpenAPI document not served yet",
    probe: "/openapi.json",
  },
  {
    name: "docs",
    method: "GET",
    template: "/docs",
    query: { any: "any" },
    answer: "web",
    optional: "API reference page not served yet",
    probe: "/docs",
  },
  {
    name: "web-home",
    method: "GET",
    template: "/",
    query: { any: "any" },
    answer: "web",
    optional: "web app not served yet",
    probe: "/",
  },
  {
    name: "web-program",
    method: "GET",
    template: "/p/{program}",
    params: { program: "program" },
    query: { window: "window" },
    answer: "web",
    optional: "web app not served yet",
    probe: "/p/{program}",
  },
  {
    name: "web-tx",
    method: "GET",
    template: "/tx/{sig}",
    params: { sig: "sig" },
    answer: "web",
    optional: "web app not served yet",
    probe: "/tx/{sig}",
  },
  {
    name: "web-wallet",
    method: "GET",
    template: "/w/{program}/{wallet}",
    params: { program: "program", wallet: "wallet" },
    query: { cursor: "cursor" },
    answer: "web",
    optional: "web app not served yet",
    probe: "/w/{program}/{wallet}",
  },
  {
    name: "web-issue",
    method: "GET",
    template: "/i/{fingerprint}",
    params: { fingerprint: "fingerprint" },
    query: { window: "window" },
    answer: "web",
  },
  { name: "landing-score", method: "GET", template: "/landing-score/{any}", params: { any: "any" }, answer: "json" },
];

export { ENVELOPE_KEYS };
