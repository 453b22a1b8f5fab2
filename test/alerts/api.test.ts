// /v1/alerts on a real server on loopback: keys (none, unknown, read-only), every kind of bad input
// in the error shape (malformed JSON, wrong types, oversized bodies, unknown programs, bad and
// non-https URLs, thresholds out of range), account isolation (B can neither create on, list, remove
// nor test A's rules), secrets shown once, a test send to a real receiver that verifies the
// signature, and the counts in /v1/status.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AlertRuleCreatedSchema, AlertRulesSchema, AlertTestResultSchema, verifySignature } from "../../src/alerts";
import { ErrorBodySchema, StatusSchema } from "../../src/analytics/queries/schemas";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

let t: TestServer;
let receiver: Receiver;
const keys = { a: "", aRead: "", b: "" };
const programs = { a: randomAddress(), b: randomAddress() };

beforeAll(async () => {
  t = await testServer({ ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
  keys.a = t.key("team-a");
  keys.aRead = t.key("team-a", "read");
  keys.b = t.key("team-b");
  expect((await t.ingest({ apiKey: keys.a, envelopes: [makeEnvelope({ program: programs.a })] })).status).toBe(202);
  expect((await t.ingest({ apiKey: keys.b, envelopes: [makeEnvelope({ program: programs.b })] })).status).toBe(202);
  expect((await runJob(t.ctx, flushJob, { spool: t.server.spool ?? undefined })).ok).toBe(true);
  receiver = startReceiver();
}, 60_000);

afterAll(async () => {
  receiver?.stop();
  await t?.stop();
});

async function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(options.key ? { "x-api-key": options.key } : {}),
      "content-type": "application/json",
      ...options.headers,
    },
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const rule = (over: Record<string, unknown> = {}) => ({
  program: programs.a,
  rule: "new_issue",
  destination: { type: "webhook", url: `${receiver.url}/hook/a`, secret: "s3cr3t-0123456789abcdef" },
  ...over,
});

/** An error answer: the status, the shape and the code (and that the message names what is wrong). */
function expectError(response: { status: number; body: any }, status: number, code: string, mentions?: string) {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(ErrorBodySchema.safeParse(response.body).success).toBe(true);
  if (mentions) expect(response.body.error.message).toContain(mentions);
}

describe("keys", () => {
  test("no key or an unknown key is 401 on every alerts route", async () => {
    for (const [method, path] of [
      ["POST", "/v1/alerts"],
      ["GET", "/v1/alerts"],
      ["DELETE", "/v1/alerts/alr_0123456789abcdef"],
      ["POST", "/v1/alerts/alr_0123456789abcdef/test"],
    ] as const) {
      expectError(await call(method, path, { body: method === "POST" ? rule() : undefined }), 401, "unauthorized");
      expectError(
        await call(method, path, { key: `txr_live_${"z".repeat(32)}`, body: method === "POST" ? rule() : undefined }),
        401,
        "unauthorized",
      );
    }
  });
  test("a read-only key lists but cannot create, remove or test (403)", async () => {
    expect((await call("GET", "/v1/alerts", { key: keys.aRead })).status).toBe(200);
    expectError(await call("POST", "/v1/alerts", { key: keys.aRead, body: rule() }), 403, "forbidden", "read-only");
    const created = await call("POST", "/v1/alerts", { key: keys.a, body: rule() });
    expectError(await call("DELETE", `/v1/alerts/${created.body.id}`, { key: keys.aRead }), 403, "forbidden");
    expectError(await call("POST", `/v1/alerts/${created.body.id}/test`, { key: keys.aRead }), 403, "forbidden");
    expect((await call("DELETE", `/v1/alerts/${created.body.id}`, { key: keys.a })).status).toBe(200);
  });
});

describe("bad input", () => {
  test("malformed JSON, a body that is not an object, wrong types and missing fields are 400 naming the field", async () => {
    expectError(await call("POST", "/v1/alerts", { key: keys.a, raw: "{not json" }), 400, "bad_request", "body");
    expectError(await call("POST", "/v1/alerts", { key: keys.a, raw: "" }), 400, "bad_request", "body");
    expectError(await call("POST", "/v1/alerts", { key: keys.a, raw: "[1,2]" }), 400, "bad_request");
    expectError(await call("POST", "/v1/alerts", { key: keys.a, raw: "\xff\xfe" }), 400, "bad_request");
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ program: 5 }) }),
      400,
      "bad_request",
      "program",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ rule: ["new_issue"] }) }),
      400,
      "bad_request",
      "rule",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ destination: undefined }) }),
      400,
      "bad_request",
      "destination",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ params: "fast" }) }),
      400,
      "bad_request",
      "params",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ params: { minCount: "5" } }) }),
      400,
      "bad_request",
      "params.minCount",
    );
  });
  test("bad and non-https URLs, unknown destination types and thresholds out of range are 400", async () => {
    const destination = (d: unknown) => rule({ destination: d });
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: destination({ type: "webhook", url: "not a url" }) }),
      400,
      "bad_request",
      "destination.url",
    );
    expectError(
      await call("POST", "/v1/alerts", {
        key: keys.a,
        body: destination({ type: "webhook", url: "http://example.com/hook" }),
      }),
      400,
      "bad_request",
      "https://",
    );
    expectError(
      await call("POST", "/v1/alerts", {
        key: keys.a,
        body: destination({ type: "slack", url: "http://hooks.slack.com/services/x" }),
      }),
      400,
      "bad_request",
      "https://",
    );
    expectError(
      await call("POST", "/v1/alerts", {
        key: keys.a,
        body: destination({ type: "pager", url: "https://example.com" }),
      }),
      400,
      "bad_request",
      "destination.type",
    );
    expectError(
      await call("POST", "/v1/alerts", {
        key: keys.a,
        body: destination({ type: "webhook", url: `https://example.com/${"x".repeat(2100)}` }),
      }),
      400,
      "bad_request",
      "destination.url",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ rule: "landing_rate", params: { threshold: 2 } }) }),
      400,
      "bad_request",
      "params.threshold",
    );
    expectError(
      await call("POST", "/v1/alerts", {
        key: keys.a,
        body: rule({ rule: "cu_headroom", params: { withinPercent: 150 } }),
      }),
      400,
      "bad_request",
      "params.withinPercent",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ rule: "regression", params: { window: "2d" } }) }),
      400,
      "bad_request",
      "params.window",
    );
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ rule: "provider_drops", params: { alpha: 0 } }) }),
      400,
      "bad_request",
      "params.alpha",
    );
  });
  test("an oversized body is 413; a malformed rule id is 400", async () => {
    const huge = JSON.stringify(rule({ params: { note: "x".repeat(20_000) } }));
    expectError(await call("POST", "/v1/alerts", { key: keys.a, raw: huge }), 413, "payload_too_large");
    expectError(await call("DELETE", "/v1/alerts/not-an-id", { key: keys.a }), 400, "bad_request", "id");
    expectError(await call("POST", "/v1/alerts/alr_XYZ/test", { key: keys.a }), 400, "bad_request", "id");
    expectError(await call("GET", "/v1/alerts?limit=0", { key: keys.a }), 400, "bad_request", "limit");
    expectError(await call("GET", "/v1/alerts?cursor=forged.cursor", { key: keys.a }), 400, "bad_request", "cursor");
  });
  test("a program the account never reported is 404, whoever reported it", async () => {
    expectError(
      await call("POST", "/v1/alerts", { key: keys.a, body: rule({ program: randomAddress() }) }),
      404,
      "not_found",
      "no telemetry",
    );
    expectError(await call("POST", "/v1/alerts", { key: keys.b, body: rule() }), 404, "not_found");
  });
});

describe("rules", () => {
  test("create answers 201 with the id, every parameter and the secret once; list shows them redacted; isolation between accounts", async () => {
    const created = await call("POST", "/v1/alerts", {
      key: keys.a,
      body: rule({
        rule: "regression",
        params: { alpha: 0.01 },
        destination: { type: "webhook", url: `${receiver.url}/hook/a` },
      }),
    });
    expect(created.status).toBe(201);
    expect(AlertRuleCreatedSchema.safeParse(created.body).success).toBe(true);
    expect(created.body.id).toMatch(/^alr_[0-9a-f]{16}$/);
    expect(created.body.params).toEqual({
      resolveAfterMinutes: 15,
      window: "1d",
      alpha: 0.01,
      minCount: 5,
      minAttempts: 30,
    });
    const secret: string = created.body.destination.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(created.body.destination.url).toBe(`${receiver.url}/hook/a`);

    const slack = await call("POST", "/v1/alerts", {
      key: keys.a,
      body: rule({ destination: { type: "slack", url: `${receiver.url}/services/T000/B000/XXXXsecretabcd` } }),
    });
    expect(slack.status).toBe(201);
    expect(slack.body.destination.secret).toBeUndefined();

    const listed = await call("GET", "/v1/alerts", { key: keys.a });
    expect(listed.status).toBe(200);
    expect(AlertRulesSchema.safeParse(listed.body).success).toBe(true);
    const ids = listed.body.items.map((item: any) => item.id);
    expect(ids).toContain(created.body.id);
    expect(ids).toContain(slack.body.id);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("XXXXsecret");
    const mine = listed.body.items.find((item: any) => item.id === created.body.id);
    expect(mine).toMatchObject({
      program: programs.a,
      rule: "regression",
      firing: 0,
      destination: { type: "webhook", url: `${receiver.url}/…`, secretHint: secret.slice(-4) },
    });
    expect(listed.body.items.find((item: any) => item.id === slack.body.id).destination.url).toBe(
      `${receiver.url}/…abcd`,
    );

    // Account B sees none of A's rules and can neither remove nor test them.
    const other = await call("GET", "/v1/alerts", { key: keys.b });
    expect(other.body.items).toEqual([]);
    expectError(await call("DELETE", `/v1/alerts/${created.body.id}`, { key: keys.b }), 404, "not_found");
    expectError(await call("POST", `/v1/alerts/${created.body.id}/test`, { key: keys.b }), 404, "not_found");
    // B's own rule on B's program is B's alone.
    const bRule = await call("POST", "/v1/alerts", {
      key: keys.b,
      body: rule({ program: programs.b, destination: { type: "webhook", url: `${receiver.url}/hook/b` } }),
    });
    expect(bRule.status).toBe(201);
    expect((await call("GET", "/v1/alerts", { key: keys.a })).body.items.map((item: any) => item.id)).not.toContain(
      bRule.body.id,
    );

    // Remove: 200 once, then 404.
    expect(await call("DELETE", `/v1/alerts/${slack.body.id}`, { key: keys.a })).toEqual({
      status: 200,
      body: { id: slack.body.id, deleted: true },
    });
    expectError(await call("DELETE", `/v1/alerts/${slack.body.id}`, { key: keys.a }), 404, "not_found");
  });

  test("pagination: limit and a signed cursor walk the account's rules", async () => {
    for (let i = 0; i < 3; i++)
      expect((await call("POST", "/v1/alerts", { key: keys.a, body: rule({ rule: "cu_headroom" }) })).status).toBe(201);
    const all = (await call("GET", "/v1/alerts?limit=500", { key: keys.a })).body.items.map((item: any) => item.id);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await call(
        "GET",
        `/v1/alerts?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { key: keys.a },
      );
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.items.map((item: any) => item.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(4);
  });

  test("test sends a signed sample to the destination and says what it answered; a failing destination is reported", async () => {
    const created = await call("POST", "/v1/alerts", {
      key: keys.a,
      body: rule({
        destination: { type: "webhook", url: `${receiver.url}/hook/test`, secret: "s3cr3t-0123456789abcdef" },
      }),
    });
    const before = receiver.received.length;
    const result = await call("POST", `/v1/alerts/${created.body.id}/test`, { key: keys.a });
    expect(result.status).toBe(200);
    expect(AlertTestResultSchema.safeParse(result.body).success).toBe(true);
    expect(result.body).toMatchObject({ delivered: true, result: "2xx", error: null });
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    expect(request.path).toBe("/hook/test");
    const sent = JSON.parse(request.body);
    expect(sent).toMatchObject({
      kind: "test",
      alertId: created.body.id,
      rule: "new_issue",
      program: programs.a,
      state: "firing",
      id: result.body.delivery,
      attempt: 1,
    });
    expect(
      verifySignature(
        "s3cr3t-0123456789abcdef",
        request.headers.get("x-txray-signature"),
        request.body,
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(true);

    const refusing = startReceiver(() => new Response("no_service", { status: 404 }));
    try {
      const gone = await call("POST", "/v1/alerts", {
        key: keys.a,
        body: rule({ destination: { type: "slack", url: `${refusing.url}/services/x` } }),
      });
      const failed = await call("POST", `/v1/alerts/${gone.body.id}/test`, { key: keys.a });
      // The class only: never the receiver's status code or body.
      expect(failed.body).toMatchObject({ delivered: false, result: "4xx" });
      expect(failed.body.httpStatus).toBeUndefined();
      expect(JSON.stringify(failed.body)).not.toContain("no_service");
    } finally {
      refusing.stop();
    }
  });

  test("/v1/status counts rules and deliveries (no destinations, no error texts)", async () => {
    const status = await call("GET", "/v1/status");
    expect(StatusSchema.safeParse(status.body).success).toBe(true);
    expect(status.body.alerts.rules).toBeGreaterThanOrEqual(5);
    expect(status.body.alerts.last24h.sent).toBeGreaterThanOrEqual(1);
    expect(status.body.alerts.last24h.failed).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(status.body.alerts)).not.toContain("127.0.0.1");
    expect(JSON.stringify(status.body.alerts)).not.toContain("no_service");
  });
});
