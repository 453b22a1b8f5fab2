// Benchmark: the web app's weight and speed. Builds the bundle (Bun.build, minified) and reports
// the bytes of its JS, CSS and HTML raw and gzipped (what the server sends), then opens the
// program page in headless Chromium against a server filled with simulated traffic (the browser
// tests' world) and times, from navigation start, the first plot drawn and the uPlot trend drawn
// (marked by a MutationObserver in the page). First run cold (empty cache), then warm runs.
// Last line: { bundle: {...}, programPage: { coldFirstPlotMs, coldTrendMs, warm: { firstPlotMs, trendMs } } }.

import { buildWebBundle } from "../src/api/web";
import { launchBrowser, simulatedWorld } from "../test/web/support";

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
  jsBytes: sizes.js[0], jsGzipBytes: sizes.js[1],
  cssBytes: sizes.css[0], cssGzipBytes: sizes.css[1],
  htmlBytes: bundle.index.body.length, htmlGzipBytes: bundle.index.gzip.length,
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

async function measure(): Promise<{ firstPlot: number; trend: number }> {
  const page = await browser.context.newPage();
  await page.goto(`${world.t.url}/p/${PROGRAM}`);
  await page.waitForSelector("figure[data-plot=ready] canvas", { timeout: 30_000 });
  const marks = (await page.evaluate(() => (window as any).__marks)) as { firstPlot: number; trend: number };
  await page.close();
  return marks;
}

const cold = await measure();
const warm: { firstPlot: number; trend: number }[] = [];
for (let i = 0; i < RUNS; i++) warm.push(await measure());
await browser.close();
await world.stop();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
};
const result = {
  bundle: bundleFigures,
  programPage: {
    coldFirstPlotMs: Math.round(cold.firstPlot),
    coldTrendMs: Math.round(cold.trend),
    warm: { runs: RUNS, firstPlotMs: median(warm.map((w) => w.firstPlot)), trendMs: median(warm.map((w) => w.trend)), trendMaxMs: Math.round(Math.max(...warm.map((w) => w.trend))) },
  },
};
console.log(JSON.stringify(result));
process.exit(0);
