// The triage pages in a real Chromium against a real server over a generated world: the issue list
// (/issues/{program}) with a key, filtered and sorted through its form; the issue page's triage
// panel resolves the issue with an admin key, and refuses with a read key, showing the server's 403. Screenshots go to test/artifacts/.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createAccountKey } from "../../src/control";
import { type AnswersWorld, makeAnswersWorld, serveWorld, type WorldServer } from "../helpers/answers-world";
import { ARTIFACTS, launchBrowser } from "./support";

let world: AnswersWorld;
let server: WorldServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let admin: string;

beforeAll(async () => {
  [world, browser] = await Promise.all([makeAnswersWorld(1_500), launchBrowser()]);
  server = await serveWorld(world);
  admin = createAccountKey(server.ctx.control, "team-a", "live", Date.now()).key;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  world?.dispose();
});

/** A page of the app with `key` stored as the user's key (the "API key" box's storage). */
async function open(path: string, key: string): Promise<Page & { errors: string[] }> {
  const page = (await browser.context.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  await page.addInitScript((stored) => localStorage.setItem("txray.key", stored), key);
  await page.goto(server.url + path);
  return page;
}
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

test("the issue list filters and sorts; the issue page resolves with an admin key, refuses with a read key", async () => {
  const page = await open(`/issues/${world.program}?window=30d`, admin);
  await page.waitForSelector(".issues-body tbody tr");
  const listed = await page.locator(".issues-body tbody tr").count();
  expect(listed).toBeGreaterThan(1);
  // The form: every state, by wallets affected.
  await page.selectOption("select[name=state]", "all");
  await page.selectOption("select[name=sort]", "wallets");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL(/sort=wallets/);
  await page.waitForSelector(".issues-body tbody tr");
  const wallets = (await page.locator(".issues-body tbody tr td:nth-child(3)").allTextContents()).map((text) =>
    Number(text.replace(/\D/g, "")),
  );
  expect(wallets).toEqual([...wallets].sort((a, b) => b - a));
  await shot(page, "issues-list");

  // The first issue's page: resolve it.
  const title = (await page.locator(".issues-body tbody tr").first().getByRole("link").first().textContent())!;
  await page.locator(".issues-body tbody tr").first().getByRole("link").first().click();
  await page.waitForURL(/\/i\//);
  await page.waitForSelector("section.triage button[data-state-action=Resolve]");
  expect(await page.locator("h1.issue-title").textContent()).toBe(title);
  await page.locator("section.triage button[data-state-action=Resolve]").click();
  await page.waitForSelector("section.triage .triage-state .badge.good");
  expect(await page.locator("section.triage .triage-state .badge").textContent()).toBe("resolved");
  expect(await page.locator("section.triage details summary").textContent()).toBe("History (1)");
  await shot(page, "issue-triage");
  const fingerprint = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
  const state = await fetch(`${server.url}/v1/issue/${encodeURIComponent(fingerprint)}/state`, {
    headers: { "x-api-key": admin },
  }).then((response) => response.json() as Promise<any>);
  expect(state.state.stored).toBe("resolved");

  // A read key sees the state, and the server's refusal when it tries to change it.
  const reader = await open(`/i/${encodeURIComponent(fingerprint)}`, world.keys.a);
  await reader.waitForSelector("section.triage button[data-state-action=Unresolve]");
  await reader.locator("section.triage button[data-state-action=Unresolve]").click();
  await reader.waitForSelector("section.triage [role=alert]");
  expect(await reader.locator("section.triage [role=alert]").textContent()).toContain("403 forbidden");
  expect(await reader.locator("section.triage .triage-state .badge").textContent()).toBe("resolved");
  for (const p of [page, reader]) expect(p.errors).toEqual([]);
}, 60_000);
