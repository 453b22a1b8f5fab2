// MCP over Streamable HTTP at /mcp (stateless: each POST gets its own server and transport, JSON
// responses, no session), so any number of clients and server processes can answer without shared
// state. A key (x-api-key or Authorization: Bearer), when sent, must be valid, and the tools'
// `scope: "account"` then restricts answers to its account, like `?scope=account` on the routes.
// app.ts applies the public rate limit before this runs; origin.ts refuses what DNS rebinding sends.

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { QuestionDeps } from "../contract";
import { presentedKey } from "../contract";
import { authenticate } from "../control";
import { readBoundedBody } from "../shared/bounded-body";
import { errorBody } from "../shared/errors";
import { originGuard } from "./origin";
import { createMcpServer } from "./tools";

/** Largest JSON-RPC body /mcp reads (a tool call is a few hundred bytes; a batch of them a few KB). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

const INVALID_KEY = "invalid or revoked API key";

/**
 * The 401 for a key that is not valid, with the challenge RFC 6750 asks of a Bearer resource. It names no
 * `resource_metadata` (and the server publishes no OAuth protected-resource metadata), so a client following the
 * MCP authorization spec shows the error instead of starting an OAuth flow: keys are issued by an operator, not
 * by an authorization server.
 */
function invalidKey(): Response {
  return new Response(JSON.stringify(errorBody("unauthorized", INVALID_KEY)), {
    status: 401,
    headers: {
      "content-type": "application/json",
      "www-authenticate": `Bearer realm="txray", error="invalid_token", error_description="${INVALID_KEY}"`,
    },
  });
}

/** `client`: who asks (the HTTP client, docs/security.md "Client identity"), for per-client limits. */
export async function handleMcpRequest(request: Request, deps: QuestionDeps, client?: string): Promise<Response> {
  const refusal = originGuard(deps.ctx.config)(request);
  if (refusal) return refusal;
  if (request.method !== "POST") {
    // No sessions, so no server-initiated stream (GET) and nothing to end (DELETE): 405 is how the
    // Streamable HTTP spec says so, and clients then simply do without the stream.
    return Response.json(errorBody("bad_request", "MCP over HTTP here is stateless: POST JSON-RPC messages to /mcp"), {
      status: 405,
      headers: { allow: "POST" },
    });
  }
  const key = presentedKey(request);
  if (key !== null && !authenticate(deps.ctx.control, key)) return invalidKey();
  // The transport reads the body itself, unbounded: hand it a copy of the request with the body read here.
  const body = await readBoundedBody(request, MCP_MAX_BODY_BYTES, "MCP request body");
  const bounded = new Request(request.url, { method: request.method, headers: request.headers, body });
  const server = createMcpServer(deps, key, client);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(bounded);
  } finally {
    // With JSON responses the answer is complete once handleRequest resolves.
    void server.close();
  }
}
