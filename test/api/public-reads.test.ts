// Public read routes: rate-limited per client IP (429 with Retry-After and RateLimit-* headers),
// the client IP taken from a proxy header only when one is configured, and every route documented.
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

test("429 once a client IP spends its per-minute budget", async () => {
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "5" });
  const statuses: number[] = [];
  let last: Awaited<ReturnType<typeof t.get>> | undefined;
  for (let i = 0; i < 7; i++) {
    last = await t.get("/v1/status");
    statuses.push(last.status);
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  expect(last!.body.error.code).toBe("rate_limited");
  expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(last!.headers.get("ratelimit-limit")).toBe("5");
  expect(last!.headers.get("ratelimit-remaining")).toBe("0");
});

test("a forwarded-for header is ignored unless configured, then it separates clients", async () => {
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "2" });
  for (const ip of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) await t.get("/v1/status", { "x-forwarded-for": ip });
  expect((await t.get("/v1/status", { "x-forwarded-for": "4.4.4.4" })).status).toBe(429); // one client: the socket's IP
  await t.stop();
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "2", TRUSTED_PROXY_HEADER: "x-forwarded-for" });
  for (const ip of ["1.1.1.1", "2.2.2.2", "3.3.3.3"])
    expect((await t.get("/v1/status", { "x-forwarded-for": ip })).status).toBe(200);
  await t.get("/v1/status", { "x-forwarded-for": "1.1.1.1" });
  // The proxy appends the peer it saw: the rightmost entry is the client, whatever it claims to the left.
  expect((await t.get("/v1/status", { "x-forwarded-for": "10.0.0.1, 1.1.1.1" })).status).toBe(429);
});

test("docs/api.md documents every route the server serves", () => {
  const docs = readFileSync(join(import.meta.dir, "..", "..", "docs", "api.md"), "utf8");
  const routes = [
    "/v1/ingest",
    "/v1/why/",
    "/v1/diagnose-drop/",
    "/v1/baseline/",
    "/v1/release-diff/",
    "/v1/top-issues/",
    "/v1/cu-headroom/",
    "/v1/wallet/",
    "/v1/provider-report/",
    "/v1/programs",
    "/v1/status",
  ];
  for (const route of routes) expect(docs).toContain(route);
});
