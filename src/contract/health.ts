// GET /healthz and GET /readyz (docs/operations.md, "Metrics and health"). Liveness checks nothing
// but that the process answers; readiness names every reason this node should not get traffic yet:
// its spool directory is not writable (ingest role), the control plane does not answer, or the
// lake has data and the serving tables were never built (read role: the analytical routes could
// answer nothing). Stale but built serving tables keep a node ready: it answers from the last good
// version, and /v1/status says how old it is.

import { accessSync, constants } from "node:fs";
import { readPointer } from "../analytics/serving/pointer";
import { parseRoles } from "../config";
import type { Context } from "../context";
import { controlPlaneProblem, lakeRowCount } from "../control";

export type Readiness = { ready: true } | { ready: false; reasons: string[] };

export function readiness(ctx: Context): Readiness {
  const roles = parseRoles(ctx.config.TXRAY_ROLES);
  const reasons: string[] = [];
  if (roles.allows("ingest")) {
    const dir = ctx.paths.spool(ctx.config.TXRAY_NODE_ID);
    try {
      // access(2) reports a missing directory, a read-only file system and (for other users than root) permissions.
      accessSync(dir, constants.W_OK);
    } catch (error) {
      reasons.push(`the spool directory ${dir} is not writable: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  }
  const control = controlPlaneProblem(ctx.control);
  if (control !== null) reasons.push(`the control plane does not answer: ${control}`);
  // Two cheap reads, not /v1/status's freshness: a probe runs every few seconds, unauthenticated.
  else if (roles.allows("read") && readPointer(ctx.paths) === null && lakeRowCount(ctx.control) > 0)
    reasons.push(
      "the serving tables are missing: the lake has data but the tables job has not built the serving tables yet",
    );
  return reasons.length === 0 ? { ready: true } : { ready: false, reasons };
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
      "200 when this node can take traffic; 503 (with Retry-After) naming each reason it cannot: its spool directory is not writable (ingest role), the control plane does not answer, or the lake has data and the serving tables were never built (read role). Not rate limited.",
    tags: ["Service"],
    responses: {
      "200": {
        description: "Ready",
        content: { "application/json": { schema: { type: "object", properties: { ok: { const: true } } } } },
      },
      "503": { description: "Error (unavailable): not ready, the reasons in the message", content: errorContent },
    },
  },
];
