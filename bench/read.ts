// Benchmark: read routes over real HTTP on loopback against the serving tables of the synthetic
// lake (TXRAY_BENCH_ENVELOPES, default 10M; see bench/tables.ts). A server subprocess serves the
// real application (createApp) plus a ceiling route returning a constant JSON body of a given size,
// so each route is compared with the ceiling for its own median body size, same server, same run.
// Per route: max requests/s (closed loop, 32 concurrent), then p99 latency at half that rate
// (open loop). Last line: { ceiling: { rps }, routes: { <route>: { rps, p99Ms, ratio } } }.
// TXRAY_BENCH_ROUTES=wallet,top-issues measures only those routes; TXRAY_BENCH_SECONDS per phase.
// `wallet` cycles through 500 wallet pages (answers cached per serving version after the first);
// `wallet-distinct` asks each page once: every (program, payer) active in the last 7 days in each
// window, the max-rate and p99 phases on disjoint pages (`distinct` and `repeated` say whether the
// pages ran out and some were asked again).

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPointer } from "../src/analytics/serving/pointer";
import { servingTables } from "../src/analytics/serving/reader";
import { walletStoreBaseOf } from "../src/analytics/serving/wallet-store";
import { buildServingTables } from "../src/analytics/tables/build";
import { createApp } from "../src/api/app";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { silentLogger } from "../src/shared/logger";
import { Spool } from "../src/spool/spool";
import { BENCH_END_MS, benchEnvelopes, benchLake } from "./tables";

const CONCURRENCY = 32;
const SECONDS = Number(process.env.TXRAY_BENCH_SECONDS ?? 3);

/**
 * The `--serve` child: the real application (createApp from src/api/app.ts: Elysia routing, public
 * rate limit, auth, error rendering, JSON) plus the ceiling route, on one Bun.serve in one process.
 * `/ceiling/<bytes>` answers a constant JSON body of that size from a native Bun route; every
 * other request goes to the app. The public rate limit is set out of reach (the clock is frozen at
 * the lake's end, so buckets never refill).
 */
async function serve(dataDir: string): Promise<void> {
  const config = loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_LOG_LEVEL: "silent",
    TXRAY_SCHEDULER: "off",
    PUBLIC_RATE_PER_MINUTE: String(2 ** 40),
  });
  const ctx = await createContext(config, { logger: silentLogger, clock: () => BENCH_END_MS });
  // The app needs a spool (ingest); the bench never ingests, so it gets a private one that cannot
  // collide with another process's on the same data directory (a spool has one owner).
  const spoolDir = mkdtempSync(join(tmpdir(), "txray-bench-spool-"));
  process.on("exit", () => rmSync(spoolDir, { recursive: true, force: true }));
  process.on("SIGTERM", () => process.exit(0));
  const spool = new Spool({
    dir: spoolDir,
    nodeId: config.TXRAY_NODE_ID,
    sealAfterMs: config.SPOOL_SEAL_MS,
    maxSegmentBytes: config.SPOOL_SEGMENT_MAX_BYTES,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  spool.open();
  const app = createApp({ ctx, spool });
  const ceilings = new Map<number, string>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // 32 wallet pages at once each read the lake: on a loaded host one waits longer than Bun's
    // default 10 s for its turn, and a reset connection ended the run.
    idleTimeout: 255,
    routes: {
      "/ceiling/:bytes": (request) => {
        const bytes = Number(request.params.bytes);
        let body = ceilings.get(bytes);
        if (!body) ceilings.set(bytes, (body = JSON.stringify({ pad: "x".repeat(Math.max(0, bytes - 10)) })));
        return new Response(body, { headers: { "content-type": "application/json" } });
      },
    },
    fetch: (request) => app.handle(request),
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
  const pointer = readPointer(ctx.paths);
  // A version without its wallet-page store (built before there was one) is built again.
  if (
    !pointer ||
    !existsSync(join(ctx.paths.tables, pointer.file)) ||
    walletStoreBaseOf(ctx.paths.tables, pointer.version) === null
  )
    await buildServingTables(ctx);
  const tables = await servingTables(ctx);
  // 500 (program, payer) pairs active in the last 7 days, spread by hash.
  const wallets = await ctx.duck.all<{ program: string; payer: string }>(
    `SELECT program, payer FROM (
       SELECT DISTINCT program::VARCHAR AS program, payer FROM read_parquet('${ctx.paths.dataset("envelopes")}/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})
       WHERE epoch_ms(received_at) BETWEEN ${tables.clock - 7 * 86_400_000} AND ${tables.clock}
     ) ORDER BY hash(payer), program LIMIT 500`,
  );
  const activeWallets = await ctx.duck.all<{ program: string; payer: string }>(
    `SELECT DISTINCT program::VARCHAR AS program, payer FROM read_parquet('${ctx.paths.dataset("envelopes")}/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})
     WHERE epoch_ms(received_at) BETWEEN ${tables.clock - 7 * 86_400_000} AND ${tables.clock} ORDER BY hash(payer, program)`,
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
    "wallet-distinct": activeWallets.flatMap((w) =>
      windows.map((window) => `/v1/wallet/${w.program}/${w.payer}?window=${window}&limit=50`),
    ),
    "provider-report": each((p, w) => `/v1/provider-report/${p}?window=${w}`),
  };
  ctx.close();

  const server = Bun.spawn(["bun", "run", import.meta.path, "--serve", ctx.config.dataDir], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = server.stdout.getReader();
  const first = await reader.read();
  if (first.done) throw new Error(`the --serve child exited before listening (code ${await server.exited})`);
  const port = new TextDecoder().decode(first.value).trim();
  const base = `http://127.0.0.1:${port}`;
  try {
    const results: Record<
      string,
      {
        rps: number;
        p99Ms: number;
        ratio: number;
        bytes: number;
        errors: number;
        ceilingRps: number;
        ceilingP99Ms: number;
      }
    > = {};
    const only = process.env.TXRAY_BENCH_ROUTES?.split(",");
    for (const [name, urls] of Object.entries(routeUrls)) {
      if (only && !only.includes(name)) continue;
      // Distinct pages: the warm-up, the max rate and the p99 phase each on pages not asked before.
      const distinct = name === "wallet-distinct";
      const half = Math.floor((urls.length + 50) / 2);
      await maxRate(base, urls.slice(0, 50)); // warm-up (opens the serving file, fills caches)
      const max = await maxRate(base, distinct ? urls.slice(50, half) : urls);
      const p99Ms = await p99AtRate(base, distinct ? urls.slice(half) : urls, max.rps / 2);
      if (distinct)
        console.error(
          JSON.stringify({
            route: name,
            distinct: urls.length,
            asked: Math.round(max.rps * SECONDS),
            repeated: max.rps * SECONDS > half - 50 || (max.rps / 2) * SECONDS > urls.length - half,
          }),
        );
      const bytes = max.bytes.sort((a, b) => a - b)[Math.floor(max.bytes.length / 2)];
      // The route's own ceiling: a constant body of its median size, measured right after it.
      const ceilingRps = (await maxRate(base, [`/ceiling/${bytes}`])).rps;
      // Diagnostic: the constant body's p99 at the same offered rate shows what the machine and the
      // load generator add on their own.
      const ceilingP99Ms = await p99AtRate(base, [`/ceiling/${bytes}`], max.rps / 2);
      results[name] = {
        rps: Math.round(max.rps),
        p99Ms: Math.round(p99Ms * 100) / 100,
        ratio: Math.round((max.rps / ceilingRps) * 100) / 100,
        bytes,
        errors: max.errors,
        ceilingRps: Math.round(ceilingRps),
        ceilingP99Ms: Math.round(ceilingP99Ms * 100) / 100,
      };
    }
    // The headline ceiling: a body of the routes' median size.
    const sizes = Object.values(results)
      .map((r) => r.bytes)
      .sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)];
    const ceiling = await maxRate(base, [`/ceiling/${median}`]);
    console.error(JSON.stringify({ envelopes, concurrency: CONCURRENCY, seconds: SECONDS, ceilingBytes: median }));
    console.log(JSON.stringify({ ceiling: { rps: Math.round(ceiling.rps) }, routes: results }));
  } finally {
    server.kill();
    await server.exited;
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
