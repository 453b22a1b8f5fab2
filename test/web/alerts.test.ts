// The alert rules page (/alerts) in a real Chromium against a real server: with an admin key a rule
// is added (its signing secret shown once), listed, sent a test to a loopback receiver and removed;
// a read key lists but is refused adding, with the server's 403. Screenshots go to test/artifacts/.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { addProgramCounts, createAccountKey } from "../../src/control";
import { randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";
import { ARTIFACTS, launchBrowser } from "./support";

let t: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let receiver: Receiver;
const program = randomAddress();
const keys = { admin: "", read: "" };

beforeAll(async () => {
  [t, browser] = await Promise.all([testServer({ ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8" }), launchBrowser()]);
  const admin = createAccountKey(t.ctx.control, "team-a", "live", Date.now());
  keys.admin = admin.key;
  keys.read = createAccountKey(t.ctx.control, "team-a", "read", Date.now()).key;
  addProgramCounts(t.ctx.control, [{ accountId: admin.record.accountId, program, attempts: 1, lastSeen: Date.now() }]);
  receiver = startReceiver();
}, 60_000);
afterAll(async () => {
  receiver?.stop();
  await browser?.close();
  await t?.stop();
});

async function open(key: string): Promise<Page & { errors: string[] }> {
  const page = (await browser.context.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  await page.addInitScript((stored) => localStorage.setItem("txray.key", stored), key);
  await page.goto(`${t.url}/alerts`);
  return page;
}

test("an admin key adds, lists, tests and removes a rule; a read key is refused adding", async () => {
  const page = await open(keys.admin);
  await page.waitForSelector(".alerts-list .state.empty");
  await page.fill("input[name=program]", program);
  await page.selectOption("select[name=rule]", "new_issue");
  await page.fill("input[name=url]", `${receiver.url}/hook`);
  await page.fill("input[name=params]", "minCount=3, withinMinutes=10");
  await page.getByRole("button", { name: "Add rule" }).click();
  await page.waitForSelector(".alerts-list tbody tr");
  expect(await page.locator(".alerts-notice").textContent()).toMatch(/Added new_issue alr_[0-9a-f]{16}.*whsec_/);
  const row = page.locator(".alerts-list tbody tr");
  expect(await row.count()).toBe(1);
  expect(await row.locator("td").nth(2).textContent()).toContain("minCount=3");
  const rules = (await (await fetch(`${t.url}/v1/alerts`, { headers: { "x-api-key": keys.admin } })).json()) as any;
  expect(rules.items.map((r: any) => [r.program, r.rule, r.params.minCount])).toEqual([[program, "new_issue", 3]]);

  await row.locator("button[data-action=test]").click();
  await page.waitForSelector(".alerts-notice strong:text('Test delivered')");
  expect((await receiver.waitFor(1)).map((r) => r.path)).toEqual(["/hook"]);
  await page.screenshot({ path: join(ARTIFACTS, "alerts.png"), fullPage: true });

  await row.locator("button[data-action=remove]").click();
  expect(await row.locator("button[data-action=remove]").textContent()).toBe("Confirm remove");
  await row.locator("button[data-action=remove]").click();
  await page.waitForSelector(".alerts-list .state.empty");
  expect(await page.locator(".alerts-notice").textContent()).toContain("Removed new_issue");

  const reader = await open(keys.read);
  await reader.waitForSelector(".alerts-list .state.empty");
  await reader.fill("input[name=program]", program);
  await reader.fill("input[name=url]", `${receiver.url}/hook`);
  await reader.getByRole("button", { name: "Add rule" }).click();
  await reader.waitForSelector(".alerts-notice [role=alert]");
  expect(await reader.locator(".alerts-notice [role=alert]").textContent()).toContain("403 forbidden");
  // A malformed parameter is named before anything is sent.
  await reader.fill("input[name=params]", "minCount");
  await reader.getByRole("button", { name: "Add rule" }).click();
  await reader.waitForSelector(".alerts-notice [role=alert]:has-text('expected name=value')");
  for (const p of [page, reader]) expect(p.errors).toEqual([]);
}, 60_000);
