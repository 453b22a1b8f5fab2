// Stale figures are said, not hidden (issue 23): when the tables job fails, the routes keep
// answering from the last good version, /v1/status says the figures are stale and why (the job's
// own error), and the web app shows that in a banner on every page, in a real Chromium; once a
// run succeeds again the banner goes.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { type TestServer, testServer } from "../helpers/server";
import { ARTIFACTS, launchBrowser } from "./support";

let t: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let program: string;
beforeAll(async () => {
  [t, browser] = await Promise.all([testServer(), launchBrowser()]);
  const lake = await generateLake({
    dataDir: t.ctx.config.dataDir,
    envelopes: 4_000,
    programs: 2,
    days: 3,
    seed: 4,
    endMs: Date.now() - 60_000,
    control: t.ctx.control,
    threads: 2,
  });
  program = lake.programs[0];
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

test("a failing tables job: status says stale and why, the routes answer the last version, the app shows a banner", async () => {
  expect((await runJob(t.ctx, tablesJob)).ok).toBe(true);
  const fresh = (await t.get("/v1/status")).body.freshness.serving;
  const version = fresh.version;
  expect(typeof version).toBe("number");
  expect(fresh).toMatchObject({ stale: false, reason: null, refreshEveryMs: t.ctx.config.TABLES_INTERVAL_MS });
  expect(Date.now() - fresh.dataUntil).toBeLessThan(120_000);
  const answer = (await t.get(`/v1/baseline/${program}?window=7d`)).body;

  // A part that is not Parquet: every build now fails reading it.
  const day = readdirSync(join(t.ctx.paths.dataset("envelopes"), `program=${program}`))
    .sort()
    .at(-1)!;
  const broken = join(t.ctx.paths.dataset("envelopes"), `program=${program}`, day, "part-broken-0.parquet");
  writeFileSync(broken, "not parquet");
  const failed = await runJob(t.ctx, tablesJob);
  expect(failed.ok).toBe(false);
  const stale = (await t.get("/v1/status")).body.freshness.serving;
  expect(stale.stale).toBe(true);
  expect(stale.version).toBe(version);
  expect(stale.reason).toContain("the tables job is failing (its last run failed");
  expect(stale.reason).toContain(failed.error!.slice(0, 40));
  expect((await t.get(`/v1/baseline/${program}?window=7d`)).body).toEqual(answer);

  const page = await browser.context.newPage();
  await page.goto(`${t.url}/p/${program}`);
  const banner = page.locator("#freshness");
  await banner.waitFor({ state: "visible", timeout: 15_000 });
  const text = await banner.textContent();
  expect(text).toContain("not being refreshed");
  expect(text).toContain("the tables job is failing");
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, "stale-banner.png") });

  rmSync(broken);
  expect((await runJob(t.ctx, tablesJob)).ok).toBe(true);
  expect((await t.get("/v1/status")).body.freshness.serving).toMatchObject({ stale: false, reason: null });
  await page.reload();
  await page.waitForSelector("#main section, #main .state", { timeout: 15_000 });
  await Bun.sleep(500);
  expect(await banner.isHidden()).toBe(true);
  await page.close();
}, 120_000);
