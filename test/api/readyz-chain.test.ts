// GET /readyz and the chain: a node that runs jobs is not ready once no Solana RPC request has
// succeeded for READY_CHAIN_UNREACHABLE_MS, and ready again at the first answer; ingest and read
// nodes, which answer without the chain, stay ready; `off` never lets the chain make a node unready.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chainHealth } from "../../src/chain/rpc";
import { advancingClock, instantSleeps } from "../helpers/clock";
import { randomSignature } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const MINUTE = 60_000;
const CHAIN_UNREACHABLE =
  "not ready: the Solana RPC endpoint has not answered for longer than READY_CHAIN_UNREACHABLE_MS (chain_unreachable)";

/** A loopback RPC endpoint that answers 502 until `answering`, then `result: null` to every call. */
let answering = false;
const rpc = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    if (!answering) return new Response("bad gateway", { status: 502 });
    const body = (await request.json()) as { id: unknown } | { id: unknown }[];
    const reply = (call: { id: unknown }) => ({ jsonrpc: "2.0", id: call.id, result: null });
    return Response.json(Array.isArray(body) ? body.map(reply) : reply(body));
  },
});
const clock = advancingClock();
const servers: TestServer[] = [];
const start = async (env: Record<string, string>) => {
  const server = await testServer(
    { SOLANA_RPC_URL: `http://127.0.0.1:${rpc.port}`, WHY_CHAIN_TIMEOUT_MS: "200", ...env },
    { timers: instantSleeps(), clock },
  );
  servers.push(server);
  return server;
};
let t: TestServer;

beforeAll(async () => {
  t = await start({ READY_CHAIN_UNREACHABLE_MS: "300000" });
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await rpc.stop(true);
});

test("a node with every role: ready through a short outage, 503 chain_unreachable after the setting, ready at the first answer", async () => {
  // `why` of a signature txray never took in asks the chain, which refuses.
  expect((await t.get(`/v1/why/${randomSignature()}`)).status).toBe(503);
  expect((await t.get("/v1/status")).body.chain.reachable).toBe(false);
  expect((await t.get("/readyz")).status).toBe(200);

  clock.advance(4 * MINUTE);
  expect((await t.get("/readyz")).status).toBe(200);
  clock.advance(MINUTE);
  const notReady = await t.get("/readyz");
  expect(notReady.status).toBe(503);
  expect(notReady.body.error.code).toBe("unavailable");
  expect(notReady.body.error.message).toBe(CHAIN_UNREACHABLE);
  expect(notReady.body.error.message).not.toContain(String(rpc.port));
  expect(notReady.headers.get("retry-after")).toBe("5");
  expect((await t.get("/healthz")).status).toBe(200);

  answering = true;
  try {
    expect((await t.get(`/v1/why/${randomSignature()}`)).status).toBe(404);
    expect((await t.get("/v1/status")).body.chain.reachable).toBe(true);
    expect((await t.get("/readyz")).status).toBe(200);
  } finally {
    answering = false;
  }
});

test("ingest and read nodes stay ready however long the chain is out; `off` ignores the chain", async () => {
  const nodes: Record<string, string>[] = [
    { TXRAY_ROLES: "ingest" },
    { TXRAY_ROLES: "read" },
    { TXRAY_ROLES: "ingest,read" },
    { READY_CHAIN_UNREACHABLE_MS: "off" },
  ];
  for (const env of nodes) {
    const node = await start(env);
    // The resolver's record of a refused request, as its RPC client writes it.
    chainHealth(node.ctx, "resolve").note({ ok: false, failure: "http_5xx", method: "getSignatureStatuses" });
    clock.advance(60 * MINUTE);
    expect((await node.get("/v1/status")).body.chain.reachable).toBe(false);
    expect((await node.get("/readyz")).status).toBe(200);
  }
});

test("a bad setting stops start-up naming it", async () => {
  await expect(start({ READY_CHAIN_UNREACHABLE_MS: "soon" })).rejects.toThrow("READY_CHAIN_UNREACHABLE_MS");
});
