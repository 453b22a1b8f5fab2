// Benchmark: the web app's weight and speed. Builds the bundle (Bun.build, minified) and reports
// the bytes of its JS, CSS and HTML raw and gzipped (what the server sends), then opens the
// program page and the issue page in headless Chromium against a server filled with simulated
// traffic (the browser tests' world) and times, from navigation start, the first plot drawn (and
// on the program page the uPlot trend; marked by a MutationObserver in the page): first run cold
// (empty cache), then warm runs, medians. Then Lighthouse (pinned 12.2.3, Debian's Chromium, its
// default mobile settings: bench/support/lighthouse.ts) on /, /p/…, /i/… and /tx/….
// Last line: { load, bundle, programPage, issuePage, lighthouse: { home, program, issue, tx } }.
// TXRAY_BENCH_LIGHTHOUSE=off skips Lighthouse.

import { loadavg } from "node:os";
import { buildWebBundle } from "../src/api/web";
import { launchBrowser, simulatedWorld } from "../test/web/support";
import { type LighthouseFigures, lighthouse } from "./support/lighthouse";

const RUNS = Number(process.env.TXRAY_BENCH_RUNS ?? 10);
const PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const buildStarted = performance.now();
const bundle = await buildWebBundle();
const buildMs = Math.round(performance.now() - buildStarted);
const sizes = { js: [0, 0], css: [0, 0] };
for (const [name, asset] of bundle.assets) {
  const kind = name.endsWith(".js") ? "js" : name.endsWith(".css") ? "css" : null;
  if (kind) {
    sizes[kind][0] += asset.body.length;
    sizes[kind][1] += asset.gzip.length;
  }
}
const bundleFigures = {
  buildMs,
  jsBytes: sizes.js[0],
  jsGzipBytes: sizes.js[1],
  cssBytes: sizes.css[0],
  cssGzipBytes: sizes.css[1],
  htmlBytes: bundle.index.body.length,
  htmlGzipBytes: bundle.index.gzip.length,
  totalGzipBytes: sizes.js[1] + sizes.css[1] + bundle.index.gzip.length,
};
console.error("bundle", bundleFigures);

console.error("building the simulated world…");
const world = await simulatedWorld(220);
const browser = await launchBrowser();

// Records when the first plot and the uPlot canvas appear, relative to navigation start.
const MARKS = `
  window.__marks = {};
  new MutationObserver(() => {
    const m = window.__marks;
    if (m.firstPlot === undefined && document.querySelector("[data-plot=ready]")) m.firstPlot = performance.now();
    if (m.trend === undefined && document.querySelector("figure[data-plot=ready] canvas")) m.trend = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true });
`;
await browser.context.addInitScript(MARKS);

async function measure(path: string, ready: string): Promise<{ firstPlot: number; trend: number }> {
  const page = await browser.context.newPage();
  await page.goto(world.t.url + path);
  await page.waitForSelector(ready, { timeout: 30_000 });
  const marks = (await page.evaluate(() => (window as any).__marks)) as { firstPlot: number; trend: number };
  await page.close();
  return marks;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
};

/** Cold (first visit of the process's browser) then RUNS warm visits. */
async function timed(path: string, ready: string) {
  const cold = await measure(path, ready);
  const warm: { firstPlot: number; trend: number }[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await measure(path, ready));
  return { cold, warm };
}

const program = await timed(`/p/${PROGRAM}`, "figure[data-plot=ready] canvas");
// The app program's broken release: an issue with a call stack, logs and a deploy marker.
const top = (await (await fetch(`${world.t.url}/v1/top-issues/${world.appProgram}?window=1d&limit=50`)).json()) as any;
const appIssue =
  [...top.segments.human, ...top.segments.mixed, ...top.segments.bot].find((i: any) => i.errCode !== null) ??
  top.segments.human[0];
const issuePath = `/i/${encodeURIComponent(appIssue.fingerprint)}`;
const issue = await timed(issuePath, "figure[data-plot=ready]");
const story = (await (await fetch(`${world.t.url}/v1/issue/${appIssue.fingerprint}`)).json()) as any;
await browser.close();

const pages: Record<string, string> = {
  home: "/",
  program: `/p/${PROGRAM}`,
  issue: issuePath,
  tx: `/tx/${story.representative.sig}`,
};
const lighthouseFigures: Record<string, LighthouseFigures> = {};
if (process.env.TXRAY_BENCH_LIGHTHOUSE !== "off") {
  for (const [name, path] of Object.entries(pages)) {
    console.error(`lighthouse ${name}…`);
    lighthouseFigures[name] = await lighthouse(world.t.url + path);
    console.error(name, lighthouseFigures[name]);
  }
}
await world.stop();

const result = {
  load: loadavg().map((x) => Math.round(x * 100) / 100),
  bundle: bundleFigures,
  programPage: {
    coldFirstPlotMs: Math.round(program.cold.firstPlot),
    coldTrendMs: Math.round(program.cold.trend),
    warm: {
      runs: RUNS,
      firstPlotMs: median(program.warm.map((w) => w.firstPlot)),
      trendMs: median(program.warm.map((w) => w.trend)),
      trendMaxMs: Math.round(Math.max(...program.warm.map((w) => w.trend))),
    },
  },
  issuePage: {
    coldFirstPlotMs: Math.round(issue.cold.firstPlot),
    warm: {
      runs: RUNS,
      firstPlotMs: median(issue.warm.map((w) => w.firstPlot)),
      firstPlotMaxMs: Math.round(Math.max(...issue.warm.map((w) => w.firstPlot))),
    },
  },
  lighthouse: lighthouseFigures,
};
console.log(JSON.stringify(result));
process.exit(0);
