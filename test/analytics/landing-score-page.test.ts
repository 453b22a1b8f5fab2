// The static leaderboard page in a real browser: Chromium opens index.html from file://, with no
// server and no network, and shows the ranked table; a click on a column sorts it; on a phone-sized
// screen it still fits. Screenshots go to test/artifacts/ (git-ignored).

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { generateLake } from "../../devkit/generate";
import { runLandingScore, type Snapshot } from "../../src/analytics/landing-score";
import { readJson, type ScoreContext, scoreContext } from "./landing-score-support";
import { END_MS } from "./support";

const ARTIFACTS = join(import.meta.dir, "..", "artifacts");
let ctx: ScoreContext;
let browser: BrowserContext;
let profile: string;
let snapshot: Snapshot;

beforeAll(async () => {
  ctx = await scoreContext(END_MS);
  await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 12_000,
    programs: 6,
    days: 10,
    seed: 3,
    endMs: END_MS,
    threads: 2,
  });
  await runLandingScore(ctx, { minimumSends: 100 });
  snapshot = readJson(join(ctx.dir, "latest.json"));
  profile = mkdtempSync(join(tmpdir(), "txray-chromium-"));
  // A new empty profile (the user data dir) for this run only.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: { width: 1280, height: 900 },
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  rmSync(profile, { recursive: true, force: true });
  ctx.dispose();
});

test("from file:// the page shows the ranked table and asks for nothing but itself", async () => {
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  const url = `file://${join(ctx.dir, "index.html")}`;
  await page.goto(url);
  const rows = page.locator("#board tbody tr");
  expect(snapshot.programs.length).toBeGreaterThanOrEqual(3);
  expect(await rows.count()).toBe(snapshot.programs.length);
  const firstColumn = await page.locator("#board tbody tr td:first-child").allTextContents();
  expect(firstColumn).toEqual(snapshot.programs.map((r) => String(r.rank)));
  const titles = await page
    .locator("#board tbody code.id")
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("title")));
  expect(titles).toEqual(snapshot.programs.map((r) => r.program));
  // Each row draws its interval.
  expect(await page.locator("#board tbody svg.ci rect.band").count()).toBe(snapshot.programs.length);
  expect(await page.locator("#methodology").textContent()).toContain("Wilson");
  await page.screenshot({ path: join(ARTIFACTS, "landing-score.png"), fullPage: true });

  // Sort by sends (largest first), then back by rank.
  await page.locator("#board thead th", { hasText: "Sends" }).locator("button").click();
  const sends = (await page.locator("#board tbody tr td:nth-child(4)").allTextContents()).map((t) =>
    Number(t.replaceAll(",", "")),
  );
  expect(sends).toEqual([...snapshot.programs.map((r) => r.sends)].sort((a, b) => b - a));
  expect(await page.locator("#board thead th", { hasText: "Sends" }).getAttribute("aria-sort")).toBe("descending");
  const rank = page.locator("#board thead th", { hasText: "#" }).locator("button");
  await rank.click();
  expect(await page.locator("#board tbody tr td:first-child").allTextContents()).toEqual(
    snapshot.programs.map((r) => String(r.rank)),
  );
  await rank.click(); // a second click reverses
  expect(await page.locator("#board tbody tr td:first-child").allTextContents()).toEqual(
    snapshot.programs.map((r) => String(r.rank)).reverse(),
  );
  expect(requests).toEqual([url]);
  await page.close();
});

test("on a phone-sized screen the table fits without sideways scrolling", async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`file://${join(ctx.dir, "index.html")}`);
  expect(await page.locator("#board tbody tr").count()).toBe(snapshot.programs.length);
  const overflow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    table: document.getElementById("board")!.scrollWidth - document.querySelector(".table-wrap")!.clientWidth,
  }));
  expect(overflow.page).toBeLessThanOrEqual(0);
  expect(overflow.table).toBeLessThanOrEqual(0);
  // Rank, program, landing rate with its interval, sends and drop rate stay; the rest fold away.
  const visible = await page
    .locator("#board thead th")
    .evaluateAll((cells) => cells.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.textContent));
  expect(visible).toEqual(["#", "Program", "Landing rate", "Sends", "Dropped"]);
  expect(await page.locator("#board tbody tr").first().locator("td").nth(2).isVisible()).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, "landing-score-phone.png"), fullPage: true });
  await page.close();
});
