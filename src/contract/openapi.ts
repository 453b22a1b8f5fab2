// The OpenAPI 3.1 description of the server, generated from the same zod schemas the answers are
// validated against (src/analytics/queries/schemas.ts) and the same question table the routes,
// MCP tools and chat bot are built from, so it cannot describe a route that does not exist or a
// shape the server does not give. Served at GET /openapi.json and rendered at /docs.

import { z } from "zod";
import {
  AlertPayloadSchema,
  AlertRuleCreatedSchema,
  AlertRuleDeletedSchema,
  AlertRuleInputSchema,
  AlertRuleSchema,
  AlertRulesSchema,
  AlertTestResultSchema,
} from "../alerts";
import {
  CallFrameSchema,
  ErrorBodySchema,
  IngestAcceptedSchema,
  IssueListSchema,
  IssueSchema,
  IssueStateAnswerSchema,
  IssueStateChangeBody,
  IssueStateSchema,
  ProgramsSchema,
  RatesSchema,
  WindowRangeSchema,
} from "../analytics/queries";
import { ingestBodySchema } from "../shared/envelope";
import { ERROR_STATUS, type ErrorCode } from "../shared/errors";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../shared/pagination";
import { VERSION } from "../shared/version";
import { OPERATOR_OPERATIONS } from "./health";
import { PARAMS, type ParamName, QUESTIONS } from "./questions";

type JsonObject = Record<string, unknown>;
type Operation = {
  method: "get" | "post" | "delete" | "options";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, JsonObject>;
  security?: JsonObject[];
};

const REF = (id: string) => `#/components/schemas/${id}`;
const HEADER = (id: string) => ({ $ref: `#/components/headers/${id}` });
/** The IETF RateLimit headers every rate-limited answer carries (src/shared/token-buckets.ts). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": HEADER("RateLimitLimit"),
  "RateLimit-Remaining": HEADER("RateLimitRemaining"),
  "RateLimit-Reset": HEADER("RateLimitReset"),
};

/** The headers an error status carries: when to retry (429, 503, 404 pending) and the client's budget (429). */
function errorHeaders(status: number, codes: ErrorCode[]): JsonObject | undefined {
  if (status === 429) return { "Retry-After": HEADER("RetryAfter"), ...RATE_LIMIT_HEADERS };
  if (status === 503 || codes.includes("pending")) return { "Retry-After": HEADER("RetryAfter") };
  return undefined;
}

const errorResponse = (codes: ErrorCode[]) => {
  const headers = errorHeaders(ERROR_STATUS[codes[0]], codes);
  return {
    description: `Error (${codes.join(", ")}): \`{ error: { code, message } }\``,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: { $ref: REF("Error") } } },
  };
};

/** Status → error response, grouping the codes that share a status. */
function errorResponses(codes: ErrorCode[]): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, group]) => [String(status), errorResponse(group)]),
  );
}

/** Base58 text of a given byte length: each byte is at most 2 digits long, and a leading zero byte one digit. */
const base58Pattern = (bytes: 32 | 64) => `^[1-9A-HJ-NP-Za-km-z]{${bytes},${bytes === 32 ? 44 : 88}}$`;

/** What a parameter's schema says beyond its type: the values the server accepts. */
const PARAM_BOUNDS: Partial<Record<ParamName, JsonObject>> = {
  sig: { pattern: base58Pattern(64) },
  program: { pattern: base58Pattern(32) },
  wallet: { pattern: base58Pattern(32) },
  fingerprint: { pattern: "^v1:[0-9a-f]{16}$" },
  deploy: { minimum: 0 },
  limit: { minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
};

function parameter(name: ParamName, where: "path" | "query"): JsonObject {
  const spec = PARAMS[name];
  const schema: JsonObject = { type: spec.integer ? "integer" : "string", ...PARAM_BOUNDS[name] };
  if (spec.enum) schema.enum = spec.enum;
  return {
    name,
    in: where,
    required: where === "path",
    description: spec.description,
    schema,
    ...(spec.example ? { example: spec.example } : {}),
  };
}

/** Elysia's `/v1/why/:sig` → OpenAPI's `/v1/why/{sig}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/** Components: every schema with an id, as JSON Schema 2020-12 ($refs into components). */
function componentSchemas(): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  const questionSchemas = QUESTIONS.map((q) => q.response);
  const alertSchemas = [
    AlertRuleSchema,
    AlertRuleCreatedSchema,
    AlertRulesSchema,
    AlertRuleDeletedSchema,
    AlertTestResultSchema,
    AlertPayloadSchema,
  ];
  for (const schema of [
    ErrorBodySchema,
    RatesSchema,
    WindowRangeSchema,
    IssueSchema,
    CallFrameSchema,
    ProgramsSchema,
    IngestAcceptedSchema,
    IssueStateSchema,
    IssueStateAnswerSchema,
    IssueListSchema,
    ...questionSchemas,
    ...alertSchemas,
  ]) {
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id && !registry.has(schema)) registry.add(schema, { id });
  }
  registry.add(ingestBodySchema, { id: "IngestBody" });
  registry.add(AlertRuleInputSchema, { id: "AlertRuleInput" });
  registry.add(IssueStateChangeBody, { id: "IssueStateChange" });
  const out = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "output",
    uri: (id) => REF(id),
    unrepresentable: "any",
  }) as { schemas: Record<string, JsonObject> };
  // Components are addressed by name; the document declares the dialect once.
  for (const schema of Object.values(out.schemas)) {
    delete schema.$id;
    delete schema.$schema;
    dropSafeIntegerBounds(schema);
  }
  // The webhook payload is read by receivers, who must accept the fields a later txray adds (docs/alerts.md#payload),
  // as docs/alert-payload.schema.json says too.
  openObjects(out.schemas.AlertPayload);
  return out.schemas;
}

/** Drops every `additionalProperties: false` below a schema: the objects accept fields they do not name. */
function openObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) openObjects(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as JsonObject;
  if (record.additionalProperties === false) delete record.additionalProperties;
  for (const value of Object.values(record)) openObjects(value);
}

/** zod writes ±MAX_SAFE_INTEGER bounds on every integer: noise to a reader (and to sample renderers). */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as JsonObject;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}

function operations(options: { slack: boolean }): Operation[] {
  const ops: Operation[] = [];
  for (const q of QUESTIONS) {
    const scoped = q.queryParams.includes("scope");
    ops.push({
      method: "get",
      path: openApiPath(q.path),
      operationId: q.name,
      summary: q.summary,
      description: `${q.description}\n\nMCP tool twin: \`${q.name}\`.`,
      tags: [
        q.name === "status"
          ? "Service"
          : q.pathParams.includes("sig")
            ? "Signatures"
            : q.pathParams.includes("fingerprint")
              ? "Issues"
              : "Programs",
      ],
      parameters: [
        ...q.pathParams.map((p) => parameter(p, "path")),
        ...q.queryParams.map((p) => parameter(p, "query")),
      ],
      responses: {
        "200": {
          description: q.summary,
          content: {
            "application/json": {
              schema: { $ref: REF(idOf(q.response)) },
              ...(q.example ? { example: q.example } : {}),
            },
          },
        },
        ...errorResponses(q.errors),
      },
      ...(scoped ? { security: [{}, { apiKey: [] }] } : {}),
    });
  }
  ops.push({
    method: "post",
    path: "/v1/ingest",
    operationId: "ingest",
    summary: "Send telemetry envelopes",
    description:
      "A batch of envelopes (one per send attempt). 202 once the whole batch is durable; a batch is accepted whole or not at all. The key goes in `x-api-key` or the body's `apiKey`.",
    tags: ["Ingest"],
    requestBody: { required: true, content: { "application/json": { schema: { $ref: REF("IngestBody") } } } },
    responses: {
      "202": {
        description: "Accepted and durable",
        content: { "application/json": { schema: { $ref: REF("IngestAccepted") } } },
      },
      ...errorResponses([
        "bad_request",
        "schema_violation",
        "unauthorized",
        "forbidden",
        "payload_too_large",
        "rate_limited",
        "internal",
        "unavailable",
      ]),
    },
    security: [{ apiKey: [] }, {}],
  });
  ops.push({
    method: "options",
    path: "/v1/ingest",
    operationId: "ingest_preflight",
    summary: "CORS preflight for ingest",
    description:
      "Browsers that send ingest as `application/json` (or with `x-api-key`) ask first; any origin may post envelopes. The SDK posts `text/plain` bodies and needs no preflight (docs/sdk.md).",
    tags: ["Ingest"],
    responses: { "204": { description: "Allowed: `Access-Control-Allow-Origin: *`, methods POST and OPTIONS" } },
  });
  ops.push({
    method: "get",
    path: "/v1/programs",
    operationId: "programs",
    summary: "The key's programs",
    description:
      "The programs the key's account has sent telemetry for, with attempt counts and last-seen times. Key required.",
    tags: ["Programs"],
    parameters: [parameter("limit", "query"), parameter("cursor", "query")],
    responses: {
      "200": {
        description: "A page of programs",
        content: { "application/json": { schema: { $ref: REF("Programs") } } },
      },
      ...errorResponses(["bad_request", "unauthorized", "forbidden", "rate_limited", "internal"]),
    },
    security: [{ apiKey: [] }],
  });
  ops.push(...alertOperations());
  ops.push(...issueOperations());
  ops.push({
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    summary: "MCP (Streamable HTTP, stateless)",
    description:
      'Model Context Protocol JSON-RPC messages; the tools are the twins of the read routes (docs/mcp.md). A key in `x-api-key` or `Authorization: Bearer` lets tools use `scope: "account"`.',
    tags: ["Surfaces"],
    requestBody: {
      required: true,
      content: { "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 message or batch" } } },
    },
    responses: {
      "200": { description: "JSON-RPC response", content: { "application/json": { schema: { type: "object" } } } },
      "202": { description: "Notification accepted" },
      ...errorResponses(["unauthorized", "rate_limited"]),
      "401": {
        ...errorResponse(["unauthorized"]),
        headers: {
          "WWW-Authenticate": {
            description:
              'A plain Bearer challenge (`Bearer realm="txray", error="invalid_token", …`) without `resource_metadata`: keys come from the operator, there is no OAuth flow to start',
            schema: { type: "string" },
          },
        },
      },
      "405": {
        description: "GET or DELETE: this endpoint is stateless (no server-initiated stream, no session)",
        content: { "application/json": { schema: { $ref: REF("Error") } } },
      },
    },
    security: [{}, { apiKey: [] }, { bearer: [] }],
  });
  for (const method of ["get", "delete"] as const)
    ops.push({
      method,
      path: "/mcp",
      operationId: `mcp_${method}`,
      summary: `MCP ${method.toUpperCase()} (not used: stateless)`,
      description:
        "The Streamable HTTP transport's server-initiated stream (GET) and session end (DELETE) do not apply to a stateless endpoint: 405.",
      tags: ["Surfaces"],
      responses: {
        "405": {
          description: "Method not allowed: POST only",
          content: { "application/json": { schema: { $ref: REF("Error") } } },
        },
        ...errorResponses(["rate_limited"]),
      },
    });
  if (options.slack)
    ops.push({
      method: "post",
      path: "/chat/slack",
      operationId: "slack",
      summary: "Slack slash command",
      description:
        "Slack's slash-command request (form-encoded, signed with the app's signing secret: `X-Slack-Signature`, `X-Slack-Request-Timestamp`). Answers in Block Kit (docs/slack.md). Served only when SLACK_SIGNING_SECRET is set.",
      tags: ["Surfaces"],
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: {
              type: "object",
              properties: { command: { type: "string" }, text: { type: "string" }, response_url: { type: "string" } },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "Block Kit message",
          content: {
            "application/json": {
              schema: { type: "object", properties: { response_type: { type: "string" }, blocks: { type: "array" } } },
            },
          },
        },
        ...errorResponses(["bad_request", "unauthorized", "payload_too_large", "rate_limited"]),
      },
    });
  ops.push(...OPERATOR_OPERATIONS);
  ops.push({
    method: "get",
    path: "/openapi.json",
    operationId: "openapi",
    summary: "This document",
    description: "The OpenAPI 3.1 description of every route, generated from the server's response schemas.",
    tags: ["Service"],
    responses: {
      "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } },
      ...errorResponses(["rate_limited"]),
    },
  });
  ops.push({
    method: "get",
    path: "/docs",
    operationId: "docs",
    summary: "API reference page",
    description: "A readable rendering of this document (Redoc, served from this server: no CDN).",
    tags: ["Service"],
    responses: {
      "200": { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } },
      ...errorResponses(["rate_limited"]),
    },
  });
  ops.push({
    method: "get",
    path: "/docs/redoc.standalone.js",
    operationId: "docsRenderer",
    summary: "The reference page's renderer",
    description: "The Redoc standalone bundle the /docs page loads.",
    tags: ["Service"],
    responses: {
      "200": { description: "JavaScript", content: { "text/javascript": { schema: { type: "string" } } } },
      ...errorResponses(["rate_limited"]),
    },
  });
  ops.push({
    method: "get",
    path: "/docs/api.md",
    operationId: "docsReference",
    summary: "The human-written reference",
    description:
      "docs/api.md as the repository has it (Markdown): the prose, definitions and error rules next to these schemas.",
    tags: ["Service"],
    responses: {
      "200": { description: "Markdown", content: { "text/markdown": { schema: { type: "string" } } } },
      ...errorResponses(["rate_limited"]),
    },
  });
  for (const path of ["/favicon.svg", "/favicon.ico"])
    ops.push({
      method: "get",
      path,
      operationId: path === "/favicon.svg" ? "favicon" : "faviconIco",
      summary: "The site's icon",
      description: "txray's icon (SVG), also at /favicon.ico where browsers ask for it by themselves.",
      tags: ["Web app"],
      responses: {
        "200": { description: "SVG image", content: { "image/svg+xml": { schema: { type: "string" } } } },
        "404": { description: "No icon bundled", content: { "application/json": { schema: { $ref: REF("Error") } } } },
      },
    });
  // The web app (src/web): HTML pages that read the routes above, their assets, and the latest
  // Landing Score snapshot file (served as it was published; nothing is computed on request).
  const pages: [string, string][] = [
    ["/", "Programs, the ecosystem's rates, the latest Landing Score and search"],
    ["/p/{program}", "One program: rates, top issues, release diff, providers, compute units"],
    ["/tx/{sig}", "One signature's story (and drop diagnosis)"],
    ["/w/{program}/{wallet}", "One wallet's attempts at a program"],
    ["/i/{fingerprint}", "One issue: events over time, who hits it, a recent event's call stack and logs, examples"],
    ["/issues/{program}", "A program's issues for triage, with their states (needs a key)"],
    ["/alerts", "The account's alert rules: list, add, send a test, remove (needs a key; an admin key to change)"],
  ];
  for (const [path, summary] of pages)
    ops.push({
      method: "get",
      path,
      operationId: `page_${path === "/" ? "home" : path.split("/")[1]}`,
      summary: `Web app: ${summary}`,
      description: "The web app's HTML shell; the page itself reads the JSON routes.",
      tags: ["Web app"],
      parameters: [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      responses: { "200": { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } } },
    });
  ops.push({
    method: "get",
    path: "/assets/{name}",
    operationId: "webAsset",
    summary: "Web app: a bundled asset",
    description: "JavaScript, CSS and fonts of the web app, by content-hashed name (immutable).",
    tags: ["Web app"],
    parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
    responses: {
      "200": { description: "The asset" },
      "404": { description: "No such asset", content: { "application/json": { schema: { $ref: REF("Error") } } } },
    },
  });
  ops.push({
    method: "get",
    path: "/landing-score/",
    operationId: "landingScorePage",
    summary: "The published Landing Score page",
    description:
      "The static leaderboard page the landing-score job last published (docs/publishing.md), as it was written; 404 when none exists. `/landing-score` without the slash answers 308 to here (the page links its files relatively).",
    tags: ["Web app"],
    responses: {
      "200": { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } },
      "308": { description: "From /landing-score to /landing-score/" },
      "404": {
        description: "Nothing published yet",
        content: { "application/json": { schema: { $ref: REF("Error") } } },
      },
    },
  });
  ops.push({
    method: "get",
    path: "/landing-score/{name}",
    operationId: "landingScoreFile",
    summary: "A published Landing Score file",
    description:
      "`latest.json`, `index.html`, or a dated `YYYY-MM-DD.json` / `YYYY-MM-DD.parquet` snapshot (docs/publishing.md, docs/landing-score.schema.json), served read-only; 404 for any other name or a file not published.",
    tags: ["Web app"],
    parameters: [
      {
        name: "name",
        in: "path",
        required: true,
        schema: { type: "string", pattern: "^(index\\.html|latest\\.json|\\d{4}-\\d{2}-\\d{2}\\.(json|parquet))$" },
      },
    ],
    responses: {
      "200": {
        description: "The file",
        content: {
          "application/json": { schema: { type: "object" } },
          "text/html": { schema: { type: "string" } },
          "application/vnd.apache.parquet": { schema: { type: "string", format: "binary" } },
        },
      },
      "404": { description: "No such file", content: { "application/json": { schema: { $ref: REF("Error") } } } },
    },
  });
  return ops;
}

/** /v1/alerts (docs/alerts.md): an account's alert rules; never public (every operation needs a key). */
function alertOperations(): Operation[] {
  const id = {
    name: "id",
    in: "path",
    required: true,
    description: "the rule's id (alr_…)",
    schema: { type: "string", pattern: "^alr_[0-9a-f]{16}$" },
  };
  const changes: ErrorCode[] = ["bad_request", "unauthorized", "forbidden", "not_found", "rate_limited", "internal"];
  const operation = (
    method: Operation["method"],
    path: string,
    operationId: string,
    summary: string,
    description: string,
    answer: [status: string, schema: string, description: string],
    codes: ErrorCode[],
    extra: Partial<Operation> = {},
  ): Operation => ({
    method,
    path,
    operationId,
    summary,
    description,
    tags: ["Alerts"],
    ...extra,
    responses: {
      [answer[0]]: { description: answer[2], content: { "application/json": { schema: { $ref: REF(answer[1]) } } } },
      ...errorResponses(codes),
    },
    security: [{ apiKey: [] }],
  });
  return [
    operation(
      "post",
      "/v1/alerts",
      "createAlert",
      "Create an alert rule",
      "A rule on one of the account's programs (one it has sent telemetry for) with a destination: a generic webhook (JSON body signed in `X-Txray-Signature`) or a Slack incoming webhook. " +
        "URLs must be https:// (http:// only to a loopback address). The answer shows the destination's URL and the webhook secret (given, or generated) in full, once. Admin key (txr_live_…) only. Body at most 16 KiB.",
      ["201", "AlertRuleCreated", "The rule, with its id"],
      [...changes, "payload_too_large"],
      { requestBody: { required: true, content: { "application/json": { schema: { $ref: REF("AlertRuleInput") } } } } },
    ),
    operation(
      "get",
      "/v1/alerts",
      "listAlerts",
      "The account's alert rules",
      "Every rule of the key's account, by id, with its parameters (defaults filled in), its destination redacted and how many of its subjects fire now. A read or admin key of the account (an ingest key: 403).",
      ["200", "AlertRules", "A page of rules"],
      ["bad_request", "unauthorized", "forbidden", "rate_limited", "internal"],
      { parameters: [parameter("limit", "query"), parameter("cursor", "query")] },
    ),
    operation(
      "delete",
      "/v1/alerts/{id}",
      "deleteAlert",
      "Remove an alert rule",
      "Removes the rule; its deliveries not yet sent are cancelled. Account key only; another account's rule is a 404.",
      ["200", "AlertRuleDeleted", "Removed"],
      changes,
      { parameters: [id] },
    ),
    operation(
      "post",
      "/v1/alerts/{id}/test",
      "testAlert",
      "Send a sample alert",
      'Sends a sample (`kind: "test"`) to the rule\'s destination now, one attempt, and answers with what the destination said. Recorded in the delivery log. Account key only.',
      ["200", "AlertTestResult", "The attempt's result"],
      changes,
      { parameters: [id] },
    ),
  ];
}

/** Issue triage (docs/api.md#issue-states): an account's issue list and issue states; every operation needs a key. */
function issueOperations(): Operation[] {
  const reads: ErrorCode[] = ["bad_request", "unauthorized", "forbidden", "not_found", "rate_limited", "internal"];
  const query = (name: string, description: string, schema: JsonObject) => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
  });
  const answer = (schema: string, description: string) => ({
    "200": { description, content: { "application/json": { schema: { $ref: REF(schema) } } } },
  });
  return [
    {
      method: "get",
      path: "/v1/issues/{program}",
      operationId: "issue_list",
      summary: "A program's issues, for triage",
      description:
        "The key's account's issues of the program with their state now, events and wallets affected in the window, first and last seen. " +
        "Resolved and ignored issues are left out unless `state` says otherwise. A read or admin key of the account (an ingest key: 403).\n\nMCP tool twin: `issue_list`.",
      tags: ["Issues"],
      parameters: [
        parameter("program", "path"),
        parameter("window", "query"),
        query("state", "open (default: unresolved and regressed), all, or one state", {
          type: "string",
          enum: ["open", "all", "unresolved", "resolved", "resolved_next_release", "ignored", "regressed"],
        }),
        query("sort", "events (default) or wallets affected, most first", {
          type: "string",
          enum: ["events", "wallets"],
        }),
        query("instruction", "only issues of this instruction", { type: "string", maxLength: 200 }),
        query("error", "only issues with this error name, code or drop class", { type: "string", maxLength: 200 }),
        query("since", "only issues first seen at or after this time (Unix ms)", { type: "integer", minimum: 0 }),
        parameter("limit", "query"),
        parameter("cursor", "query"),
      ],
      responses: { ...answer("IssueList", "A page of issues"), ...errorResponses(reads) },
      security: [{ apiKey: [] }],
    },
    {
      method: "get",
      path: "/v1/issue/{fingerprint}/state",
      operationId: "issue_state",
      summary: "An issue's state and its history",
      description:
        "The issue's state in the key's account now (derived from what was set and the events and deploys since) and every change, who made it and when. A read or admin key; 404 when the account has no event of the issue.",
      tags: ["Issues"],
      parameters: [parameter("fingerprint", "path")],
      responses: { ...answer("IssueStateAnswer", "The state and its history"), ...errorResponses(reads) },
      security: [{ apiKey: [] }],
    },
    {
      method: "post",
      path: "/v1/issue/{fingerprint}/state",
      operationId: "set_issue_state",
      summary: "Resolve, ignore, reopen or assign an issue",
      description:
        "Sets the issue's state in the key's account (resolved, resolved_next_release, ignored with `ignoreUntilEvents` and/or `ignoreUntilAt`, unresolved) and/or its assignee (null unassigns), recorded in its history. " +
        "Admin key (txr_live_…) only: a read or ingest key is a 403. Body at most 4 KiB.",
      tags: ["Issues"],
      parameters: [parameter("fingerprint", "path")],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: REF("IssueStateChange") } } } },
      responses: {
        ...answer("IssueStateAnswer", "The state now and its history"),
        ...errorResponses([...reads, "payload_too_large"]),
      },
      security: [{ apiKey: [] }],
    },
  ];
}

/**
 * What every operation may also answer: 503 while the server shuts down (any route, docs/api.md#errors), and any
 * other error in the same shape (`default`: a 413 for a declared body above every route's limit, a 500). A route
 * that is rate limited carries the RateLimit headers on its answers too. An operation that names no security is
 * public: it declares so (`[]`), so a reader never has to guess.
 */
function withCommonAnswers(operation: Omit<Operation, "method" | "path">): JsonObject {
  const responses: Record<string, JsonObject> = { ...operation.responses };
  if ("429" in responses)
    for (const [status, response] of Object.entries(responses))
      if (status.startsWith("2"))
        responses[status] = { ...response, headers: { ...RATE_LIMIT_HEADERS, ...(response.headers as JsonObject) } };
  responses["503"] ??= {
    description: "Error (unavailable): the server is shutting down; retry after `Retry-After`",
    headers: { "Retry-After": HEADER("RetryAfter") },
    content: { "application/json": { schema: { $ref: REF("Error") } } },
  };
  responses.default = {
    description: "Any other error, in the same shape: `{ error: { code, message } }` (docs/api.md#errors)",
    content: { "application/json": { schema: { $ref: REF("Error") } } },
  };
  return { ...operation, responses, security: operation.security ?? [] };
}

const idOf = (schema: z.ZodType) => (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id ?? "unknown";

const documents = new Map<boolean, JsonObject>();

/** The document (built once per process; `slack`: whether /chat/slack is served). */
export function openApiDocument(options: { slack: boolean } = { slack: true }): JsonObject {
  let document = documents.get(options.slack);
  if (!document) documents.set(options.slack, (document = buildDocument(options)));
  return document;
}

function buildDocument(options: { slack: boolean }): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const { method, path, ...operation } of operations(options))
    (paths[path] ??= {})[method] = withCommonAnswers(operation);
  return {
    openapi: "3.1.0",
    // Relative to this document: the server that serves /openapi.json answers the routes it describes.
    servers: [{ url: "/", description: "The txray server that serves this document" }],
    info: {
      title: "txray",
      version: VERSION,
      description:
        "Transaction failure observability for Solana programs. JSON everywhere; timestamps are Unix milliseconds; counts are JSON numbers. " +
        "Errors are `{ error: { code, message } }`. Read routes are public (rate-limited per client IP); with a key, `scope=account` restricts answers to its account. " +
        "Human-written reference: [docs/api.md](/docs/api.md).",
    },
    tags: [
      { name: "Signatures", description: "One transaction" },
      { name: "Programs", description: "One program's attempts, from the serving tables" },
      { name: "Issues", description: "One failure issue (a fingerprint), its events, logs and call stack" },
      { name: "Ingest", description: "Telemetry from the SDK" },
      { name: "Service", description: "Health and this description" },
      { name: "Surfaces", description: "MCP and chat" },
      { name: "Alerts", description: "Alert rules and their webhook payload (docs/alerts.md)" },
    ],
    paths,
    // What txray sends, not what it serves: the body a generic webhook destination receives (docs/alerts.md).
    webhooks: {
      alert: {
        post: {
          operationId: "alertWebhook",
          summary: "An alert, sent to a rule's webhook destination",
          description:
            "POSTed as JSON, signed in `X-Txray-Signature`; `id` is the same on every retry (process each id once). Fields may be added: ignore what you do not know.",
          tags: ["Alerts"],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: REF("AlertPayload") } } } },
          responses: {
            "2XX": { description: "Received: answer within 10 s, do the work afterwards" },
            default: {
              description:
                "408, 429 or 5xx (or no answer) is retried, after `Retry-After` when given; any other answer gives up (docs/alerts.md#delivery)",
            },
          },
          security: [],
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description:
            "txr_live_… (admin) or txr_read_… (read-only) key; txr_ingest_… keys only ingest (docs/security.md)",
        },
        bearer: { type: "http", scheme: "bearer", description: "The same key as a bearer token (MCP clients)" },
        metricsToken: {
          type: "http",
          scheme: "bearer",
          description: "METRICS_TOKEN as a bearer token: GET /metrics asks for it when the server sets it",
        },
      },
      headers: {
        RetryAfter: {
          description: "Seconds to wait before asking again",
          schema: { type: "integer", minimum: 0 },
        },
        RateLimitLimit: {
          description: "The client's budget: requests its bucket holds when full",
          schema: { type: "integer", minimum: 0 },
        },
        RateLimitRemaining: {
          description: "Requests left in the client's bucket now",
          schema: { type: "integer", minimum: 0 },
        },
        RateLimitReset: {
          description: "Seconds until the bucket is full again",
          schema: { type: "integer", minimum: 0 },
        },
      },
    },
  };
}
