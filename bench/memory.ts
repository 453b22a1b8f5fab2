// Benchmark: resident memory of the server's repeated work, each part sped up far beyond its
// rate in a running server, in one process: RSS (after a full garbage collection and mimalloc's
// purge delay) every tenth of the cycles. A part that leaks grows with its cycles; one that does
// not levels off after its first tenth.
// - `versions`: the tables job publishes a version and the routes read it: each cycle makes a new
//   serving version (hard links of the first one's files and a new pointer, as a refresh publishes
//   one) and reads every public analytics route, two wallet pages and /v1/status through the real
//   application (createApp) over loopback HTTP. Each version is a DuckDB instance of its own and a
//   wallet-store connection, opened and closed (serving/reader.ts). The server refreshes every
//   TABLES_INTERVAL_MS (30 s): 600 cycles are five hours of refreshes.
// - `instances`: DuckDB instances alone, opened (four connections), queried and closed.
// - `flush`: a sealed spool segment of 400 envelopes flushed to the lake per cycle (200
//   envelopes/s with the 2 s flush interval): 1,500 cycles are 50 minutes of flushes.
// TXRAY_BENCH_CYCLES scales every part (default 1: 600, 2,000 and 1,500 cycles).
// Last line: { <part>: { cycles, rssMB: [...], growthMB (last − the one after the first tenth),
// seconds } }.

import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { generateLake } from "../devkit/generate";
import { readPointer, writePointer } from "../src/analytics/serving/pointer";
import { freshServingTables } from "../src/analytics/serving/reader";
import { buildServingTables } from "../src/analytics/tables/build";
import { createApp } from "../src/api/app";
import { loadConfig } from "../src/config";
import { type Context, createContext } from "../src/context";
import { flushSpool } from "../src/lake/flush-spool";
import { silentLogger } from "../src/shared/logger";
import { encodeFrames, framesFileOf } from "../src/spool/frames";
import { encodeSpoolBatch } from "../src/spool/line-format";
import { newSegmentName, Spool } from "../src/spool/spool";
import { makeEnvelope, randomAddress } from "../test/helpers/envelopes";

const END_MS = 1_763_700_000_000;
const SCALE = Number(process.env.TXRAY_BENCH_CYCLES ?? 1);
const work = mkdtempSync(join(tmpdir(), "txray-bench-memory-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

function rssMb(): number {
  const status = readFileSync("/proc/self/status", "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024);
}

type Part = { cycles: number; rssMB: number[]; growthMB: number; seconds: number };

/** Runs `cycle` n times, sampling RSS after every tenth (a full collection, then mimalloc's 100 ms purge delay). */
async function measure(name: string, n: number, cycle: (i: number) => Promise<void>): Promise<Part> {
  const rss: number[] = [];
  const every = Math.max(1, Math.floor(n / 10));
  const t0 = performance.now();
  for (let i = 1; i <= n; i++) {
    await cycle(i);
    if (i % every === 0) {
      Bun.gc(true);
      await Bun.sleep(250);
      rss.push(rssMb());
      console.error(`${name}: ${i}/${n} cycles, ${rss.at(-1)} MB resident`);
    }
  }
  return {
    cycles: n,
    rssMB: rss,
    growthMB: rss.at(-1)! - rss[0],
    seconds: Math.round((performance.now() - t0) / 1000),
  };
}

function contextConfig(dataDir: string) {
  return loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_LOG_LEVEL: "silent",
    TXRAY_SCHEDULER: "off",
    PUBLIC_RATE_PER_MINUTE: String(2 ** 40),
  });
}

/** The application on loopback, as bench/read.ts serves it (a private spool: the bench never ingests). */
function serveApp(ctx: Context): { url: string; stop(): void } {
  const spool = new Spool({
    dir: join(work, "spool"),
    nodeId: ctx.config.TXRAY_NODE_ID,
    sealAfterMs: ctx.config.SPOOL_SEAL_MS,
    maxSegmentBytes: ctx.config.SPOOL_SEGMENT_MAX_BYTES,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  spool.open();
  const app = createApp({ ctx, spool });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => app.handle(request) });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

async function versions(cycles: number): Promise<{ part: Part; servingFile: string }> {
  const dataDir = join(work, "versions");
  const ctx = await createContext(contextConfig(dataDir), { logger: silentLogger, clock: () => END_MS });
  console.error("versions: generating a lake of 20,000 envelopes and its serving tables");
  const generated = await generateLake({
    dataDir,
    envelopes: 20_000,
    programs: 4,
    days: 30,
    seed: 7,
    endMs: END_MS,
    control: ctx.control,
    threads: 2,
  });
  await buildServingTables(ctx);
  const first = readPointer(ctx.paths)!;
  const payers = (
    await ctx.duck.all<{ payer: string }>(
      `SELECT DISTINCT payer FROM read_parquet('${ctx.paths.dataset("envelopes")}/**/*.parquet', hive_partitioning = true) ORDER BY payer LIMIT 20`,
    )
  ).map((row) => row.payer);
  const server = serveApp(ctx);
  const tables = ctx.paths.tables;
  const sides = ["duckdb", "answers"];
  let version = first.version;
  const part = await measure("versions", cycles, async (i) => {
    const next = version + 1;
    for (const side of sides)
      linkSync(join(tables, `serving-${first.version}.${side}`), join(tables, `serving-${next}.${side}`));
    writePointer(ctx.paths, { ...first, version: next, file: `serving-${next}.duckdb` });
    // As the tables job does: the version before the previous one goes.
    if (version - 1 > first.version)
      for (const side of sides) rmSync(join(tables, `serving-${version - 1}.${side}`), { force: true });
    version = next;
    const program = generated.programs[i % generated.programs.length];
    const paths = [
      "/v1/status",
      `/v1/baseline/${program}?window=1d`,
      `/v1/top-issues/${program}?window=7d`,
      `/v1/cu-headroom/${program}`,
      `/v1/provider-report/${program}`,
      `/v1/release-diff/${program}`,
      `/v1/wallet/${program}/${payers[i % payers.length]}?window=30d`,
      `/v1/wallet/${program}/${payers[(i * 7) % payers.length]}?window=1d`,
    ];
    // The routes read the pointer at most every 250 ms: the switch is made now, as the first read after that would.
    await freshServingTables(ctx);
    await Promise.all(
      paths.map(async (path) => {
        const response = await fetch(server.url + path);
        await response.arrayBuffer();
        if (response.status !== 200 && response.status !== 404) throw new Error(`${path}: ${response.status}`);
      }),
    );
  });
  server.stop();
  ctx.close();
  return { part, servingFile: join(tables, `serving-${version}.duckdb`) };
}

async function instances(cycles: number, file: string): Promise<Part> {
  return await measure("instances", cycles, async () => {
    const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY", memory_limit: "1GB" });
    const connections = [];
    for (let k = 0; k < 4; k++) connections.push(await instance.connect());
    (await connections[0].runAndReadAll("SELECT count(*) FROM duckdb_tables()")).getRows();
    for (const connection of connections) connection.closeSync();
    instance.closeSync();
  });
}

async function flush(cycles: number): Promise<Part> {
  const dataDir = join(work, "flush");
  const ctx = await createContext(contextConfig(dataDir), { logger: silentLogger });
  const spoolDir = ctx.paths.spool("node1");
  mkdirSync(spoolDir, { recursive: true });
  const programs = Array.from({ length: 3 }, randomAddress);
  const payers = Array.from({ length: 500 }, randomAddress);
  const start = Date.now() - 3_600_000;
  let n = 0;
  const part = await measure("flush", cycles, async (i) => {
    const chunks: Uint8Array[] = [];
    for (let b = 0; b < 4; b++) {
      const batch = Array.from({ length: 100 }, () => {
        n++;
        return makeEnvelope({
          program: programs[n % 3],
          payer: payers[n % payers.length],
          sentAt: start + n,
          cuLimit: 200_000,
          cuPriceMicroLamports: 1000 * (n % 7),
        });
      });
      chunks.push(encodeSpoolBatch("acc_bench", start + n, Bun.randomUUIDv7(), batch));
    }
    const file = join(spoolDir, `${newSegmentName("node1", start + i)}.sealed`);
    writeFileSync(file, Buffer.concat(chunks));
    writeFileSync(framesFileOf(file), encodeFrames(0, chunks));
    const result = await flushSpool(ctx);
    if (result.rows !== 400) throw new Error(`flushed ${result.rows} rows, expected 400`);
  });
  ctx.close();
  return part;
}

const servingVersions = await versions(Math.round(600 * SCALE));
const result = {
  versions: servingVersions.part,
  instances: await instances(Math.round(2000 * SCALE), servingVersions.servingFile),
  flush: await flush(Math.round(1500 * SCALE)),
};
console.log(JSON.stringify(result));
