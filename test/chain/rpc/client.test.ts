// The jobs' JSON-RPC client against a real loopback server that misbehaves on purpose: retries on
// 429 (honouring Retry-After) and 5xx, no retry on other 4xx, batches answered out of order,
// JSON-RPC errors per call, and a concurrency limit that holds.
import { afterAll, expect, test } from "bun:test";
import { createRpcClient, RpcError } from "../../../src/chain/rpc";

let mode: "ok" | "429-once" | "500-twice" | "400" = "ok";
let failures = 0;
let inFlight = 0;
let maxInFlight = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as any;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await Bun.sleep(5);
    inFlight--;
    if (mode === "429-once" && failures < 1) {
      failures++;
      return new Response("slow down", { status: 429, headers: { "retry-after": "0" } });
    }
    if (mode === "500-twice" && failures < 2) {
      failures++;
      return new Response("oops", { status: 500 });
    }
    if (mode === "400") return new Response("bad", { status: 400 });
    const answer = (call: any) =>
      call.method === "fail"
        ? { jsonrpc: "2.0", id: call.id, error: { code: -32602, message: "Invalid params", data: { why: "test" } } }
        : { jsonrpc: "2.0", id: call.id, result: { echo: call.params } };
    return Response.json(Array.isArray(body) ? body.map(answer).reverse() : answer(body));
  },
});
const url = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));
const noSleep = async () => {};

test("a call, and a batch whose replies come back out of order", async () => {
  mode = "ok";
  const rpc = createRpcClient({ url });
  expect(await rpc.call("getSlot", [1])).toEqual({ echo: [1] });
  const replies = await rpc.batch([
    { method: "a", params: [1] },
    { method: "fail", params: [] },
    { method: "c", params: [3] },
  ]);
  expect(replies[0]).toEqual({ echo: [1] });
  expect(replies[1]).toBeInstanceOf(RpcError);
  expect((replies[1] as RpcError).code).toBe(-32602);
  expect(replies[2]).toEqual({ echo: [3] });
  expect(rpc.stats()).toEqual({ httpRequests: 2, calls: 4, retries: 0 });
});

test("429 is retried after Retry-After; 5xx with backoff; other 4xx fail at once", async () => {
  mode = "429-once";
  failures = 0;
  const rpc = createRpcClient({ url, sleep: noSleep });
  expect(await rpc.call("x", [])).toEqual({ echo: [] });
  expect(rpc.stats().retries).toBe(1);

  mode = "500-twice";
  failures = 0;
  const delays: number[] = [];
  const retrying = createRpcClient({ url, backoffMs: 100, sleep: async (ms) => void delays.push(ms) });
  expect(await retrying.call("x", [])).toEqual({ echo: [] });
  expect(delays.length).toBe(2);
  // Doubling from 100 ms, each with jitter of ×0.5 to ×1.5 (two random draws need not be ordered).
  expect(delays[0]).toBeGreaterThanOrEqual(50);
  expect(delays[0]).toBeLessThan(150);
  expect(delays[1]).toBeGreaterThanOrEqual(100);
  expect(delays[1]).toBeLessThan(300);

  mode = "400";
  const failing = createRpcClient({ url, sleep: noSleep });
  await expect(failing.call("x", [])).rejects.toThrow("HTTP 400");
  expect(failing.stats().retries).toBe(0);
});

test("gives up after maxRetries with the origin only (an RPC URL may carry a key)", async () => {
  mode = "500-twice";
  failures = -100;
  const rpc = createRpcClient({ url: `${url}/secret-key-123`, maxRetries: 2, sleep: noSleep });
  const error = await rpc.call("x", []).catch((e) => e as Error);
  expect(String(error)).toContain("after 3 attempts");
  expect(String(error)).not.toContain("secret-key-123");
});

test("never more requests in flight than the concurrency limit", async () => {
  mode = "ok";
  maxInFlight = 0;
  const rpc = createRpcClient({ url, concurrency: 2 });
  await Promise.all(Array.from({ length: 12 }, (_, i) => rpc.call("x", [i])));
  expect(maxInFlight).toBe(2);
});

test("each request's outcome names its JSON-RPC method (a batch's first) and its result", async () => {
  mode = "500-twice";
  failures = 0;
  const outcomes: unknown[] = [];
  const client = createRpcClient({ url, sleep: noSleep, onOutcome: (outcome) => outcomes.push(outcome) });
  await client.call("getBlockHeight");
  mode = "ok";
  await client.batch([
    { method: "getTransaction", params: [] },
    { method: "getTransaction", params: [] },
  ]);
  expect(outcomes).toEqual([
    { ok: false, failure: "http_5xx", method: "getBlockHeight" },
    { ok: false, failure: "http_5xx", method: "getBlockHeight" },
    { ok: true, method: "getBlockHeight" },
    { ok: true, method: "getTransaction" },
  ]);
});
