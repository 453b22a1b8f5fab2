// Every page and file a browser gets from the web app, the /docs reference and the published
// Landing Score comes with a Content-Security-Policy (no inline script in the app; never framed; no
// plugins, no <base>), nosniff, no referrer and X-Frame-Options DENY. The browser tests
// (test/web/web.test.ts, test/api/docs-page.test.ts) show the policies block nothing the pages use.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;

beforeAll(async () => {
  t = await testServer();
  const published = join(t.ctx.config.snapshotsDir, "landing-score");
  mkdirSync(published, { recursive: true });
  writeFileSync(join(published, "index.html"), "<!doctype html><title>Landing Score</title>");
  writeFileSync(join(published, "latest.json"), "{}");
});
afterAll(async () => {
  await t?.stop();
});

/** The CSP's directives by name. */
function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(";")
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => [part.split(/\s+/)[0], part.slice(part.indexOf(" ") + 1)] as [string, string]),
  );
}

async function headersOf(path: string): Promise<Headers> {
  const response = await fetch(`${t.url}${path}`, { headers: { "accept-encoding": "gzip" } });
  await response.arrayBuffer();
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.headers;
}

function expectBrowserHeaders(path: string, headers: Headers): Map<string, string> {
  expect({ path, nosniff: headers.get("x-content-type-options") }).toEqual({ path, nosniff: "nosniff" });
  expect({ path, referrer: headers.get("referrer-policy") }).toEqual({ path, referrer: "no-referrer" });
  expect({ path, frame: headers.get("x-frame-options") }).toEqual({ path, frame: "DENY" });
  const csp = directives(headers.get("content-security-policy") ?? "");
  for (const [name, value] of [
    ["frame-ancestors", "'none'"],
    ["base-uri", "'none'"],
    ["object-src", "'none'"],
  ])
    expect({ path, name, value: csp.get(name) }).toEqual({ path, name, value });
  return csp;
}

test("the web app's pages and assets allow no inline script or style and are never framed", async () => {
  const page = await (await fetch(`${t.url}/`)).text();
  const assets = [...page.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
  expect(assets.length).toBeGreaterThanOrEqual(3); // script, stylesheet, icon
  for (const path of [
    "/",
    "/p/JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
    "/favicon.svg",
    "/favicon.ico",
    ...assets,
  ]) {
    const csp = expectBrowserHeaders(path, await headersOf(path));
    expect({ path, default: csp.get("default-src") }).toEqual({ path, default: "'self'" });
    expect({ path, script: csp.get("script-src") }).toEqual({ path, script: "'self'" });
    expect({ path, style: csp.get("style-src") }).toEqual({ path, style: "'self'" });
  }
});

test("/docs allows only its own inline script (by hash), and the Landing Score its page's", async () => {
  const docs = expectBrowserHeaders("/docs", await headersOf("/docs"));
  expect(docs.get("script-src")).toMatch(/^'self' 'sha256-[A-Za-z0-9+/]+=*' blob:$/);
  for (const path of ["/docs/redoc.standalone.js", "/docs/api.md", "/landing-score/latest.json"]) {
    const headers = await headersOf(path);
    expect({ path, nosniff: headers.get("x-content-type-options") }).toEqual({ path, nosniff: "nosniff" });
    expect({ path, frame: headers.get("x-frame-options") }).toEqual({ path, frame: "DENY" });
  }
  const landing = expectBrowserHeaders("/landing-score/", await headersOf("/landing-score/"));
  expect(landing.get("default-src")).toBe("'none'");
});
