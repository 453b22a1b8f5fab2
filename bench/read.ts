// Benchmark: read routes over real HTTP on loopback against the serving tables of the synthetic
// lake (TXRAY_BENCH_ENVELOPES, default 10M; see bench/tables.ts). A server subprocess serves the
// analytics routes plus a ceiling route returning a constant JSON body of the routes' median size.
// Per route: max requests/s (closed loop, 32 concurrent), then p99 latency at half that rate
// (open loop). Last line: { ceiling: { rps }, routes: { <route>: { rps, p99Ms, ratio } } }.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildServingTables } from "../src/analytics/tables/build";
import { readPointer } from "../src/analytics/serving/pointer";
import { servingTables } from "../src/analytics/serving/reader";
import { analyticsRoutes } from "../src/api/routes/analytics";
import { errorResponse, json } from "../src/api/http";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { silentLogger } from "../src/shared/logger";
import { BENCH_END_MS, benchEnvelopes, benchLake } from "./tables";

const CONCURRENCY = 32;
const SECONDS = Number(process.env.TXRAY_BENCH_SECONDS ?? 3);

async function serve(dataDir: string): Promise<void> {
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" }), { logger: silentLogger, clock: () => BENCH_END_MS });
  const routes = analyticsRoutes(ctx).map((r) => ({ ...r, pattern: new RegExp("^" + r.path.replace(/:(\w+)/g, "(?<$1>[^/]+)") + "$") }));
  const ceilings = new Map<number, string>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname.startsWith("/ceiling/")) {
        const bytes = Number(url.pathname.slice(9));
        let body = ceilings.get(bytes);
        if (!body) ceilings.set(bytes, (body = JSON.stringify({ pad: "x".repeat(Math.max(0, bytes - 10)) })));
        return new Response(body, { headers: { "content-type": "application/json" } });
      }
      for (const route of routes) {
        const match = route.pattern.exec(url.pathname);
        if (!match) continue;
        try {
          return json(await route.handler(request, url, { ...match.groups }));
        } catch (error) {
          return errorResponse(error, ctx.logger);
        }
      }
      return json({ error: { code: "not_found", message: "no such route" } }, 404);
    },
  });
  console.log(String(server.port));
}

/** Max rate: CONCURRENCY workers each sending the next URL as soon as the previous answer is read. */
async function maxRate(base: string, urls: string[]): Promise<{ rps: number; errors: number; bytes: number[] }> {
  let next = 0;
  let done = 0;
  let errors = 0;
  const bytes: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const response = await fetch(base + urls[next++ % urls.length]);
        const text = await response.text();
        if (response.status !== 200) errors++;
        if (bytes.length < 200) bytes.push(text.length);
        done++;
      }
    }),
  );
  return { rps: done / SECONDS, errors, bytes };
}

/** p99 latency when requests arrive at a fixed rate (open loop), in ms. */
async function p99AtRate(base: string, urls: string[], rps: number): Promise<number> {
  const latencies: number[] = [];
  const total = Math.max(50, Math.floor(rps * SECONDS));
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rps;
    const wait = due - performance.now();
    if (wait > 1) await Bun.sleep(wait);
    pending.push(
      (async () => {
        const sent = performance.now();
        const response = await fetch(base + urls[i % urls.length]);
        await response.arrayBuffer();
        latencies.push(performance.now() - Math.max(sent, due));
      })(),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length * 0.99)];
}

async function main(): Promise<void> {
  const envelopes = benchEnvelopes();
  const { ctx, generated } = await benchLake(envelopes);
  if (!readPointer(ctx.paths) || !existsSync(join(ctx.paths.tables, readPointer(ctx.paths)!.file))) await buildServingTables(ctx);
  const tables = await servingTables(ctx);
  const wallets = await tables.all<{ program: string; payer: string }>(
    "SELECT program, payer FROM wallet_summary WHERE scope = '*' AND win = '7d' ORDER BY hash(payer) LIMIT 500",
  );
  const programs = generated.programs;
  const windows = ["1d", "7d", "30d"];
  const each = (f: (p: string, w: string) => string) => programs.flatMap((p) => windows.map((w) => f(p, w)));
  const routeUrls: Record<string, string[]> = {
    baseline: each((p, w) => `/v1/baseline/${p}?window=${w}`),
    "release-diff": each((p, w) => `/v1/release-diff/${p}?window=${w}`),
    "top-issues": each((p, w) => `/v1/top-issues/${p}?window=${w}&limit=20`),
    "cu-headroom": each((p, w) => `/v1/cu-headroom/${p}?window=${w}`),
    wallet: wallets.map((w, i) => `/v1/wallet/${w.program}/${w.payer}?window=${windows[i % 3]}&limit=50`),
    "provider-report": each((p, w) => `/v1/provider-report/${p}?window=${w}`),
  };
  ctx.close();

  const server = Bun.spawn(["bun", "run", import.meta.path, "--serve", ctx.config.dataDir], { stdout: "pipe", stderr: "inherit" });
  const reader = server.stdout.getReader();
  const port = new TextDecoder().decode((await reader.read()).value).trim();
  const base = `http://127.0.0.1:${port}`;
  try {
    const results: Record<string, { rps: number; p99Ms: number; ratio: number; bytes: number; errors: number }> = {};
    const sizes: Record<string, number> = {};
    for (const [name, urls] of Object.entries(routeUrls)) {
      await maxRate(base, urls.slice(0, 50)); // warm-up (opens the serving file, fills caches)
      const max = await maxRate(base, urls);
      const p99Ms = await p99AtRate(base, urls, max.rps / 2);
      sizes[name] = max.bytes.sort((a, b) => a - b)[Math.floor(max.bytes.length / 2)];
      results[name] = { rps: Math.round(max.rps), p99Ms: Math.round(p99Ms * 100) / 100, ratio: 0, bytes: sizes[name], errors: max.errors };
    }
    // The ceiling is measured per route with a constant body of that route's median size.
    const median = Object.values(sizes).sort((a, b) => a - b)[Math.floor(Object.keys(sizes).length / 2)];
    await maxRate(base, [`/ceiling/${median}`]);
    const ceiling = await maxRate(base, [`/ceiling/${median}`]);
    for (const [name, result] of Object.entries(results)) {
      const same = (await maxRate(base, [`/ceiling/${result.bytes}`])).rps;
      Object.assign(result, { ceilingRps: Math.round(same), ratio: Math.round((result.rps / same) * 100) / 100 });
      void name;
    }
    console.error(JSON.stringify({ envelopes, concurrency: CONCURRENCY, seconds: SECONDS, ceilingBytes: median }));
    console.log(JSON.stringify({ ceiling: { rps: Math.round(ceiling.rps) }, routes: results }));
  } finally {
    server.kill();
  }
}

if (import.meta.main) {
  const serveAt = process.argv.indexOf("--serve");
  if (serveAt >= 0) await serve(process.argv[serveAt + 1]);
  else {
    await main();
    process.exit(0);
  }
}
