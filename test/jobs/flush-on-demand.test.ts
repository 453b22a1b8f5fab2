// Flushing on demand (docs/lake.md): a job run as a separate process while a real server holds
// acknowledged envelopes in its active spool segment asks it to seal first, so everything acknowledged
// before the command started is in the lake when it returns. Real server and CLI processes.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { createAccountKey, listIngestNodes, openControlDb, registerIngestNode } from "../../src/control";
import { sealLiveSpools } from "../../src/jobs/cli-runs";
import { dataPaths } from "../../src/lake/paths";
import { silentLogger } from "../../src/shared/logger";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { type ServerProcess, startServerProcess } from "../helpers/process";

const roots: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.process.kill("SIGTERM");
    await server.process.exited;
  }
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A loopback URL nobody listens on: the chain is unreachable. */
async function closedPortUrl(path = ""): Promise<string> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  await probe.stop(true);
  return `http://127.0.0.1:${port}${path}`;
}

async function setup(extraEnv: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-ondemand-"));
  roots.push(dataDir);
  const control = openControlDb(dataPaths(dataDir).controlDb);
  const { key } = createAccountKey(control, "acme", "live", Date.now());
  control.close();
  // SPOOL_SEAL_MS of 10 minutes: the server's own timer never seals during the test.
  const env = { TXRAY_DATA_DIR: dataDir, SPOOL_SEAL_MS: "600000", SOLANA_RPC_URL: await closedPortUrl(), ...extraEnv };
  const server = await startServerProcess(env);
  servers.push(server);
  return { dataDir, key, env, server };
}

async function ingest(url: string, key: string, envelopes: ReturnType<typeof makeEnvelope>[]) {
  const response = await fetch(`${url}/v1/ingest`, {
    method: "POST",
    body: JSON.stringify({ apiKey: key, envelopes }),
  });
  expect(response.status).toBe(202);
}

async function cli(env: Record<string, string>, ...argv: string[]) {
  return await run(["src/bin/cli.ts", ...argv], env);
}

async function run(script: string[], env: Record<string, string>) {
  const child = spawn(["bun", "run", ...script], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { ...process.env, TXRAY_LOG_LEVEL: "error", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return {
    stdout,
    stderr,
    code,
    outcomes: stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  };
}

async function lakeSigs(dataDir: string): Promise<string[]> {
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir }), { logger: silentLogger });
  try {
    const rows = await ctx.duck.all<{ sig: string }>(
      `SELECT sig FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)`,
    );
    return rows.map((row) => row.sig);
  } finally {
    ctx.close();
  }
}

test("jobs run flush right after a 202: the live server seals and every acknowledged row is in the lake", async () => {
  const { dataDir, key, env, server } = await setup();
  const envelopes = Array.from({ length: 120 }, () => makeEnvelope());
  await ingest(server.url, key, envelopes.slice(0, 60));
  await ingest(server.url, key, envelopes.slice(60));
  const result = await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: env.SOLANA_RPC_URL }, "jobs", "run", "flush");
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.outcomes).toEqual([
    expect.objectContaining({ job: "flush", ok: true, details: { segments: 1, rows: 120 } }),
  ]);
  expect((await lakeSigs(dataDir)).sort()).toEqual(envelopes.map((e) => e.sig!).sort());

  // The server keeps serving; its next batch goes to a new segment, which a second
  // `txray jobs run flush` has it seal and flushes the same way.
  const more = [makeEnvelope()];
  await ingest(server.url, key, more);
  const again = await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: env.SOLANA_RPC_URL }, "jobs", "run", "flush");
  expect(again.code).toBe(0);
  expect(again.outcomes[0].details).toEqual({ segments: 1, rows: 1 });
  expect(await lakeSigs(dataDir)).toContain(more[0].sig!);
}, 60_000);

test("jobs run all right after a 202: GET /v1/baseline/<program> answers 200; a tables run flushes first", async () => {
  const { dataDir, key, env, server } = await setup();
  const program = randomAddress();
  await ingest(
    server.url,
    key,
    Array.from({ length: 30 }, () => makeEnvelope({ program })),
  );
  const all = await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: env.SOLANA_RPC_URL }, "jobs", "run", "all");
  expect(all.outcomes.map((o) => o.job)).toEqual(["flush", "resolve", "deploys", "tables", "compact", "retention"]);
  expect(all.outcomes[0]).toMatchObject({ ok: true, details: { rows: 30 } });
  expect(all.outcomes.find((o) => o.job === "tables")).toMatchObject({ ok: true });
  const baseline = await fetch(`${server.url}/v1/baseline/${program}`);
  expect(baseline.status).toBe(200);

  // `jobs run tables` alone: the flush runs first, so the new program is in the build.
  const other = randomAddress();
  await ingest(server.url, key, [makeEnvelope({ program: other })]);
  const tables = await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: env.SOLANA_RPC_URL }, "jobs", "run", "tables");
  expect(tables.outcomes.map((o) => [o.job, o.ok])).toEqual([
    ["flush", true],
    ["tables", true],
  ]);
  // A server that already serves a version opens the new one in the background (serving/reader.ts)
  // and answers from the previous one meanwhile: ask until it has switched.
  let status = 0;
  for (let tries = 0; tries < 50 && status !== 200; tries++) {
    status = (await fetch(`${server.url}/v1/baseline/${other}`)).status;
    if (status !== 200) await Bun.sleep(100);
  }
  expect(status).toBe(200);
}, 90_000);

test("a job that reaches the chain warns when the live server uses another SOLANA_RPC_URL, naming origins only", async () => {
  const serverRpc = await closedPortUrl("/v2/secret-key-1234");
  const { dataDir } = await setup({ SOLANA_RPC_URL: serverRpc });
  const ownRpc = await closedPortUrl();
  const result = await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: ownRpc }, "jobs", "run", "resolve");
  expect(result.stderr).toContain("resolves against another SOLANA_RPC_URL");
  expect(result.stderr).toContain(new URL(serverRpc).origin);
  expect(result.stderr).toContain(new URL(ownRpc).origin);
  expect(result.stderr).not.toContain("secret-key-1234");
  // The same URL: no warning. A flush never warns (it does not reach the chain).
  expect(
    (await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: serverRpc }, "jobs", "run", "resolve")).stderr,
  ).not.toContain("SOLANA_RPC_URL");
  expect((await cli({ TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: ownRpc }, "jobs", "run", "flush")).stderr).toBe("");
}, 60_000);

test("a live node that does not answer is named after a bounded wait; a stopped server's row is gone", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-ondemand-"));
  roots.push(dataDir);
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir }), { logger: silentLogger });
  try {
    // A node on another host that heartbeats but never answers (stuck event loop, say).
    registerIngestNode(
      ctx.control,
      { nodeId: "node9", owner: "elsewhere:4242", rpcUrl: "http://127.0.0.1:1" },
      Date.now(),
    );
    const outcome = await sealLiveSpools(ctx, 300);
    expect(outcome.sealed).toEqual([]);
    expect(outcome.unanswered).toEqual([
      { nodeId: "node9", owner: "elsewhere:4242", reason: "did not answer a seal request within 0 s" },
    ]);
  } finally {
    ctx.close();
  }
  const { server, env } = await setup();
  const nodes = () => {
    const db = openControlDb(dataPaths(env.TXRAY_DATA_DIR).controlDb);
    try {
      return listIngestNodes(db).map((node) => node.nodeId);
    } finally {
      db.close();
    }
  };
  expect(nodes()).toEqual(["node1"]);
  server.process.kill("SIGTERM");
  await server.process.exited;
  expect(nodes()).toEqual([]);
}, 60_000);

test("in one process (a server and a job together): the job's seal request is answered by its own server", async () => {
  const { testServer } = await import("../helpers/server");
  const { run } = await import("../../src/cli/commands");
  const t = await testServer({ SPOOL_SEAL_MS: "600000" });
  try {
    const envelopes = Array.from({ length: 5 }, () => makeEnvelope());
    expect((await t.ingest({ apiKey: t.key("acme"), envelopes })).status).toBe(202);
    let stdout = "";
    let stderr = "";
    const code = await run(["jobs", "run", "flush"], {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
      env: { TXRAY_DATA_DIR: t.ctx.config.dataDir, TXRAY_LOG_LEVEL: "silent" },
    });
    expect([code, stderr]).toEqual([0, ""]);
    expect(JSON.parse(stdout).details).toEqual({ segments: 1, rows: 5 });
  } finally {
    await t.stop();
  }
});
