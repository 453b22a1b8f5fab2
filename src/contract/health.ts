// GET /healthz and GET /readyz (docs/operations.md, "Metrics and health"). Liveness checks nothing
// but that the process answers; readiness names every reason this node should not get traffic yet:
// its spool directory is not writable (ingest role), the control plane does not answer, or the
// lake has data and the serving tables were never built (read role: the analytical routes could
// answer nothing), or no Solana RPC request has succeeded for READY_CHAIN_UNREACHABLE_MS (jobs role:
// the resolver and the deploys job cannot work without the chain; ingest never needs it, and a read
// node answers every route but `why`'s on-demand look-ups from what it holds, so an outage of the
// RPC provider takes neither out of a load balancer). Stale but built serving tables keep a node
// ready: it answers from the last good version, and /v1/status says how old it is. The route is
// unauthenticated: a reason is a short phrase and a stable code, never a path or an error's text;
// those go to the log, once per change.

import { accessSync, constants } from "node:fs";
import { readPointer } from "../analytics/serving/pointer";
import { chainReading } from "../chain/rpc";
import { parseRoles } from "../config";
import type { Context, OwnedPart } from "../context";
import { controlPlaneProblem, lakeRowCount } from "../control";

export type Readiness = { ready: true } | { ready: false; reasons: string[] };

/** Why a node is not ready: the stable code and the phrase /readyz answers with. */
export const NOT_READY = {
  spool_not_writable: "the spool directory is not writable",
  control_plane_unavailable: "the control plane does not answer",
  serving_tables_missing:
    "the serving tables are missing: the lake has data but the tables job has not built the serving tables yet",
  chain_unreachable: "the Solana RPC endpoint has not answered for longer than READY_CHAIN_UNREACHABLE_MS",
} as const;
export type NotReadyCode = keyof typeof NOT_READY;

/** The reasons last logged, so a probe every few seconds logs a change once, not every answer. */
const LOGGED_READINESS: OwnedPart<{ last: string }> = { name: "readiness logged", make: () => ({ last: "" }) };

export function readiness(ctx: Context): Readiness {
  const roles = parseRoles(ctx.config.TXRAY_ROLES);
  const found: { code: NotReadyCode; detail: string }[] = [];
  if (roles.allows("ingest")) {
    const dir = ctx.paths.spool(ctx.config.TXRAY_NODE_ID);
    try {
      // access(2) reports a missing directory, a read-only file system and (for other users than root) permissions.
      accessSync(dir, constants.W_OK);
    } catch (error) {
      found.push({ code: "spool_not_writable", detail: `${dir}: ${(error as NodeJS.ErrnoException).code ?? error}` });
    }
  }
  const control = controlPlaneProblem(ctx.control);
  if (control !== null) found.push({ code: "control_plane_unavailable", detail: control });
  // Two cheap reads, not /v1/status's freshness: a probe runs every few seconds, unauthenticated.
  else if (roles.allows("read") && readPointer(ctx.paths) === null && lakeRowCount(ctx.control) > 0)
    found.push({ code: "serving_tables_missing", detail: "no serving version; the lake has data" });
  const chainLimitMs = ctx.config.READY_CHAIN_UNREACHABLE_MS;
  if (chainLimitMs !== undefined && roles.allows("jobs")) {
    const chain = chainReading(ctx);
    if (chain.reachable === false && chain.since !== null && ctx.clock() - chain.since >= chainLimitMs)
      found.push({
        code: "chain_unreachable",
        detail: `unreachable since ${new Date(chain.since).toISOString()} (${chain.lastError ?? "unknown"})`,
      });
  }
  logChange(ctx, found);
  return found.length === 0
    ? { ready: true }
    : { ready: false, reasons: found.map(({ code }) => `${NOT_READY[code]} (${code})`) };
}

function logChange(ctx: Context, found: { code: NotReadyCode; detail: string }[]): void {
  const logged = ctx.own(LOGGED_READINESS);
  const now = found.map(({ code, detail }) => `${code}: ${detail}`).join("; ");
  if (now === logged.last) return;
  if (now !== "") ctx.logger.warn("not ready", { reasons: now });
  else ctx.logger.info("ready again");
  logged.last = now;
}

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/** The OpenAPI operations of GET /metrics, /healthz and /readyz (none rate limited). */
type OperatorOperation = {
  method: "get";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  responses: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
};

export const OPERATOR_OPERATIONS: OperatorOperation[] = [
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics",
    description:
      'The server\'s metrics in the Prometheus text exposition format 0.0.4 (families: docs/operations.md, "Metrics and health"). With METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required. Not rate limited.',
    tags: ["Service"],
    responses: {
      "200": { description: "Prometheus text", content: { "text/plain": { schema: { type: "string" } } } },
      "401": { description: "Error (unauthorized): METRICS_TOKEN is set and was not presented", content: errorContent },
    },
    // Open unless the server sets METRICS_TOKEN: then the bearer token is required.
    security: [{}, { metricsToken: [] }],
  },
  {
    method: "get",
    path: "/healthz",
    operationId: "healthz",
    summary: "Liveness",
    description: "200 while the process runs; checks no dependency. Not rate limited.",
    tags: ["Service"],
    responses: {
      "200": {
        description: "Alive",
        content: { "application/json": { schema: { type: "object", properties: { ok: { const: true } } } } },
      },
    },
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "readyz",
    summary: "Readiness",
    description:
      "200 when this node can take traffic; 503 (with Retry-After) naming each reason it cannot, as a short phrase and a stable code in parentheses: `spool_not_writable` (ingest role), `control_plane_unavailable`, `serving_tables_missing` (the lake has data and the serving tables were never built; read role), `chain_unreachable` (no Solana RPC request has succeeded for READY_CHAIN_UNREACHABLE_MS; jobs role). Paths and error texts go to the server's log, not to the answer. Not rate limited.",
    tags: ["Service"],
    responses: {
      "200": {
        description: "Ready",
        content: { "application/json": { schema: { type: "object", properties: { ok: { const: true } } } } },
      },
      "503": {
        description: "Error (unavailable): not ready, the reasons' phrases and codes in the message",
        headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
        content: errorContent,
      },
    },
  },
];
