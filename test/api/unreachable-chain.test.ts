// With the Solana RPC endpoint unreachable (a closed loopback port): an attempt txray holds but has
// not resolved answers 404 `pending` with Retry-After wherever it is (spool, lake, open in the
// resolver; why's look-up on the chain fails and is not an error of txray's),
// and a signature txray does not hold answers 503 `unavailable` with Retry-After, never a 500.
// The RPC client's retries happen as usual; their backoff sleeps return at once (and are counted).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { recordSegment, segmentsAwaitingIntake } from "../../src/control";
import { resolveJob } from "../../src/jobs/resolve";
import { runJob } from "../../src/jobs/run";
import { flushSpool } from "../../src/lake/flush-spool";
import { instantSleeps } from "../helpers/clock";
import { makeEnvelope, randomSignature } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
let key: string;
let rpcUrl: string;
const timers = instantSleeps();

beforeAll(async () => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  rpcUrl = `http://127.0.0.1:${probe.port}/key-abc123`;
  await probe.stop(true);
  // The active segment is sealed only when asked, so the first look finds the attempt in the spool.
  t = await testServer({ SOLANA_RPC_URL: rpcUrl, SPOOL_SEAL_MS: "600000" }, { timers });
  key = t.key("acme");
});
afterAll(async () => await t.stop());

async function expectPending(sig: string) {
  for (const route of ["why", "diagnose-drop"]) {
    const response = await t.get(`/v1/${route}/${sig}`);
    expect({ route, status: response.status, code: response.body.error?.code }).toEqual({
      route,
      status: 404,
      code: "pending",
    });
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
}

test("a just-ingested attempt is 404 pending with Retry-After in the spool, in the lake and open in the resolver", async () => {
  const envelope = makeEnvelope();
  expect((await t.ingest({ apiKey: key, envelopes: [envelope] })).status).toBe(202);
  await expectPending(envelope.sig!); // in the spool's active segment

  await t.server.spool!.seal();
  await expectPending(envelope.sig!); // sealed, not flushed

  expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1 });
  await expectPending(envelope.sig!); // in the lake, not taken into the resolver's queue

  // In the lake, the chain not asked yet by a resolve run: why's own look-up fails, and the answer says
  // so (whether its blockhash expired is not known), with the failure's kind, never the URL.
  const first = await t.get(`/v1/why/${envelope.sig}`);
  expect(first.body.error.message).toStartWith(
    "not resolved yet: the Solana RPC endpoint cannot be reached right now (connection failed, since ",
  );
  expect(first.body.error.message).not.toContain("not expired");
  expect(first.body.error.message).not.toContain(new URL(rpcUrl).host);

  // A resolve run against the unreachable chain takes it in (open), then fails as a job and leaves it
  // pending; the answer now says what is true: the chain out of reach since the first failed run, with
  // the error (its URL, which may carry a key, never shown).
  const before = Date.now();
  const retriesBefore = timers.slept.length;
  const outcome = await runJob(t.ctx, resolveJob);
  expect(outcome.ok).toBe(false);
  // Its RPC client's five retries, each after a backoff from 250 ms doubling (with jitter of ±50%).
  const waits = timers.slept.slice(retriesBefore);
  expect(waits.length).toBe(5);
  waits.forEach((wait, attempt) => {
    expect(wait).toBeGreaterThanOrEqual(125 * 2 ** attempt);
    expect(wait).toBeLessThanOrEqual(375 * 2 ** attempt);
  });
  await expectPending(envelope.sig!);
  // The resolver looks an open attempt up again within seconds.
  expect((await t.get(`/v1/why/${envelope.sig}`)).headers.get("retry-after")).toBe("2");
  const message: string = (await t.get(`/v1/why/${envelope.sig}`)).body.error.message;
  expect(message).toStartWith("not resolved yet: txray has not been able to resolve attempts against the chain since ");
  const since = Date.parse(/since (\S+Z)/.exec(message)![1]);
  expect(since).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  expect(since).toBeLessThanOrEqual(Date.now());
  expect(message).not.toContain("key-abc123");
  expect(message).not.toContain(new URL(rpcUrl).host);
  expect(message).not.toContain("not expired");
}, 60_000);

test("a signature txray does not hold, with the chain unreachable: 503 unavailable with Retry-After, the URL never shown", async () => {
  const sig = randomSignature();
  const retriesBefore = timers.slept.length;
  const response = await t.get(`/v1/why/${sig}`);
  expect(response.status).toBe(503);
  expect(timers.slept.length - retriesBefore).toBe(2); // why's look-up was retried twice before giving up
  expect(Object.keys(response.body)).toEqual(["error"]);
  expect(response.body.error.code).toBe("unavailable");
  expect(typeof response.body.error.message).toBe("string");
  expect(JSON.stringify(response.body)).not.toContain("key-abc123");
  expect(JSON.stringify(response.body)).not.toContain(new URL(rpcUrl).host);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  // diagnose-drop never asks the chain: a signature txray does not hold is simply not found.
  const drop = await t.get(`/v1/diagnose-drop/${sig}`);
  expect(drop.status).toBe(404);
  expect(drop.body.error.code).toBe("not_found");
});

test("a resolver far behind: an attempt just flushed is found among the newest segments awaiting intake (404 pending), not missed behind 200 older ones", async () => {
  // A backlog: 250 older segments awaiting intake (here: readable parts of an earlier flush without
  // the attempt), then this attempt's segment.
  const earlier = makeEnvelope();
  expect((await t.ingest({ apiKey: key, envelopes: [earlier] })).status).toBe(202);
  await t.server.spool!.seal();
  expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1 });
  const [{ flushBatch, days }] = segmentsAwaitingIntake(t.ctx.control, 1, "newest first");
  const backlogFrom = Date.now() - 60_000;
  for (let i = 0; i < 250; i++)
    recordSegment(t.ctx.control, `backlog-${String(i).padStart(3, "0")}`, 20_000, days, backlogFrom + i, flushBatch);
  const envelope = makeEnvelope();
  expect((await t.ingest({ apiKey: key, envelopes: [envelope] })).status).toBe(202);
  await t.server.spool!.seal();
  expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1 });
  await expectPending(envelope.sig!);
}, 60_000);
