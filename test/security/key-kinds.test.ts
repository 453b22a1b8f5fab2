// Key kinds as a stranger holding a browser's key would use them: an ingest key (txr_ingest_…)
// ingests exactly like an admin key, in the header and the body, on the main thread and in an ingest
// worker, and every route that needs a key answers 403 `forbidden` to it: alert rules, programs,
// `?scope=account` reads and MCP's scoped calls. An admin key (txr_live_…) still does everything
// and a read key reads. One server for the routes and a second one with an ingest worker.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ErrorBodySchema } from "../../src/analytics/queries/schemas";
import { looksLikeKey } from "../../src/control";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
const keys = { admin: "", read: "", ingest: "" };
const program = randomAddress();
let ruleId = "";

beforeAll(async () => {
  t = await testServer({ INGEST_WORKERS: "0", ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8" });
  keys.admin = t.key("kinds");
  keys.read = t.key("kinds", "read");
  keys.ingest = t.key("kinds", "ingest");
  const ingested = await t.ingest({ envelopes: [makeEnvelope({ program })] }, { "x-api-key": keys.ingest });
  expect(ingested.status).toBe(202);
  expect((await runJob(t.ctx, flushJob, { spool: t.server.spool ?? undefined })).ok).toBe(true);
  const created = await call("POST", "/v1/alerts", keys.admin, {
    program,
    rule: "new_issue",
    destination: { type: "webhook", url: "http://127.0.0.1:9/hook", secret: "s3cr3t-0123456789abcdef" },
  });
  expect(created.status).toBe(201);
  ruleId = created.body.id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function mcpCall(key: string, args: Record<string, unknown>) {
  const response = await fetch(`${t.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "baseline", arguments: args },
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as any).result;
}

function expectForbidden(response: { status: number; body: any }) {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 403, code: "forbidden" });
  expect(ErrorBodySchema.safeParse(response.body).success).toBe(true);
}

const scoped = `/v1/baseline/${program}?scope=account`;

describe("an ingest key", () => {
  test("has its own prefix, which every key parser accepts", () => {
    expect(keys.ingest).toMatch(/^txr_ingest_[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(looksLikeKey(keys.ingest)).toBe(true);
  });

  test("ingests in the body too, into its account (the admin key lists the program)", async () => {
    expect((await t.ingest({ apiKey: keys.ingest, envelopes: [makeEnvelope({ program })] })).status).toBe(202);
    const programs = await call("GET", "/v1/programs", keys.admin);
    expect(programs.status).toBe(200);
    expect(programs.body.items.map((item: { program: string }) => item.program)).toContain(program);
  });

  test("is 403 on every alerts route, programs and a scoped read; unscoped public reads stay open", async () => {
    expectForbidden(await call("GET", "/v1/alerts", keys.ingest));
    expectForbidden(await call("POST", "/v1/alerts", keys.ingest, { program, rule: "new_issue" }));
    expectForbidden(await call("DELETE", `/v1/alerts/${ruleId}`, keys.ingest));
    expectForbidden(await call("POST", `/v1/alerts/${ruleId}/test`, keys.ingest));
    expectForbidden(await call("GET", "/v1/programs", keys.ingest));
    expectForbidden(await call("GET", scoped, keys.ingest));
    const unscoped = await call("GET", `/v1/baseline/${program}`, keys.ingest);
    expect([401, 403]).not.toContain(unscoped.status);
    // The rule is still there: the ingest key changed nothing.
    const listed = await call("GET", "/v1/alerts", keys.admin);
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(ruleId);
  });

  test("is forbidden on MCP's scoped calls", async () => {
    const result = await mcpCall(keys.ingest, { program, scope: "account" });
    expect(result.isError).toBe(true);
    expect(result._meta["txray/error"]).toMatchObject({ code: "forbidden", status: 403 });
  });
});

describe("admin and read keys", () => {
  test("an admin (txr_live_…) key reads its account: programs, scoped reads, MCP scoped calls", async () => {
    expect((await call("GET", "/v1/programs", keys.admin)).status).toBe(200);
    expect([401, 403]).not.toContain((await call("GET", scoped, keys.admin)).status);
    const result = await mcpCall(keys.admin, { program, scope: "account" });
    expect(result._meta?.["txray/error"]?.code).not.toBe("forbidden");
  });

  test("a read key reads and lists rules but neither ingests nor changes them", async () => {
    expect((await call("GET", "/v1/alerts", keys.read)).status).toBe(200);
    expect((await call("GET", "/v1/programs", keys.read)).status).toBe(200);
    expect([401, 403]).not.toContain((await call("GET", scoped, keys.read)).status);
    expectForbidden(await call("DELETE", `/v1/alerts/${ruleId}`, keys.read));
    expectForbidden(await t.ingest({ apiKey: keys.read, envelopes: [makeEnvelope({ program })] }));
  });

  test("an admin key removes the rule", async () => {
    expect((await call("DELETE", `/v1/alerts/${ruleId}`, keys.admin)).status).toBe(200);
  });
});

test("an ingest worker thread accepts an ingest key (header and body)", async () => {
  const worker = await testServer({ INGEST_WORKERS: "1" });
  try {
    const key = worker.key("kinds-worker", "ingest");
    expect((await worker.ingest({ envelopes: [makeEnvelope()] }, { "x-api-key": key })).status).toBe(202);
    expect((await worker.ingest({ apiKey: key, envelopes: [makeEnvelope(), makeEnvelope()] })).status).toBe(202);
  } finally {
    await worker.stop();
  }
});
