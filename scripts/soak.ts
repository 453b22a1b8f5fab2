// `bun run soak [--minutes M] [--rate R] [--batch B] [--history N] [--split]`: sustained load on a real txray process
// on loopback. Starts `bun src/bin/server.ts` over a temp data directory with its scheduler running every job
// (flush, resolve, deploys, tables, compact, retention) against a loopback JSON-RPC stand-in for
// mainnet (recorded real transactions for the attempts that land), ingests R envelopes/s (default
// 20,000) in batches, queries every read route (and MCP tools when /mcp exists) meanwhile, and
// prints one JSON line per minute: resident memory of the server, spool backlog, resolver backlog,
// ingest and read latency percentiles (and the slowest routes), errors, job runs, failed job runs by job (from the
// control database's job_runs, read every 10 s since it keeps only each job's latest runs), and the data directory's
// sizes (the control database and its WAL, lake, spool, tables, index, resolver). The last line is a JSON summary,
// with the control database's and the data directory's growth an hour (a line fitted to the last 20 minutes).
// Bounded: it stops itself after M minutes (default 10), stops the server and removes its data. With
// --history N the lake starts with N envelopes of the last 7 days (see below). With --split, txray
// runs as two processes over the same data directory, one for ingest and reads and one job runner
// (docs/scaling.md): the jobs then run in another process than ingest and reads (the resolver has a
// thread of its own in either shape, RESOLVE_THREAD). Memory is then the sum of both.

import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Subprocess, spawn } from "bun";
import { generateLake } from "../devkit/generate";
import { randomSignatures, soakEnvelope, startStandInChain } from "../devkit/standin";
import { createAccountKey, openControlDb } from "../src/control";
import { dataPaths } from "../src/lake/paths";
import { encodeBase58 } from "../src/shared/base58";
import { Stopped } from "../src/shared/stop";
import { processTree } from "./process-tree";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    minutes: { type: "string" },
    rate: { type: "string" },
    batch: { type: "string" },
    history: { type: "string" },
    "keep-data": { type: "boolean" },
    split: { type: "boolean" },
  },
  strict: true,
});
const minutes = Number(values.minutes ?? 10);
const rate = Number(values.rate ?? 20_000);
const batchSize = Number(values.batch ?? 500);
/** Envelopes of history (7 days, the soak's programs and accounts) written to the lake before the server starts. */
const history = Number(values.history ?? 0);
if (
  !(minutes > 0) ||
  !(rate > 0) ||
  !Number.isInteger(batchSize) ||
  batchSize < 1 ||
  batchSize > 1000 ||
  !Number.isInteger(history) ||
  history < 0
) {
  console.error(
    "usage: bun run soak [--minutes M] [--rate R] [--batch B (1-1000)] [--history N] [--split] [--keep-data]",
  );
  process.exit(2);
}
const ROOT = new URL("..", import.meta.url).pathname;
const MAX_IN_FLIGHT = 32;
// Hard stop whatever happens: the soak must end by itself.
const hardStop = setTimeout(
  () => {
    console.error("soak: hard time limit reached; stopping");
    for (const server of servers) server.process.kill("SIGKILL");
    process.exit(3);
  },
  (minutes + 5) * 60_000,
);

// --- the chain: a stand-in mainnet provider (devkit/standin): 60% landed, 10% failed on chain, 30% never landed ---
const chain = startStandInChain();
const height = chain.height;

// --- the server: a real process with every job scheduled ---
const dataDir = mkdtempSync(join(tmpdir(), "txray-soak-"));
const control = openControlDb(dataPaths(dataDir).controlDb);
const created = Array.from({ length: 4 }, (_, i) => createAccountKey(control, `soak-${i}`, "live", Date.now()));
const keys = created.map((c) => c.key);
const readKey = createAccountKey(control, "soak-0", "read", Date.now()).key;
// --history N: a lake that already holds N envelopes (and their resolutions) of the soak's programs
// and accounts over the last 7 days, so the run measures an instance that has been running, not
// one filling an empty lake (the tables build works over everything in its windows).
let PROGRAMS = [
  "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc",
];
if (history > 0) {
  const generated = await generateLake({
    dataDir,
    envelopes: history,
    programs: 3,
    days: 7,
    accounts: created.map((c) => c.record.accountId),
    control,
  });
  PROGRAMS = generated.programs;
  console.error(
    `soak: ${generated.envelopes.toLocaleString()} envelopes of history over 7 days written in ${Math.round(generated.seconds)} s`,
  );
}
control.close();
const serverEnv: Record<string, string> = {
  TXRAY_DATA_DIR: dataDir,
  TXRAY_SNAPSHOTS_DIR: join(dataDir, "snapshots"),
  API_HOST: "127.0.0.1",
  API_PORT: "0",
  TXRAY_SCHEDULER: "on",
  TXRAY_LOG_LEVEL: "info", // "txray listening" (the URL) is an info line
  SOLANA_RPC_URL: chain.url,
  DEPLOYS_INTERVAL_MS: "60000",
  TABLES_INTERVAL_MS: "60000",
  COMPACT_INTERVAL_MS: "120000",
  TXRAY_RETENTION_DAYS: "30",
  PUBLIC_RATE_PER_MINUTE: "1000000",
};
// Any txray setting in the environment overrides the soak's defaults.
for (const [name, value] of Object.entries(process.env))
  if (value !== undefined && name in serverEnv && name !== "TXRAY_DATA_DIR") serverEnv[name] = value;
type Txray = { process: Subprocess<"ignore", "ignore", "pipe">; url: string };
const servers: Txray[] = [];
const serverLog: string[] = [];
/** A txray process, once it says where it listens; its log lines then go to serverLog. */
async function startTxray(env: Record<string, string>): Promise<Txray> {
  // As `bun run start` starts it: Bun's thread pool at 16 and two glibc malloc arenas unless the environment says
  // otherwise (docs/operations.md).
  const child = spawn(["bun", "src/bin/server.ts"], {
    cwd: ROOT,
    env: { UV_THREADPOOL_SIZE: "16", MALLOC_ARENA_MAX: "2", ...process.env, ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  servers.push({ process: child, url: "" });
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${text}`);
    text += decoder.decode(value);
    const match = /"message":"txray listening","url":"([^"]+)"/.exec(text);
    if (match) {
      void (async () => {
        let rest = "";
        for (;;) {
          const { value: chunk, done: end } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (end) break;
          rest += decoder.decode(chunk);
          const lines = rest.split("\n");
          rest = lines.pop()!;
          for (const line of lines) if (line.trim() !== "") serverLog.push(line);
        }
      })();
      servers[servers.length - 1].url = match[1];
      return servers[servers.length - 1];
    }
  }
}
async function startSoakServers(): Promise<string> {
  if (!values.split) return (await startTxray(serverEnv)).url;
  await startTxray({ ...serverEnv, TXRAY_ROLES: "ingest,read", TXRAY_NODE_ID: "api-1" });
  await startTxray({ ...serverEnv, TXRAY_ROLES: "jobs", TXRAY_NODE_ID: "jobs-1" });
  return servers[0].url;
}
const url = await startSoakServers();
console.error(`soak: data directory ${dataDir}`);

// --- failed job runs: job_runs keeps each job's latest runs only, so it is read often enough to see every one ---
const paths = dataPaths(dataDir);
const controlReader = new Database(paths.controlDb);
controlReader.exec("PRAGMA busy_timeout = 5000");
const failedRuns = new Map<string, number>();
const failedRunSamples: string[] = [];
/** Runs the server's own shutdown stopped at a safe point (the soak's end): not failures, counted apart. */
const stoppedRuns = new Map<string, number>();
const STOPPED_MESSAGE = new Stopped().message;
let lastFailedRunId = 0;
function readFailedRuns(): void {
  try {
    const rows = controlReader
      .query<{ id: number; job: string; error: string | null }, [number]>(
        "SELECT id, job, error FROM job_runs WHERE ok = 0 AND id > ? ORDER BY id",
      )
      .all(lastFailedRunId);
    for (const row of rows) {
      lastFailedRunId = row.id;
      if (row.error === STOPPED_MESSAGE) {
        stoppedRuns.set(row.job, (stoppedRuns.get(row.job) ?? 0) + 1);
        continue;
      }
      failedRuns.set(row.job, (failedRuns.get(row.job) ?? 0) + 1);
      if (failedRunSamples.length < 10) failedRunSamples.push(`${row.job}: ${(row.error ?? "").slice(0, 300)}`);
    }
  } catch (error) {
    noteError(`job_runs: ${(error as Error).message}`);
  }
}
const failedRunsReader = setInterval(readFailedRuns, 10_000);

/** Bytes of the files under `path` (0 when it does not exist): what `du -b` counts, without directories. */
function bytesUnder(path: string): number {
  let total = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  }
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) total += bytesUnder(child);
    else
      try {
        total += statSync(child).size;
      } catch {} // removed meanwhile (a compaction's replaced part)
  }
  return total;
}
const diskBytes = () => {
  const controlDb = bytesUnder(paths.controlDb);
  const controlWal = bytesUnder(`${paths.controlDb}-wal`);
  return {
    controlDb,
    controlWal,
    controlTotal: controlDb + controlWal + bytesUnder(`${paths.controlDb}-shm`),
    lake: bytesUnder(paths.lake),
    spool: bytesUnder(paths.spoolRoot),
    tables: bytesUnder(paths.tables),
    signatureIndex: bytesUnder(paths.signatureIndex),
    resolver: bytesUnder(paths.resolver),
    dataDir: bytesUnder(dataDir),
  };
};

// --- load: envelopes at a steady rate, in batches ---
const payers = Array.from({ length: 2000 }, () => encodeBase58(randomBytes(32)));
const blockhash = encodeBase58(randomBytes(32));
const recentSigs: string[] = [];
let envelopeCounter = 0;
// Random as mainnet's (devkit/standin): generated ones sharing prefixes made the signature index's
// runs a quarter of their real size, and its sort take a path real signatures do not.
const randomSignature = randomSignatures();

function makeBatch(): string {
  const now = Date.now();
  const h = height();
  const envelopes = [];
  for (let i = 0; i < batchSize; i++) {
    const n = envelopeCounter++;
    const envelope = soakEnvelope(n, {
      signature: randomSignature,
      programs: PROGRAMS,
      payers,
      blockhash,
      sentAt: now,
      lastValidBlockHeight: n % 4 === 0 ? h - 5 : h + 150,
    });
    const sig = envelope.sig;
    envelopes.push(envelope);
    if (sig !== null && n % 97 === 0) {
      recentSigs.push(sig);
      if (recentSigs.length > 500) recentSigs.shift();
    }
  }
  return JSON.stringify({ envelopes });
}

type Window = {
  ingestLatencies: number[];
  readLatencies: number[];
  readsByRoute: Map<string, number[]>;
  acknowledged: number;
  ingestErrors: number;
  readErrors: number;
  mcpErrors: number;
  mcpCalls: number;
  notReady: number;
  errorSamples: string[];
  rss: number[];
  rssAnonymous: number[];
  rssFile: number[];
  /** The first server process alone (VmRSS), without its job children. */
  serverRss: number[];
};
const freshWindow = (): Window => ({
  ingestLatencies: [],
  readLatencies: [],
  readsByRoute: new Map(),
  acknowledged: 0,
  ingestErrors: 0,
  readErrors: 0,
  mcpErrors: 0,
  mcpCalls: 0,
  notReady: 0,
  errorSamples: [],
  rss: [],
  rssAnonymous: [],
  rssFile: [],
  serverRss: [],
});
/**
 * Set once the first serving tables exist: before that an analytical route's 503 `unavailable` is the documented
 * start-up state.
 */
let tablesBuilt = false;
let window = freshWindow();
const noteError = (text: string) => {
  if (window.errorSamples.length < 5) window.errorSamples.push(text.slice(0, 200));
};

let inFlight = 0;
let batchesSent = 0;
let running = true;
const started = performance.now();
const endAt = started + minutes * 60_000;

async function sendBatch() {
  inFlight++;
  const body = makeBatch();
  const key = keys[batchesSent % keys.length];
  const t0 = performance.now();
  try {
    const response = await fetch(`${url}/v1/ingest`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body,
    });
    const text = await response.text();
    window.ingestLatencies.push(performance.now() - t0);
    if (response.status === 202) window.acknowledged += batchSize;
    else {
      window.ingestErrors++;
      noteError(`ingest ${response.status} ${text}`);
    }
  } catch (error) {
    window.ingestErrors++;
    noteError(`ingest transport: ${(error as Error).message}`);
  } finally {
    inFlight--;
  }
}

const loadLoop = (async () => {
  while (running && performance.now() < endAt) {
    const due = Math.floor(((performance.now() - started) / 1000) * (rate / batchSize));
    while (batchesSent < due && inFlight < MAX_IN_FLIGHT) {
      batchesSent++;
      void sendBatch();
    }
    await Bun.sleep(5);
  }
})();

// --- reads: every route, ~10 per second; MCP tools when /mcp exists ---
/** Until the first sends are noted: a well-formed signature (64 zero bytes) of no attempt, which reads answer 404. */
const UNKNOWN_SIGNATURE = "1".repeat(64);
const READ_ROUTES = [
  () => ["/v1/status"],
  () => ["/v1/programs", readKey],
  (p: string) => [`/v1/baseline/${p}?window=1d`],
  (p: string) => [`/v1/top-issues/${p}?window=7d`],
  (p: string) => [`/v1/cu-headroom/${p}`],
  (p: string) => [`/v1/provider-report/${p}`],
  (p: string) => [`/v1/release-diff/${p}`],
  (p: string) => [`/v1/baseline/${p}?scope=account`, readKey],
  (p: string) => [`/v1/wallet/${p}/${payers[Math.floor(Math.random() * 50)]}?window=1d`],
  () => [`/v1/why/${recentSigs[Math.floor(Math.random() * recentSigs.length)] ?? UNKNOWN_SIGNATURE}`],
  () => [`/v1/diagnose-drop/${recentSigs[Math.floor(Math.random() * recentSigs.length)] ?? UNKNOWN_SIGNATURE}`],
] as ((p: string) => [string, string?])[];

/** MCP tool calls, in turn (the tools are the routes' twins; scope=account reads the read key's account). */
const MCP_CALLS: ((p: string) => [string, Record<string, unknown>])[] = [
  (p) => ["baseline", { program: p }],
  (p) => ["top_issues", { program: p, window: "7d" }],
  (p) => ["cu_headroom", { program: p }],
  (p) => ["provider_report", { program: p }],
  (p) => ["baseline", { program: p, scope: "account" }],
  () => ["status", {}],
  () => ["why", { sig: recentSigs[Math.floor(Math.random() * recentSigs.length)] ?? UNKNOWN_SIGNATURE }],
];

const mcpAvailable = await (async () => {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "txray-soak", version: "0" } },
    }),
  }).catch(() => null);
  if (!response || response.status === 404) return null;
  await response.text();
  return response.headers.get("mcp-session-id") ?? "";
})();

const readLoop = (async () => {
  let i = 0;
  while (running && performance.now() < endAt) {
    const [path, key] = READ_ROUTES[i % READ_ROUTES.length](PROGRAMS[i % PROGRAMS.length]);
    i++;
    const t0 = performance.now();
    try {
      const response = await fetch(`${url}${path}`, { headers: key ? { "x-api-key": key } : {} });
      const text = await response.text();
      const ms = performance.now() - t0;
      window.readLatencies.push(ms);
      // By route (its first two path segments, and the query's scope): which reads a slow minute's tail came from.
      const route = `${path.split("/").slice(0, 3).join("/")}${path.includes("scope=account") ? "?scope=account" : ""}`;
      const list = window.readsByRoute.get(route);
      if (list) list.push(ms);
      else window.readsByRoute.set(route, [ms]);
      if (path === "/v1/status" && response.status === 200 && JSON.parse(text).jobs?.tables?.ok) tablesBuilt = true;
      // 404: not built yet / no such attempt yet / pending, with the error shape; anything else but 200 is an error.
      if (!tablesBuilt && response.status === 503 && text.includes("not built yet")) window.notReady++;
      else if (!(response.status === 200 || (response.status === 404 && /"code":"(not_found|pending)"/.test(text)))) {
        window.readErrors++;
        noteError(`read ${path} ${response.status} ${text}`);
      }
    } catch (error) {
      window.readErrors++;
      noteError(`read transport ${path}: ${(error as Error).message}`);
    }
    if (mcpAvailable !== null && i % 5 === 0) {
      const [name, args] = MCP_CALLS[(i / 5) % MCP_CALLS.length](PROGRAMS[i % 3]);
      const response = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-api-key": readKey,
          ...(mcpAvailable ? { "mcp-session-id": mcpAvailable } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name, arguments: args } }),
      }).catch(() => null);
      const text = (await response?.text().catch(() => "")) ?? "";
      window.mcpCalls++;
      // A tool's error result is an error unless it is the documented start-up state or "no such attempt/program yet".
      const toolError =
        /"isError":true/.test(text) &&
        !(/not built yet/.test(text) && !tablesBuilt) &&
        !/"code":"(not_found|pending)"/.test(text);
      if (!response || response.status >= 400 || toolError || !text.includes('"result"')) {
        window.mcpErrors++;
        noteError(`mcp ${name} ${response?.status ?? "transport"} ${text}`);
      }
    }
    await Bun.sleep(100);
  }
})();

// --- per-minute reports ---
const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
};
// Resident memory in MB from /proc: the whole (VmRSS), and its anonymous part (heaps: JavaScript,
// DuckDB, SQLite) apart from file-backed pages (mapped spool segments), which the kernel can drop.
// Summed over each server and its child processes (the tables job's and compaction's: TABLES_PROCESS, COMPACT_PROCESS).
const residentMb = (): { total: number; anonymous: number; file: number } | null => {
  try {
    const sum = { total: 0, anonymous: 0, file: 0 };
    for (const server of servers) {
      for (const pid of processTree(server.process.pid)) {
        let status: string;
        try {
          status = readFileSync(`/proc/${pid}/status`, "utf8");
        } catch {
          if (pid === server.process.pid) throw new Error("server gone");
          continue; // a child that ended meanwhile
        }
        const field = (name: string) =>
          Math.round(Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
        sum.total += field("VmRSS");
        sum.anonymous += field("RssAnon");
        sum.file += field("RssFile");
      }
    }
    return sum;
  } catch {
    return null;
  }
};
const rssMb = () => residentMb()?.total ?? null;
// Resident memory every 2 s: a per-minute peak and median, not one sample that may or may not fall in a tables build.
const rssSampler = setInterval(() => {
  const resident = residentMb();
  if (resident === null) return;
  window.rss.push(resident.total);
  window.rssAnonymous.push(resident.anonymous);
  window.rssFile.push(resident.file);
  const server = servers[0] ? statusMb(servers[0].process.pid, "VmRSS") : null;
  if (server !== null) window.serverRss.push(server);
}, 2_000);
/** A field of /proc/<pid>/status in MB; null when the process is gone. */
function statusMb(pid: number, name: string): number | null {
  try {
    const kb = new RegExp(`${name}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}
/** Each minute's samples of the server process's resident memory, for the summary's medians of each five minutes. */
const serverRssByMinute: number[][] = [];
type Minute = Record<string, unknown> & { rssMB: number | null; spoolBacklogBytes: number | null; errors: number };
const reports: Minute[] = [];
let acknowledgedTotal = 0;
let lastJobs: Record<string, { lastRunAt: number; ok: boolean | null }> = {};
let logCursor = 0;

// The first server's own memory, apart from its job children: resident (VmRSS, RssAnon) from /proc,
// its main thread's JavaScript heap and its DuckDB instance from /metrics. Tells JavaScript growth from native.
async function serverMemory(): Promise<Record<string, number | null>> {
  const server = servers[0];
  const mb = (bytes: number | null) => (bytes === null ? null : Math.round(bytes / 1048576));
  let status = "";
  try {
    status = readFileSync(`/proc/${server.process.pid}/status`, "utf8");
  } catch {}
  const field = (name: string) => {
    const kb = new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  };
  const metrics = await fetch(`${url}/metrics`)
    .then((r) => (r.ok ? r.text() : ""))
    .catch(() => "");
  const metric = (name: string) => {
    const value = new RegExp(`^${name} (\\S+)$`, "m").exec(metrics)?.[1];
    return value === undefined ? null : Number(value);
  };
  return {
    rssMB: field("VmRSS"),
    anonymousMB: field("RssAnon"),
    heapUsedMB: mb(metric("nodejs_heap_size_used_bytes")),
    heapTotalMB: mb(metric("nodejs_heap_size_total_bytes")),
    externalMB: mb(metric("nodejs_external_memory_bytes")),
    duckdbMB: mb(metric("txray_duckdb_memory_bytes")),
  };
}

async function report(minute: number): Promise<void> {
  const w = window;
  window = freshWindow();
  serverRssByMinute.push(w.serverRss);
  const status = (await fetch(`${url}/v1/status`)
    .then((r) => r.json())
    .catch(() => null)) as any;
  const jobs = (status?.jobs ?? {}) as Record<
    string,
    { lastRunAt: number; ok: boolean | null; details: any; lastFinished?: { details: any } | null }
  >;
  // A resolver that is behind runs back to back: its latest finished run says where the time went.
  const resolveRun = jobs.resolve?.ok === null ? jobs.resolve.lastFinished?.details : jobs.resolve?.details;
  const ran: Record<string, string> = {};
  for (const [name, run] of Object.entries(jobs))
    if (lastJobs[name]?.lastRunAt !== run.lastRunAt)
      ran[name] = run.ok === false ? "failed" : run.ok === null ? "running" : "ok";
  lastJobs = jobs;
  if (jobs.tables?.ok) tablesBuilt = true;
  readFailedRuns();
  acknowledgedTotal += w.acknowledged;
  const newLogs = serverLog.slice(logCursor);
  logCursor = serverLog.length;
  const errorLogs = newLogs.filter((line) => /"level":"error"/.test(line));
  const entry: Minute = {
    minute,
    rssMB: rssMb(),
    rssPeakMB: w.rss.length ? Math.max(...w.rss) : null,
    rssMedianMB: percentile(w.rss, 50),
    rssAnonymousPeakMB: w.rssAnonymous.length ? Math.max(...w.rssAnonymous) : null,
    rssFilePeakMB: w.rssFile.length ? Math.max(...w.rssFile) : null,
    server: await serverMemory(),
    // The JavaScript heaps and DuckDB memory of the jobs hosted apart (the resolver's thread, the tables and compaction children).
    hostHeapMB: Object.fromEntries(
      Object.entries(jobs).flatMap(([name, run]) => {
        const details = run.ok === null ? run.lastFinished?.details : run.details;
        const mb = (bytes: unknown) => (typeof bytes === "number" ? Math.round(bytes / 1048576) : null);
        return typeof details?.hostHeapUsedBytes === "number"
          ? [[name, { heap: mb(details.hostHeapUsedBytes), duckdb: mb(details.hostDuckdbBytes) }]]
          : [];
      }),
    ),
    spoolBacklogBytes: status?.lake?.spoolBacklog ?? null,
    lakeEnvelopes: status?.lake?.envelopes ?? null,
    resolverPending: status?.resolver?.pendingAttempts ?? jobs.resolve?.details?.stillPending ?? null,
    awaitingIntake: status?.resolver?.awaitingIntake ?? null,
    resolverLagMs: status?.resolver?.lagMs ?? null,
    // The latest finished resolve run: its rounds, what it took in, and milliseconds per step (docs/operations.md).
    resolveRun: resolveRun
      ? { rounds: resolveRun.rounds, intake: resolveRun.intake?.attempts, stepsMs: resolveRun.stepsMs }
      : null,
    // The tables job's last finished refresh: what it took in, what it left for the next, its seconds.
    tables: jobs.tables?.details
      ? {
          attempts: jobs.tables.details.attempts,
          resolutions: jobs.tables.details.resolutions,
          deferredRows: jobs.tables.details.deferredRows,
          seconds: Math.round(jobs.tables.details.seconds * 10) / 10,
        }
      : null,
    ingest: {
      envelopesPerSecond: Math.round(w.acknowledged / 60),
      requests: w.ingestLatencies.length,
      p50: percentile(w.ingestLatencies, 50),
      p95: percentile(w.ingestLatencies, 95),
      p99: percentile(w.ingestLatencies, 99),
    },
    mcp: { calls: w.mcpCalls, errors: w.mcpErrors },
    reads: {
      requests: w.readLatencies.length,
      p50: percentile(w.readLatencies, 50),
      p95: percentile(w.readLatencies, 95),
      p99: percentile(w.readLatencies, 99),
    },
    // The three routes with the slowest p95 this minute.
    slowestReads: [...w.readsByRoute]
      .map(([route, list]) => ({ route, requests: list.length, p95: percentile(list, 95) }))
      .sort((a, b) => (b.p95 ?? 0) - (a.p95 ?? 0))
      .slice(0, 3),
    errors: w.ingestErrors + w.readErrors + w.mcpErrors + errorLogs.length,
    errorDetail: {
      ingest: w.ingestErrors,
      reads: w.readErrors,
      mcp: w.mcpErrors,
      serverErrorLogs: errorLogs.length,
      samples: w.errorSamples,
      serverLogSamples: errorLogs.slice(0, 3).map((line) => line.slice(0, 300)),
    },
    notReady: w.notReady,
    jobsRan: ran,
    diskBytesPerAttempt: status?.disk?.bytesPerAttempt ?? null,
    envelopesAcknowledged: acknowledgedTotal,
    disk: diskBytes(),
    failedJobRuns: Object.fromEntries(failedRuns),
  };
  reports.push(entry);
  console.log(JSON.stringify(entry));
}

console.error(
  `soak: ${minutes} min at ${rate} envelopes/s in batches of ${batchSize} against ${url}${mcpAvailable === null ? " (no /mcp: MCP tools skipped)" : ""}`,
);
for (let minute = 1; minute <= Math.ceil(minutes); minute++) {
  const at = started + minute * 60_000;
  await Bun.sleep(Math.max(0, Math.min(at, endAt) - performance.now()));
  await report(minute);
}
running = false;
clearInterval(rssSampler);
clearInterval(failedRunsReader);
await Promise.all([loadLoop, readLoop]);
while (inFlight > 0) await Bun.sleep(10);

// --- stop everything ---
// The ingest process first (it seals its spool), then the job runner.
const exits: (number | null)[] = [];
for (const server of servers) {
  server.process.kill("SIGTERM");
  const code = await Promise.race([server.process.exited, Bun.sleep(30_000).then(() => null)]);
  if (code === null) server.process.kill("SIGKILL");
  exits.push(code);
}
const exited = exits.every((code) => code === 0) ? 0 : (exits.find((code) => code !== 0) ?? null);
readFailedRuns();
controlReader.close();
chain.stop();
if (!values["keep-data"]) rmSync(dataDir, { recursive: true, force: true });
clearTimeout(hardStop);

// Warm-up: the first two minutes (a third of a shorter run). Growth compares the peak of the first
// minute after warm-up with the peak of the last minute (peaks include the tables build, the
// largest allocation), and the same for the medians.
const warmup = Math.min(2, Math.max(1, Math.floor(reports.length / 3)));
const afterWarmup = reports[Math.min(warmup, reports.length - 1)];
const last = reports[reports.length - 1];
const growth = (from: number | null | undefined, to: number | null | undefined) =>
  from && to ? Math.round(((to - from) / from) * 1000) / 10 : null;
function halves(minutesAfterWarmup: Minute[]) {
  if (minutesAfterWarmup.length < 2) return null;
  const middle = Math.floor(minutesAfterWarmup.length / 2);
  const describe = (part: Minute[]) => ({
    minutes: `${part[0].minute}-${part[part.length - 1].minute}`,
    peakMB: Math.max(...part.map((r) => (r.rssPeakMB as number | null) ?? 0)),
    medianMB: percentile(
      part.map((r) => (r.rssMedianMB as number | null) ?? 0),
      50,
    ),
  });
  const first = describe(minutesAfterWarmup.slice(0, middle));
  const second = describe(minutesAfterWarmup.slice(middle));
  return {
    first,
    second,
    peakGrowthPct: growth(first.peakMB, second.peakMB),
    medianGrowthPct: growth(first.medianMB, second.medianMB),
  };
}
const warm = afterWarmup?.rssPeakMB as number | null;
const end = last?.rssPeakMB as number | null;
const backlogs = reports.map((r) => r.spoolBacklogBytes ?? 0);
type Disk = ReturnType<typeof diskBytes>;
/** The slope of `points` ([minute, value]) by least squares, an hour; null with fewer than two. */
function slopePerHour(points: [number, number][]): number | null {
  if (points.length < 2) return null;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return (numerator / denominator) * 60;
}
/** Bytes an hour of `size` over the last 20 minutes (all of a shorter run after the first). */
function growthPerHour(size: (disk: Disk) => number): number | null {
  const points = reports.slice(-Math.min(20, Math.max(2, reports.length - 1)));
  const slope = slopePerHour(points.map((r) => [r.minute as number, size(r.disk as Disk)]));
  return slope === null ? null : Math.round(slope);
}
// After the resolver's 20-minute window of held sends has filled, with room to spare: the server's
// memory an hour from there on, fitted to the median of each minute's samples (docs/operations.md, "Memory").
const SETTLED_FROM_MINUTE = 40;
const serverRssSettled = serverRssByMinute
  .map((samples, i): [number, number | null] => [i + 1, percentile(samples, 50)])
  .filter((point): point is [number, number] => point[0] >= SETTLED_FROM_MINUTE && point[1] !== null);
const serverRssSlope = slopePerHour(serverRssSettled);
/** The median of the per-minute medians over `part`, in MB. */
const rssMedianOf = (part: Minute[]) =>
  percentile(
    part.map((r) => (r.rssMedianMB as number | null) ?? 0),
    50,
  );
const lastDisk = last?.disk as Disk | undefined;
const envelopesPerHour =
  reports.length >= 2
    ? (((last.envelopesAcknowledged as number) -
        (reports[reports.length - Math.min(21, reports.length)].envelopesAcknowledged as number)) /
        Math.min(20, reports.length - 1)) *
      60
    : null;
const dataDirPerHour = growthPerHour((d) => d.dataDir);
const summary = {
  minutes,
  targetRate: rate,
  achievedRate: Math.round(
    reports.reduce((sum, r) => sum + (r.ingest as any).envelopesPerSecond, 0) / Math.max(1, reports.length),
  ),
  rssMB: {
    peakAfterWarmup: warm,
    peakLastMinute: end,
    max: Math.max(...reports.map((r) => (r.rssPeakMB as number | null) ?? 0)),
    medianAfterWarmup: afterWarmup?.rssMedianMB ?? null,
    medianLastMinute: last?.rssMedianMB ?? null,
  },
  rssGrowthAfterWarmupPct: growth(warm, end),
  rssMedianGrowthAfterWarmupPct: growth(afterWarmup?.rssMedianMB as number | null, last?.rssMedianMB as number | null),
  // The minutes after warm-up in two halves: the highest peak and the middle median of each. Less
  // at the mercy of which jobs happened to coincide in two single minutes.
  rssHalves: halves(reports.slice(warmup)),
  spoolBacklogBytes: { max: Math.max(...backlogs), end: backlogs[backlogs.length - 1] ?? null },
  resolverPending: {
    afterWarmup: afterWarmup?.resolverPending ?? null,
    end: last?.resolverPending ?? null,
    max: Math.max(...reports.map((r) => (r.resolverPending as number | null) ?? 0)),
  },
  // How long the oldest waiting work had waited (docs/api.md): bounded when the resolver keeps up.
  resolverLagMs: {
    afterWarmup: afterWarmup?.resolverLagMs ?? null,
    end: last?.resolverLagMs ?? null,
    max: Math.max(...reports.map((r) => (r.resolverLagMs as number | null) ?? 0)),
  },
  errors: reports.reduce((sum, r) => sum + r.errors, 0),
  failedJobRuns: Object.fromEntries(failedRuns),
  failedJobRunSamples: failedRunSamples,
  jobRunsStoppedByShutdown: Object.fromEntries(stoppedRuns),
  // Which jobs ran at all (the retention job, which prunes the control database, runs at start and then hourly).
  jobsThatRan: [...new Set(reports.flatMap((r) => Object.keys(r.jobsRan as Record<string, string>)))].sort(),
  // The server process alone (its job children apart), the median of its samples (every 2 s) in each five minutes:
  // whether its memory levels off once the resolver's window of held sends has filled (docs/operations.md, "Memory").
  serverRssMedianMBEach5Min: Array.from({ length: Math.ceil(serverRssByMinute.length / 5) }, (_, i) =>
    percentile(serverRssByMinute.slice(i * 5, i * 5 + 5).flat(), 50),
  ),
  // null for a run shorter than 45 minutes: too few settled minutes to tell a slope from the collections' swings.
  serverRssMBPerHourFromMinute40:
    serverRssSettled.length >= 5 && serverRssSlope !== null ? Math.round(serverRssSlope * 10) / 10 : null,
  rssFirstVsLast5MinMedianMB:
    reports.length >= 10 ? { first: rssMedianOf(reports.slice(0, 5)), last: rssMedianOf(reports.slice(-5)) } : null,
  disk: {
    end: lastDisk ?? null,
    controlDbBytesPerHour: growthPerHour((d) => d.controlTotal),
    lakeBytesPerHour: growthPerHour((d) => d.lake),
    dataDirBytesPerHour: dataDirPerHour,
    envelopesPerHour: envelopesPerHour === null ? null : Math.round(envelopesPerHour),
    dataDirBytesPerEnvelope:
      dataDirPerHour !== null && envelopesPerHour ? Math.round((dataDirPerHour / envelopesPerHour) * 10) / 10 : null,
  },
  mcp:
    mcpAvailable === null
      ? "skipped: /mcp answers 404"
      : { calls: reports.reduce((sum, r) => sum + (r.mcp as { calls: number }).calls, 0) },
  rpcRequests: chain.counts().requests,
  serverExit: exited,
};
console.log(JSON.stringify(summary));
process.exit(0);
