// The access log: one info line per request (method, route pattern, status, duration, request id) and
// the request id in every answer's X-Request-Id, the caller's own when it is a short safe token. The
// line never holds a key or the query string; TXRAY_ACCESS_LOG=off writes none.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Logger } from "../../src/shared/logger";
import { randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

type Line = { message: string; fields?: Record<string, unknown> };
const capture = (lines: Line[]): Logger => {
  const keep = (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields });
  return { debug: keep, info: keep, warn: keep, error: keep };
};

let on: TestServer;
let off: TestServer;
const onLines: Line[] = [];
const offLines: Line[] = [];
beforeAll(async () => {
  [on, off] = await Promise.all([testServer(), testServer({ TXRAY_ACCESS_LOG: "off" })]);
  // The app reads ctx.logger as it logs: these capture what the servers write from here on.
  on.ctx.logger = capture(onLines);
  off.ctx.logger = capture(offLines);
});
afterAll(async () => {
  await Promise.all([on.stop(), off.stop()]);
});

const requests = (lines: Line[]) => lines.filter((line) => line.message === "request").map((line) => line.fields!);

test("each request: one line with its route pattern and id, the id in the answer; no key, no query", async () => {
  const key = on.key("acme");
  const program = randomAddress();
  const mine = await fetch(`${on.url}/v1/top-issues/${program}?window=24h&key=${key}`, {
    headers: { authorization: `Bearer ${key}`, "x-request-id": "proxy-id_1.2:3" },
  });
  await mine.arrayBuffer();
  expect(mine.headers.get("x-request-id")).toBe("proxy-id_1.2:3");
  const unsafe = await fetch(`${on.url}/v1/status`, { headers: { "x-request-id": `a b${"x".repeat(100)}` } });
  await unsafe.arrayBuffer();
  const generated = unsafe.headers.get("x-request-id")!;
  expect(generated).toMatch(/^[0-9a-f-]{36}$/);
  const missing = await fetch(`${on.url}/no/such/route`);
  await missing.arrayBuffer();
  expect(missing.status).toBe(404);
  expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  await Bun.sleep(20); // onAfterResponse runs once the answer is sent

  const logged = requests(onLines);
  expect(logged).toHaveLength(3);
  expect(logged[0]).toMatchObject({
    method: "GET",
    route: "/v1/top-issues/:program",
    status: mine.status,
    requestId: "proxy-id_1.2:3",
  });
  expect(logged[1]).toMatchObject({ method: "GET", route: "/v1/status", status: 200, requestId: generated });
  expect(logged[2]).toMatchObject({ route: "unmatched", status: 404 });
  for (const fields of logged) expect(fields.durationMs).toBeGreaterThanOrEqual(0);
  const text = JSON.stringify(onLines);
  expect(text).not.toContain(key);
  expect(text).not.toContain(program);
  expect(text).not.toContain("?");
});

test("TXRAY_ACCESS_LOG=off: no request lines, the request id still answered", async () => {
  const response = await fetch(`${off.url}/healthz`, { headers: { "x-request-id": "abc" } });
  await response.arrayBuffer();
  expect(response.headers.get("x-request-id")).toBe("abc");
  await Bun.sleep(20);
  expect(requests(offLines)).toEqual([]);
});
