// /docs in a real Chromium: the API reference renders from /openapi.json with the renderer this
// server serves (no CDN: every request outside the server is recorded and refused), shows the
// routes, and runs without page errors. Screenshot: test/artifacts/docs.png.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer;
let browser: BrowserContext;
const profile = mkdtempSync(join(tmpdir(), "txray-chromium-"));
const artifacts = join(import.meta.dir, "..", "artifacts");

beforeAll(async () => {
  t = await testServer({ SLACK_SIGNING_SECRET: "secret" });
  // A new, empty profile directory (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
  rmSync(profile, { recursive: true, force: true });
});

test("the reference page renders every route offline", async () => {
  const page = await browser.newPage();
  const outside: string[] = [];
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const consoleErrors: string[] = [];
  page.on("console", (message) => message.type() === "error" && consoleErrors.push(message.text()));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(t.url) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    outside.push(url);
    return route.abort();
  });
  const response = await page.goto(`${t.url}/docs`);
  expect(response!.status()).toBe(200);
  await page.waitForSelector(`h2:has-text("Why a transaction failed")`, { timeout: 20_000 });
  const text = (await page.locator("body").textContent()) ?? "";
  for (const summary of [
    "Why a transaction never landed",
    "A program's landing, failure, drop and preflight rates",
    "What changed at a program deploy",
    "Drop rate per RPC provider",
    "Send telemetry envelopes",
    "Slack slash command",
    "MCP (Streamable HTTP, stateless)",
  ])
    expect(text).toContain(summary);
  expect(text).toContain("/v1/release-diff/{program}");
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, "docs.png") });
  expect(outside).toEqual([]);
  expect(pageErrors).toEqual([]);
  // Nothing is refused: the renderer's vendor logo is this server's icon.
  expect(consoleErrors).toEqual([]);
  expect(await page.locator("img[alt='redocly logo']").getAttribute("src")).toBe("/favicon.svg");
  // The human-written reference is a link, and the icon is served (also where browsers ask for it).
  const reference = page.locator("a[href='/docs/api.md']").first();
  expect(await reference.textContent()).toBe("docs/api.md");
  const markdown = await fetch(`${t.url}/docs/api.md`);
  expect(markdown.headers.get("content-type")).toContain("text/markdown");
  expect(await markdown.text()).toContain("# txray HTTP API");
  for (const icon of ["/favicon.svg", "/favicon.ico"]) {
    const answer = await fetch(t.url + icon);
    expect({ icon, status: answer.status, type: answer.headers.get("content-type") }).toEqual({
      icon,
      status: 200,
      type: "image/svg+xml",
    });
  }
  expect(response!.headers()["content-security-policy"]).toContain("default-src 'self'");
  await page.close();
}, 40_000);
