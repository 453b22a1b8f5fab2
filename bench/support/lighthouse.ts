// Lighthouse (the devDependency pinned at 12.2.3) on one page: its CLI under Node (Lighthouse
// supports Node, not Bun) against Debian's Chromium (CHROME_PATH=/usr/bin/chromium, headless, no
// sandbox, no GPU: never a browser download), with its default settings (mobile: a mid-range phone,
// slow 4G, 4× CPU slowdown), performance and accessibility only. Returns the scores (0–100) and
// the figures behind them, with the failing accessibility audits by id.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type LighthouseFigures = {
  version: string;
  performance: number;
  accessibility: number;
  cumulativeLayoutShift: number;
  firstContentfulPaintMs: number;
  largestContentfulPaintMs: number;
  totalBlockingTimeMs: number;
  speedIndexMs: number;
  /** Accessibility audits that did not pass, by id. */
  accessibilityFailures: string[];
};

const LIGHTHOUSE_CLI = join(import.meta.dir, "..", "..", "node_modules", "lighthouse", "cli", "index.js");
export const CHROME_FLAGS = "--headless --no-sandbox --disable-gpu";

export async function lighthouse(url: string): Promise<LighthouseFigures> {
  const dir = mkdtempSync(join(tmpdir(), "txray-lighthouse-"));
  const output = join(dir, "report.json");
  try {
    const child = Bun.spawn(
      [
        "node",
        LIGHTHOUSE_CLI,
        url,
        `--chrome-flags=${CHROME_FLAGS}`,
        "--output=json",
        `--output-path=${output}`,
        "--only-categories=performance,accessibility",
        "--quiet",
      ],
      {
        env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? "/usr/bin/chromium" },
        stdout: "ignore",
        stderr: "pipe",
      },
    );
    const code = await child.exited;
    if (code !== 0)
      throw new Error(`lighthouse exited ${code}: ${(await new Response(child.stderr).text()).slice(-500)}`);
    const report = JSON.parse(readFileSync(output, "utf8"));
    const audit = (id: string) => report.audits[id]?.numericValue as number;
    const a11yIds: string[] = report.categories.accessibility.auditRefs.map((ref: { id: string }) => ref.id);
    return {
      version: report.lighthouseVersion,
      performance: Math.round(report.categories.performance.score * 100),
      accessibility: Math.round(report.categories.accessibility.score * 100),
      cumulativeLayoutShift: Math.round(audit("cumulative-layout-shift") * 1000) / 1000,
      firstContentfulPaintMs: Math.round(audit("first-contentful-paint")),
      largestContentfulPaintMs: Math.round(audit("largest-contentful-paint")),
      totalBlockingTimeMs: Math.round(audit("total-blocking-time")),
      speedIndexMs: Math.round(audit("speed-index")),
      accessibilityFailures: a11yIds.filter((id) => report.audits[id]?.score !== null && report.audits[id]?.score < 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
