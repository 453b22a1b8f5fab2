// Graceful shutdown (SIGTERM) of a real server process: requests in flight finish (a batch gets its
// 202 once durable, and is in the lake), a request arriving while it drains gets 503 with
// Retry-After in the error shape (never a 202 that is then lost), the process exits 0 by itself;
// and a job runner stops its job at a safe point.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { createAccountKey, lastJobRuns, openControlDb } from "../../src/control";
import { openDuck } from "../../src/lake/duckdb";
import { flushSpool } from "../../src/lake/flush-spool";
import { dataPaths } from "../../src/lake/paths";
import { silentLogger } from "../../src/shared/logger";
import { makeEnvelope } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";
import { startServerProcess } from "../helpers/process";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDirWithKey() {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-term-"));
  dirs.push(dataDir);
  const control = openControlDb(dataPaths(dataDir).controlDb);
  const { key } = createAccountKey(control, "acme", "live", Date.now());
  control.close();
  return { dataDir, key };
}

/** Waits until the server process has written `text` to its log (or a generous deadline passes). */
async function logged(server: { stderr(): string }, text: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!server.stderr().includes(text) && performance.now() < deadline) await Bun.sleep(5);
}

async function lakeSigs(dataDir: string) {
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir }), { logger: silentLogger });
  await flushSpool(ctx);
  const rows = await ctx.duck
    .all<{ sig: string }>(
      `SELECT sig FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)`,
    )
    .catch(() => []);
  ctx.close();
  const counts = new Map<string, number>();
  for (const { sig } of rows) counts.set(sig, (counts.get(sig) ?? 0) + 1);
  return counts;
}

test("SIGTERM: the request in flight finishes with 202 and is kept; one arriving while draining gets 503 + Retry-After; exit 0", async () => {
  const { dataDir, key } = dataDirWithKey();
  const server = await startServerProcess({ TXRAY_DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: "20000" });
  // A batch whose body is still arriving when SIGTERM comes.
  const slowEnvelopes = Array.from({ length: 5 }, () => makeEnvelope());
  const text = JSON.stringify({ apiKey: key, envelopes: slowEnvelopes });
  let push!: (chunk: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(new TextEncoder().encode(chunk)));
    },
  });
  const slow = fetch(`${server.url}/v1/ingest`, { method: "POST", body, duplex: "half" } as RequestInit);
  push(text.slice(0, 100));
  // The request has reached the server (its body is half read): nothing outside the server tells when.
  await Bun.sleep(300);
  server.process.kill("SIGTERM");
  // The server logs this just before it starts draining, in the same turn of its event loop.
  await logged(server, '"message":"stopping"');

  const late = Array.from({ length: 5 }, () => makeEnvelope());
  const during = await fetch(`${server.url}/v1/ingest`, {
    method: "POST",
    body: JSON.stringify({ apiKey: key, envelopes: late }),
  });
  expect(during.status).toBe(503);
  expect(during.headers.get("retry-after")).toBe("1");
  expect(((await during.json()) as any).error.code).toBe("unavailable");

  push(text.slice(100));
  push(null);
  const finished = await slow;
  expect(finished.status).toBe(202);
  expect(await finished.json()).toEqual({ accepted: 5 });
  expect(await server.process.exited).toBe(0);
  expect(server.stderr()).toContain('"message":"stopped"');

  const lake = await lakeSigs(dataDir);
  for (const e of slowEnvelopes) expect(lake.get(e.sig!)).toBe(1);
  for (const e of late) expect(lake.has(e.sig!)).toBe(false);
}, 60_000);

test("SIGTERM under concurrent ingest: every 202'd batch is in the lake exactly once, the rest got 503 or no connection", async () => {
  const { dataDir, key } = dataDirWithKey();
  const server = await startServerProcess({
    TXRAY_DATA_DIR: dataDir,
    INGEST_BURST: "100000000",
    INGEST_RATE_PER_SECOND: "100000000",
  });
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  let stop = false;
  let acknowledgedEnough!: () => void;
  const enoughAcknowledged = new Promise<void>((resolve) => (acknowledgedEnough = resolve));
  const client = async () => {
    while (!stop) {
      const envelopes = Array.from({ length: 20 }, () => makeEnvelope());
      try {
        const response = await fetch(`${server.url}/v1/ingest`, {
          method: "POST",
          body: JSON.stringify({ apiKey: key, envelopes }),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 202) {
          acknowledged.push(...envelopes.map((e) => e.sig!));
          if (acknowledged.length >= 400) acknowledgedEnough();
        } else {
          expect(response.status).toBe(503);
          expect(response.headers.get("retry-after")).toBe("1");
        }
      } catch {
        return; // the listener is closed: nothing was accepted
      }
    }
  };
  const clients = Array.from({ length: 8 }, client);
  await enoughAcknowledged; // ingest is well under way: SIGTERM comes among requests in flight
  server.process.kill("SIGTERM");
  const code = await server.process.exited;
  stop = true;
  await Promise.all(clients);
  expect(code).toBe(0);
  expect(acknowledged.length).toBeGreaterThan(100);
  expect([...statuses.keys()].every((status) => status === 202 || status === 503)).toBe(true);
  const lake = await lakeSigs(dataDir);
  expect(acknowledged.filter((sig) => lake.get(sig) !== 1)).toEqual([]);
  expect([...lake.values()].filter((n) => n > 1)).toEqual([]);
}, 60_000);

test("SIGTERM to a job runner: the running job stops at a safe point, records it, and the next run finishes the work", async () => {
  const { dataDir, key } = dataDirWithKey();
  const rpc = await startFakeRpc();
  try {
    // Attempts whose blockhash expired a block before the chain's height (the fake's 1,000,000): `txray jobs run resolve`
    // looks them up, waits 2 s for the second look-up (where SIGTERM comes), then drops them. (Long expired, one look-up decides.)
    const server = await startServerProcess({ TXRAY_DATA_DIR: dataDir });
    const envelopes = Array.from({ length: 30 }, () => makeEnvelope({ lastValidBlockHeight: 999_999 }));
    expect(
      (await fetch(`${server.url}/v1/ingest`, { method: "POST", body: JSON.stringify({ apiKey: key, envelopes }) }))
        .status,
    ).toBe(202);
    server.process.kill("SIGTERM");
    expect(await server.process.exited).toBe(0);

    const env = { ...process.env, TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: rpc.url, TXRAY_LOG_LEVEL: "silent" };
    const cwd = new URL("../..", import.meta.url).pathname;
    expect(
      await spawn(["bun", "run", "src/bin/cli.ts", "jobs", "run", "flush"], {
        cwd,
        env,
        stdout: "ignore",
        stderr: "ignore",
      }).exited,
    ).toBe(0);
    const runner = spawn(["bun", "run", "src/bin/cli.ts", "jobs", "run", "resolve"], {
      cwd,
      env,
      stdout: "pipe",
      stderr: "ignore",
    });
    const deadline = Date.now() + 20_000;
    while (!rpc.calls.includes("getSignatureStatuses") && Date.now() < deadline) await Bun.sleep(20);
    runner.kill("SIGTERM");
    expect(await runner.exited).toBe(1);
    const outcome = JSON.parse(await new Response(runner.stdout).text());
    expect(outcome).toMatchObject({ job: "resolve", ok: false, stopped: true });

    const control = openControlDb(dataPaths(dataDir).controlDb);
    expect(lastJobRuns(control).resolve.error).toContain("stopped by shutdown");
    // Nothing half recorded: no resolution batch, no resolution row.
    expect(control.query<{ n: number }, []>("SELECT count(*) AS n FROM resolution_batches").get()!.n).toBe(0);
    const resolutions = dataPaths(dataDir).dataset("resolutions");
    expect(
      existsSync(resolutions)
        ? readdirSync(resolutions, { recursive: true }).filter((name) => String(name).endsWith(".parquet"))
        : [],
    ).toEqual([]);

    expect(
      await spawn(["bun", "run", "src/bin/cli.ts", "jobs", "run", "resolve"], {
        cwd,
        env,
        stdout: "ignore",
        stderr: "ignore",
      }).exited,
    ).toBe(0);
    const duck = await openDuck();
    const rows = await duck.all<{ outcome: string; n: number }>(
      `SELECT outcome, count(*)::INTEGER AS n FROM read_parquet('${dataPaths(dataDir).datasetGlob("resolutions")}') GROUP BY outcome`,
    );
    duck.close();
    expect(rows).toEqual([{ outcome: "dropped", n: 30 }]);
    control.close();
  } finally {
    await rpc.stop();
  }
}, 60_000);
