// GET /v1/programs (keyed, paginated, per account) and GET /v1/status (public).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { recordJobStart } from "../../src/control";
import { flushJob } from "../../src/jobs/flush";
import { resolveJob } from "../../src/jobs/resolve";
import { runJob } from "../../src/jobs/run";
import { flushSpool } from "../../src/lake/flush-spool";
import { advancingClock } from "../helpers/clock";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";
import { type TestServer, testServer } from "../helpers/server";

const clock = advancingClock();
let t: TestServer;
let rpc: Awaited<ReturnType<typeof startFakeRpc>>;
let acme: string;
let other: string;
const acmePrograms = [randomAddress(), randomAddress(), randomAddress()].sort();

beforeAll(async () => {
  rpc = await startFakeRpc(); // every signature unknown at block height 1,000,000: the attempts stay open
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
  acme = t.key("acme");
  other = t.key("other");
  for (const [i, program] of acmePrograms.entries()) {
    const envelopes = Array.from({ length: i + 1 }, () => makeEnvelope({ program }));
    expect((await t.ingest({ apiKey: acme, envelopes })).status).toBe(202);
  }
  expect((await t.ingest({ apiKey: other, envelopes: [makeEnvelope({ program: randomAddress() })] })).status).toBe(202);
  const outcome = await runJob(t.ctx, flushJob, { spool: t.server.spool! });
  expect(outcome.ok).toBe(true);
});
afterAll(async () => {
  await t.stop();
  await rpc.stop();
});

describe("GET /v1/programs", () => {
  test("lists the key's account's programs with counts, in pages", async () => {
    const first = await t.get("/v1/programs?limit=2", { "x-api-key": acme });
    expect(first.status).toBe(200);
    expect(first.body.items.map((i: any) => i.program)).toEqual(acmePrograms.slice(0, 2));
    expect(first.body.items.map((i: any) => i.attempts)).toEqual([1, 2]);
    expect(typeof first.body.items[0].lastSeen).toBe("number");
    expect(typeof first.body.nextCursor).toBe("string");
    const second = await t.get(`/v1/programs?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, {
      "x-api-key": acme,
    });
    expect(second.body.items.map((i: any) => [i.program, i.attempts])).toEqual([[acmePrograms[2], 3]]);
    expect(second.body.nextCursor).toBeNull();
  });

  test("a read-only key of the same account sees the same list; another account sees only its own", async () => {
    const readKey = t.key("acme", "read");
    expect((await t.get("/v1/programs", { "x-api-key": readKey })).body.items.length).toBe(3);
    const others = await t.get("/v1/programs", { "x-api-key": other });
    expect(others.body.items.length).toBe(1);
    expect(acmePrograms).not.toContain(others.body.items[0].program);
  });

  test("401 without a key or with a wrong one", async () => {
    const missing = await t.get("/v1/programs");
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe("unauthorized");
    expect((await t.get("/v1/programs", { "x-api-key": `txr_live_${"z".repeat(32)}` })).status).toBe(401);
  });

  test("400 for a tampered or malformed cursor and a bad limit", async () => {
    const first = await t.get("/v1/programs?limit=1", { "x-api-key": acme });
    const [payload, signature] = first.body.nextCursor.split(".");
    const forged = `${Buffer.from(JSON.stringify({ after: "" })).toString("base64url")}.${signature}`;
    for (const cursor of [forged, `${payload}.AAAA`, "garbage", "a.b.c"]) {
      const response = await t.get(`/v1/programs?cursor=${encodeURIComponent(cursor)}`, { "x-api-key": acme });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("bad_request");
    }
    for (const limit of ["0", "501", "ten", "-1"]) {
      expect((await t.get(`/v1/programs?limit=${limit}`, { "x-api-key": acme })).status).toBe(400);
    }
  });
});

describe("GET /v1/status", () => {
  test("public: version, lake row count, spool backlog and the last run of each job", async () => {
    const response = await t.get("/v1/status");
    expect(response.status).toBe(200);
    expect(response.body.version).toBe("0.4.0");
    expect(response.body.build).toMatch(/^([0-9a-f]{12}|unknown)$/);
    expect(response.body.lake.envelopes).toBe(7);
    expect(response.body.lake.spoolBacklog).toBe(0);
    expect(response.body.jobs.flush.ok).toBe(true);
    expect(typeof response.body.jobs.flush.lastRunAt).toBe("number");
    expect(typeof response.body.jobs.flush.durationMs).toBe("number");
  });

  test("unknown routes are 404 not_found in the same shape", async () => {
    const response = await t.get("/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  test("the resolver's backlog: envelopes awaiting intake, then attempts open (waiting for the chain)", async () => {
    const before = (await t.get("/v1/status")).body.resolver;
    expect(before).toEqual({ pendingAttempts: 0, awaitingIntake: 7, lagMs: expect.any(Number) });
    expect(before.lagMs).toBeGreaterThanOrEqual(0); // the flushed segment's wait so far
    const run = await runJob(t.ctx, resolveJob);
    expect(run.details).toMatchObject({ intake: { segments: 1, attempts: 7 }, stillPending: 7 });
    clock.advance(1_100); // the count is reused for a second (a public route)
    const after = (await t.get("/v1/status")).body.resolver;
    expect(after).toEqual({ pendingAttempts: 7, awaitingIntake: 0, lagMs: expect.any(Number) });
    // Looked up once (not found, not expired) and due again a second later: the lag is that second at most, not the intake's age.
    expect(after.lagMs).toBeLessThan(10_000);
  });

  test("a second flush has nothing to do and counts nothing twice", async () => {
    expect(await flushSpool(t.ctx)).toEqual({ segments: 0, rows: 0 });
    expect((await t.get("/v1/status")).body.lake.envelopes).toBe(7);
  });

  test("while a job's run is going, its latest finished run is shown beside it, details and all", async () => {
    const finished = (await t.get("/v1/status")).body.jobs.resolve;
    expect(finished).toMatchObject({ ok: true, lastFinished: null });
    recordJobStart(t.ctx.control, "resolve", clock()); // a run under way, as a resolver running back to back always has
    const going = (await t.get("/v1/status")).body.jobs.resolve;
    expect(going).toMatchObject({ ok: null, details: null, durationMs: null });
    expect(going.lastFinished).toEqual({
      startedAt: finished.lastRunAt,
      ok: true,
      durationMs: finished.durationMs,
      error: null,
      details: finished.details,
    });
    expect(going.lastFinished.details.stepsMs).toEqual(expect.any(Object));
  });
});
