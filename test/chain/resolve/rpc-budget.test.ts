// The resolver's calls to its provider stay within RESOLVE_RPC_CALLS_PER_SECOND (bursts of 10 s of
// it): a round looks up only the sends whose status calls the budget pays for, granted round-robin
// across accounts, so a flood of made-up sends from one account neither exceeds the budget nor keeps
// another account's sends from being looked up; the rest wait until the budget refills.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { createAccountKey } from "../../../src/control";
import { resolveJob } from "../../../src/jobs/resolve";
import { runJob } from "../../../src/jobs/run";
import { flushSpool } from "../../../src/lake/flush-spool";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope } from "../../helpers/envelopes";
import { parsePrometheusText } from "../../helpers/prometheus-text";
import { type TestServer, testServer } from "../../helpers/server";

const HEIGHT = 300_000_000;
const FLOOD = 600;
const clock = advancingClock();
/** Signatures whose status was asked, per getSignatureStatuses call. */
const statusCalls: string[][] = [];
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = (await request.json()) as any;
    const answer = (call: { id: unknown; method: string; params?: any[] }) => {
      if (call.method === "getBlockHeight") return { jsonrpc: "2.0", id: call.id, result: HEIGHT };
      const sigs = call.params![0] as string[];
      statusCalls.push(sigs);
      return { jsonrpc: "2.0", id: call.id, result: { context: { slot: 1 }, value: sigs.map(() => null) } };
    };
    return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
  },
});
const url = `http://127.0.0.1:${provider.port}`;
let t: TestServer;
const honestSigs: string[] = [];

beforeAll(async () => {
  t = await testServer({ SOLANA_RPC_URL: url, RESOLVE_RPC_CALLS_PER_SECOND: "0.3" }, { clock });
  const flood = createAccountKey(t.ctx.control, "flood", "ingest", Date.now()).key;
  const honest = createAccountKey(t.ctx.control, "honest", "ingest", Date.now()).key;
  for (let sent = 0; sent < FLOOD; sent += 300) {
    const envelopes = Array.from({ length: 300 }, () => makeEnvelope({ lastValidBlockHeight: 1e12, sentAt: clock() }));
    expect((await t.ingest({ envelopes }, { "x-api-key": flood })).status).toBe(202);
  }
  const sends = Array.from({ length: 5 }, () => makeEnvelope({ lastValidBlockHeight: HEIGHT + 150, sentAt: clock() }));
  honestSigs.push(...sends.map((s) => s.sig!));
  expect((await t.ingest({ envelopes: sends }, { "x-api-key": honest })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
});
afterAll(async () => {
  await t.stop();
  provider.stop();
});

test("a round's calls stay within the budget, and another account's sends are looked up first", async () => {
  const rpc = createRpcClient({ url });
  const options = { rpc, idls: loadIdls(t.ctx.paths.root) };
  const first = await resolvePending(t.ctx, options);
  expect(first.intake.attempts).toBe(FLOOD + 5);
  // 0.3 calls/s, bursts of 10 s: the block height and 2 calls of 256 statuses; the honest sends among them.
  expect(rpc.stats().calls).toBe(3);
  const asked = statusCalls.flat();
  expect(asked.length).toBe(2 * 256);
  for (const sig of honestSigs) expect(asked).toContain(sig);
  // The run says what the budget held at its end and how many sends it could not pay for.
  expect(first.callBudget).toEqual({ callsPerSecond: 0.3, availableCalls: 0, deferredSends: FLOOD + 5 - 2 * 256 });

  // The budget is spent: the next run asks nothing, and says when the sends are due again.
  const second = await resolvePending(t.ctx, options);
  expect(rpc.stats().calls).toBe(3);
  expect(second.nextRunInMs).toBeGreaterThan(0);
  expect(second.nextRunInMs).toBeLessThanOrEqual(7_000); // two calls' worth of refill at 0.3 calls/s

  // Refilled (10 s), the due sends are looked up, within the budget again.
  clock.advance(10_000);
  const third = await resolvePending(t.ctx, options);
  expect(rpc.stats().calls).toBe(6);
  expect(third.stillPending).toBe(FLOOD + 5);
});

test("/metrics shows the budget as the resolve job's latest run left it", async () => {
  clock.advance(10_000);
  const outcome = await runJob(t.ctx, resolveJob);
  expect(outcome.ok).toBe(true);
  const details = outcome.details as { callBudget: { availableCalls: number; deferredSends: number } };
  const families = parsePrometheusText(await (await fetch(`${t.url}/metrics`)).text());
  const gauge = (name: string) => families.get(name)?.samples[0]?.value;
  expect(gauge("txray_resolver_rpc_budget_calls_per_second")).toBe(0.3);
  expect(gauge("txray_resolver_rpc_budget_available_calls")).toBe(details.callBudget.availableCalls);
  expect(gauge("txray_resolver_sends_deferred_by_budget")).toBe(details.callBudget.deferredSends);
  expect(details.callBudget.deferredSends).toBeGreaterThan(0);
});
