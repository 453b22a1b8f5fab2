// MCP over Streamable HTTP at /mcp (stateless: each POST gets its own server and transport, JSON
// responses, no session), so any number of clients and server processes can answer without shared
// state. A key (x-api-key or Authorization: Bearer), when sent, must be valid, and the tools'
// `scope: "account"` then restricts answers to its account, like `?scope=account` on the routes.
// app.ts applies the public rate limit before this runs.

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { QuestionDeps } from "../contract";
import { presentedKey } from "../contract";
import { authenticate } from "../control";
import { readBoundedBody } from "../shared/bounded-body";
import { errorBody, TxrayError } from "../shared/errors";
import { createMcpServer } from "./tools";

/** Largest JSON-RPC body /mcp reads (a tool call is a few hundred bytes; a batch of them a few KB). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

export async function handleMcpRequest(request: Request, deps: QuestionDeps): Promise<Response> {
  if (request.method !== "POST") {
    // No sessions, so no server-initiated stream (GET) and nothing to end (DELETE): 405 is how the
    // Streamable HTTP spec says so, and clients then simply do without the stream.
    return Response.json(errorBody("bad_request", "MCP over HTTP here is stateless: POST JSON-RPC messages to /mcp"), {
      status: 405,
      headers: { allow: "POST" },
    });
  }
  const key = presentedKey(request);
  if (key !== null && !authenticate(deps.ctx.control, key))
    throw new TxrayError("unauthorized", "invalid or revoked API key");
  // The transport reads the body itself, unbounded: hand it a copy of the request with the body read here.
  const body = await readBoundedBody(request, MCP_MAX_BODY_BYTES, "MCP request body");
  const bounded = new Request(request.url, { method: request.method, headers: request.headers, body });
  const server = createMcpServer(deps, key);
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
