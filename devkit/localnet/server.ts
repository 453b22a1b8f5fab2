// One network endpoint of the local chain: a Bun.serve HTTP server taking JSON-RPC POSTs (single or
// batch) and WebSocket upgrades for pub/sub on the same port. Like agave-validator (RPC 8899, PubSub
// 8900) it also tries to serve PubSub on port + 1, because web3.js derives its WebSocket URL that way
// from an explicit port; when that port is taken, clients pass `wsEndpoint` (= `wsUrl`) instead.

import type { Server } from "bun";
import { type Dispatch, handleJsonRpc } from "./jsonrpc.ts";
import type { PubSub } from "./pubsub.ts";

export interface EndpointOptions {
  hostname: string;
  port: number;
  dispatch: Dispatch;
  pubsub: PubSub;
  /** Also serve PubSub on port + 1 when free (default true). */
  wsCompanion?: boolean;
}

export interface Endpoint {
  url: string;
  /** PubSub URL on the same port (always available). */
  wsUrl: string;
  port: number;
  /** Port + 1 PubSub URL when the companion listener could bind it. */
  companionWsUrl: string | null;
  stop(): Promise<void>;
}

interface SocketData {
  subscriptions: Set<number>;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Like agave's RPC (cors AllowOrigin Any): browser code on any origin may call the chain. */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type, solana-client",
};

function hostForUrl(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

type Socket = { close(code?: number, reason?: string): void };

function listen(
  hostname: string,
  port: number,
  pubsub: PubSub,
  dispatch: Dispatch | null,
  sockets: Set<Socket>,
): Server<SocketData> {
  return Bun.serve<SocketData>({
    hostname,
    port,
    maxRequestBodySize: MAX_BODY_BYTES,
    async fetch(request, server) {
      if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
        if (server.upgrade(request, { data: { subscriptions: new Set<number>() } })) return undefined;
        return new Response("WebSocket upgrade failed", { status: 400 });
      }
      if (dispatch === null) return new Response("Method Not Allowed", { status: 405 });
      const path = new URL(request.url).pathname;
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
      if (request.method === "GET" && path === "/health") return new Response("ok", { headers: CORS_HEADERS });
      if (request.method !== "POST") {
        return new Response("Used HTTP Method is not allowed. POST or OPTIONS is required", {
          status: 405,
          headers: CORS_HEADERS,
        });
      }
      const body = await request.text();
      const answer = await handleJsonRpc(body, dispatch);
      return new Response(answer ?? "", {
        headers: { "content-type": "application/json; charset=utf-8", ...CORS_HEADERS },
      });
    },
    websocket: {
      data: {} as SocketData,
      open(socket) {
        sockets.add(socket);
      },
      message(socket, message) {
        void pubsub.message(socket, typeof message === "string" ? message : Buffer.from(message).toString("utf8"));
      },
      close(socket) {
        sockets.delete(socket);
        pubsub.close(socket);
      },
    },
  });
}

export function serveEndpoint(options: EndpointOptions): Endpoint {
  // Open PubSub sockets, closed with 1000 on stop: web3.js reconnects forever after any other code.
  const sockets = new Set<Socket>();
  const server = listen(options.hostname, options.port, options.pubsub, options.dispatch, sockets);
  const port = server.port!;
  let companion: Server<SocketData> | null = null;
  if (options.wsCompanion !== false && port < 65535) {
    try {
      companion = listen(options.hostname, port + 1, options.pubsub, null, sockets);
    } catch {
      companion = null;
    }
  }
  const host = hostForUrl(options.hostname);
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}`,
    port,
    companionWsUrl: companion ? `ws://${host}:${port + 1}` : null,
    async stop() {
      for (const socket of sockets) socket.close(1000, "localnet stopping");
      sockets.clear();
      await Promise.all([server.stop(true), companion?.stop(true)]);
    },
  };
}
