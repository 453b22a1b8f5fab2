// The MCP surface: the tool twins of the read routes (tools.ts) over Streamable HTTP (http.ts, /mcp
// on the server) and stdio (main.ts, `bun run mcp`).

export { handleMcpRequest, MCP_MAX_BODY_BYTES } from "./http";
export { createMcpServer, inputSchema } from "./tools";
