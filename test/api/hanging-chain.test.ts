// With a Solana RPC endpoint that accepts connections and never answers (a loopback server whose
// requests hang): `why` answers within WHY_CHAIN_TIMEOUT_MS, truthfully (the chain cannot be reached;
// never "its blockhash has not expired"), and /v1/status says the chain is unreachable, since when
// and why, and counts the resolver's hung requests while its run is still waiting. A block height
// answered late (after a minute of retries) is not kept for drop classification.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../src/chain/idl";
import { resolvePending } from "../../src/chain/resolve";
import type { RpcClient } from "../../src/chain/rpc";
import { blockHeightObservations } from "../../src/control";
import { resolveJob } from "../../src/jobs/resolve";
import { runJob } from "../../src/jobs/run";
import { flushSpool } from "../../src/lake/flush-spool";
import { advancingClock, instantSleeps } from "../helpers/clock";
import { makeEnvelope, randomSignature } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
let key: string;
const hung: (() => void)[] = [];
const rpc = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Promise<Response>((resolve) => hung.push(() => resolve(new Response("late", { status: 500 })))),
});
const rpcUrl = `http://127.0.0.1:${rpc.port}/key-abc123`;
const clock = advancingClock();

beforeAll(async () => {
  t = await testServer(
    { SOLANA_RPC_URL: rpcUrl, WHY_CHAIN_TIMEOUT_MS: "100", SOLANA_RPC_TIMEOUT_MS: "40" },
    { timers: instantSleeps(), clock },
  );
  key = t.key("acme");
});
afterAll(async () => {
  await t.stop();
  for (const answer of hung) answer();
  await rpc.stop(true);
});

test("why of an attempt txray holds: 404 pending saying the chain cannot be reached, never that its blockhash has not expired", async () => {
  const envelope = makeEnvelope();
  expect((await t.ingest({ apiKey: key, envelopes: [envelope] })).status).toBe(202);
  const response = await t.get(`/v1/why/${envelope.sig}`);
  expect(response.status).toBe(404);
  expect(response.body.error.code).toBe("pending");
  expect(response.body.error.message).toStartWith(
    "not resolved yet: the Solana RPC endpoint cannot be reached right now (no answer within the timeout, since ",
  );
  expect(response.body.error.message).not.toContain("not expired");
  expect(JSON.stringify(response.body)).not.toContain(String(rpc.port));
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});

test("why of a signature txray never took in: 503 unavailable with Retry-After, in the error shape", async () => {
  const response = await t.get(`/v1/why/${randomSignature()}`);
  expect(response.status).toBe(503);
  expect(Object.keys(response.body)).toEqual(["error"]);
  expect(response.body.error.code).toBe("unavailable");
  expect(response.body.error.message).toContain("no answer within the timeout");
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});

test("/v1/status: the chain unreachable since the first hung request, and the resolve job's hung requests while it runs", async () => {
  const status = (await t.get("/v1/status")).body;
  expect(status.chain).toMatchObject({ reachable: false, lastError: "timeout", lastOkAt: null });
  expect(status.chain.failuresLastMinute).toBeGreaterThanOrEqual(2);
  expect(status.chain.since).toBeLessThanOrEqual(Date.now());

  await t.server.spool!.seal();
  expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1 });
  const run = runJob(t.ctx, resolveJob);
  let during: { ok: boolean | null; rpcFailuresLastMinute?: number } | undefined;
  for (let i = 0; i < 200 && !(during?.ok === null && (during.rpcFailuresLastMinute ?? 0) > 0); i++) {
    await Bun.sleep(10);
    during = (await t.get("/v1/status")).body.jobs.resolve;
  }
  // Still running (no run has failed yet), its hung requests already counted.
  expect(during).toMatchObject({ ok: null, rpcLastError: "timeout" });
  expect(during!.rpcFailuresLastMinute).toBeGreaterThan(0);
  expect((await run).ok).toBe(false);
  const after = (await t.get("/v1/status")).body;
  expect(after.jobs.resolve).toMatchObject({ ok: false, consecutiveFailures: 1, rpcLastError: "timeout" });
  expect(after.chain.reachable).toBe(false);
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  expect(metrics).toContain("txray_chain_unreachable 1");
});

test("a block height answered late is not kept; one answered promptly is kept at the time it arrived", async () => {
  // The chain answers again, in-process: getBlockHeight after `delayMs` of this context's clock; nothing found.
  const chain = (delayMs: number): RpcClient => ({
    async call<T>(method: string, params: unknown[] = []) {
      if (method === "getSignatureStatuses") return { value: (params[0] as string[]).map(() => null) } as T;
      clock.advance(delayMs);
      return 289_000_000 as T;
    },
    async batch<T>(calls: { method: string; params: unknown[] }[]) {
      return calls.map((c) => ({ value: (c.params[0] as string[]).map(() => null) })) as T[];
    },
    stats: () => ({ httpRequests: 0, calls: 0, retries: 0 }),
  });
  const idls = loadIdls(t.ctx.paths.root);
  clock.advance(60_000);
  await resolvePending(t.ctx, { rpc: chain(60_000), idls, recheckDelayMs: 10 });
  expect(blockHeightObservations(t.ctx.control)).toEqual([]);
  clock.advance(60_000);
  await resolvePending(t.ctx, { rpc: chain(0), idls, recheckDelayMs: 10 });
  const kept = blockHeightObservations(t.ctx.control);
  expect(kept).toHaveLength(1);
  expect(kept[0].height).toBe(289_000_000);
  expect(Math.abs(kept[0].observed_at - clock())).toBeLessThan(5_000);
});
