// Every route fuzzed with a fixed seed (scripts/fuzz/): random and mutated JSON, deep nesting, huge
// strings and arrays, wrong types, unicode, invalid UTF-8, huge numbers, `..`, `%2F`, NUL, tampered
// cursors and hostile query parameters, in-process and as raw bytes over a loopback socket. Never a
// 5xx, never a thrown handler or a dropped connection, always `{error:{code,message}}`.
// `bun run fuzz --inputs N` runs the same harness for as long as you like.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { createFuzzHarness, type FuzzHarness, judge, runFuzz } from "../../scripts/fuzz/harness";
import { ROUTES } from "../../scripts/fuzz/routes";

let harness: FuzzHarness;
beforeAll(async () => {
  harness = await createFuzzHarness({ seed: 20251123, envelopes: 1500 });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

test("3,000 fixed-seed hostile requests over every route: no 5xx, no crash, no dropped connection, always the error shape", async () => {
  const stats = await runFuzz(harness, { seed: 20251123, inputs: 3000 });
  expect(stats.findings).toEqual([]);
  expect({
    fiveXX: stats.fiveXX,
    crashes: stats.crashes,
    dropped: stats.dropped,
    badShape: stats.badShape,
    internalErrorLogs: stats.internalErrorLogs,
  }).toEqual({
    fiveXX: 0,
    crashes: 0,
    dropped: 0,
    badShape: 0,
    internalErrorLogs: 0,
  });
  // Every served route was exercised, and some inputs reached real answers (not only 400s).
  for (const route of harness.routes) expect(stats.byRoute[route.name]?.inputs ?? 0).toBeGreaterThan(50);
  const ok = Object.values(stats.byRoute).reduce(
    (sum, r) => sum + (r.statuses["200"] ?? 0) + (r.statuses["202"] ?? 0),
    0,
  );
  expect(ok).toBeGreaterThan(100);
  expect(stats.rawInputs).toBeGreaterThan(100);
}, 240_000);

test("only routes other work adds are skipped, and only while they answer 404 no-such-route", () => {
  const optional = new Set(ROUTES.filter((route) => route.optional).map((route) => route.name));
  for (const { route, note } of harness.skipped) {
    expect(optional.has(route)).toBe(true);
    expect(note.length).toBeGreaterThan(0);
  }
  for (const route of ROUTES.filter((r) => !r.optional)) expect(harness.routes).toContain(route);
});

test("the oracle flags a 5xx, a body without the error shape and a mismatched status", () => {
  const route = ROUTES.find((r) => r.name === "baseline")!;
  const input = { route, method: "GET", path: "/v1/baseline/x", headers: {}, body: null, raw: false };
  const answer = (status: number, text: string) => ({
    status,
    contentType: "application/json",
    text,
    producedByApp: true,
  });
  expect(judge(input, answer(500, '{"error":{"code":"internal","message":"internal error"}}'))).toBe("5xx");
  expect(judge(input, answer(400, '{"message":"bad"}'))).toBe("shape");
  expect(judge(input, answer(400, '{"error":{"code":"not_found","message":"x"}}'))).toBe("shape");
  expect(judge(input, answer(404, '{"error":{"code":"not_found","message":"no such route"}}'))).toBeNull();
});

test("a path segment that is not valid percent-encoding is a 400 on every parameterised route", async () => {
  for (const path of [
    "/v1/why/%",
    "/v1/diagnose-drop/%%u",
    "/v1/baseline/%E0%A4%A",
    "/v1/wallet/%ZZ/%",
    "/v1/why/%ED%A0%80",
  ]) {
    const response = await harness.app.handle(new Request(`http://127.0.0.1${path}`));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad_request");
  }
});

test("release-diff ?deploy= beyond 2^53 is a 400, not a 500", async () => {
  for (const slot of ["18446744073709551616", "9007199254740993", "99999999999999999999"]) {
    const response = await harness.app.handle(
      new Request(`http://127.0.0.1/v1/release-diff/${harness.world.programs[0]}?deploy=${slot}`),
    );
    expect(response.status).toBe(400);
  }
});

test("a body above every limit gets 413 with the error shape on every route, declared or streamed without a length", async () => {
  const url = harness.server.url;
  const shaped = async (response: Response, what: string) => {
    const text = await response.text();
    expect({ what, status: response.status, type: response.headers.get("content-type") }).toEqual({
      what,
      status: 413,
      type: "application/json",
    });
    expect(JSON.parse(text).error.code).toBe("payload_too_large");
    expect(JSON.parse(text).error.message).toMatch(/exceeds \d+ bytes/);
  };
  // Declared: far above the ingest limit, the MCP limit and Slack's, and above the 4 MiB the HTTP layer used to stop at with an empty 413.
  const declared = new Uint8Array(48 * 1024 * 1024).fill(0x20);
  for (const path of ["/v1/ingest", "/mcp", "/chat/slack", "/v1/why/x", "/no/such/route"]) {
    await shaped(
      await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: declared }),
      `declared ${path}`,
    );
  }
  // Streamed without a Content-Length: each route that reads a body stops at its limit.
  for (const path of ["/v1/ingest", "/mcp", "/chat/slack"]) {
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 24; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
        controller.close();
      },
    });
    await shaped(
      await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: stream }),
      `streamed ${path}`,
    );
  }
}, 120_000);
