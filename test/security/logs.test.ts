// No key, signing secret, RPC credential or payer in any log line: a full run at debug level — the
// server with its scheduler running every job, ingest (key in the header and in the body, a
// read-only key, a revoked key, hostile bodies), reads with keys, the CLI creating, listing and
// revoking keys and running every job — with the chain endpoint failing part of the time so error
// paths log too. Every line of every log is then searched for the secrets.

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { makeEnvelope, makePreflightEnvelope, randomAddress, randomSignature } from "../helpers/envelopes";
import { type ServerProcess, startServerProcess } from "../helpers/process";
import { recordedTransaction } from "../helpers/recorded-rpc";

const ROOT = new URL("../..", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "txray-logs-"));
const SLACK_SECRET = `slack-signing-secret-${randomAddress()}`;
const RPC_CREDENTIAL = `rpc-credential-${randomAddress()}`;
const landed = recordedTransaction("18_");
let server: ServerProcess | null = null;
let rpcCalls = 0;

/** The recorded chain, behind a URL carrying a credential (as hosted RPC URLs do), failing every third call. */
const rpc = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    rpcCalls++;
    if (rpcCalls % 3 === 0) return new Response(`upstream error for ${request.url}`, { status: 502 });
    const body = (await request.json()) as any;
    const answer = (call: any) => {
      if (call.method === "getTransaction")
        return { jsonrpc: "2.0", id: call.id, result: call.params?.[0] === landed.sig ? landed.result : null };
      if (call.method === "getSignatureStatuses") {
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: {
            context: { slot: 1 },
            value: (call.params?.[0] ?? []).map((sig: string) =>
              sig === landed.sig
                ? {
                    slot: landed.result.slot,
                    confirmations: null,
                    err: landed.result.meta?.err ?? null,
                    confirmationStatus: "finalized",
                  }
                : null,
            ),
          },
        };
      }
      if (call.method === "getBlockHeight") return { jsonrpc: "2.0", id: call.id, result: 300_000_000 };
      if (call.method === "getAccountInfo")
        return { jsonrpc: "2.0", id: call.id, result: { context: { slot: 1 }, value: null } };
      return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } };
    };
    return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
  },
});

const env = {
  TXRAY_DATA_DIR: dataDir,
  TXRAY_SNAPSHOTS_DIR: join(dataDir, "snapshots"),
  TXRAY_LOG_LEVEL: "debug",
  SOLANA_RPC_URL: `http://127.0.0.1:${rpc.port}/?api-key=${RPC_CREDENTIAL}`,
  SLACK_SIGNING_SECRET: SLACK_SECRET,
  XDG_CONFIG_HOME: join(dataDir, "home"),
  ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
};

afterAll(() => {
  server?.process.kill("SIGKILL");
  rpc.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(["bun", "run", "src/bin/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

test("a full run logs no key, signing secret, RPC credential or payer", async () => {
  const logs: string[] = [];
  const created = await cli(["keys", "create", "--account", "logs-a", "--json"]);
  const readOnly = await cli(["keys", "create", "--account", "logs-a", "--read-only", "--json", "--no-save"]);
  const doomed = await cli(["keys", "create", "--account", "logs-b", "--json", "--no-save"]);
  // The key is printed once on stdout by design; everything else the CLI says is a log.
  logs.push(created.stderr, readOnly.stderr, doomed.stderr);
  const liveKey = JSON.parse(created.stdout).key as string;
  const readKey = JSON.parse(readOnly.stdout).key as string;
  const revokedKey = JSON.parse(doomed.stdout).key as string;
  const unknownKey = `txr_live_${"9".repeat(32)}`;

  server = await startServerProcess({
    ...env,
    TXRAY_SCHEDULER: "on",
    FLUSH_INTERVAL_MS: "100",
    RESOLVE_INTERVAL_MS: "200",
    DEPLOYS_INTERVAL_MS: "300",
    TABLES_INTERVAL_MS: "500",
    COMPACT_INTERVAL_MS: "400",
  });
  const url = server.url;
  const payers = [randomAddress(), randomAddress(), randomAddress()];
  const program = "11111111111111111111111111111111";
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/ingest`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  const envelopes = [
    makeEnvelope({ sig: landed.sig, program, payer: payers[0], lastValidBlockHeight: 300_000_010, sentAt: Date.now() }),
    makeEnvelope({ program, payer: payers[1], lastValidBlockHeight: 299_999_000, sentAt: Date.now() }),
    makePreflightEnvelope({ program, payer: payers[2], sentAt: Date.now() }),
  ];
  expect((await post(JSON.stringify({ envelopes }), { "x-api-key": liveKey })).status).toBe(202);
  expect((await post(JSON.stringify({ apiKey: liveKey, envelopes }))).status).toBe(202);
  expect((await post(JSON.stringify({ apiKey: readKey, envelopes }))).status).toBe(403);
  expect((await post(JSON.stringify({ apiKey: unknownKey, envelopes }))).status).toBe(401);
  expect((await post(JSON.stringify({ apiKey: liveKey, envelopes: [{ ...envelopes[0], payer: 42 }] }))).status).toBe(
    400,
  );
  expect((await post(`{"apiKey":"${liveKey}","envelopes":[{"payer":"${payers[0]}"`)).status).toBe(400);
  expect((await post(JSON.stringify({ apiKey: liveKey, envelopes }), { "x-api-key": readKey })).status).toBeOneOf([
    202, 400, 403,
  ]);

  // Keys and a revoked key on the read routes; why asks the (flaky) chain about signatures.
  for (const key of [liveKey, readKey, revokedKey]) {
    await fetch(`${url}/v1/programs`, { headers: { "x-api-key": key } });
    await fetch(`${url}/v1/baseline/${program}?scope=account`, { headers: { "x-api-key": key } });
    await fetch(`${url}/v1/wallet/${program}/${payers[0]}?scope=account`, { headers: { "x-api-key": key } });
  }
  for (let i = 0; i < 4; i++) await fetch(`${url}/v1/why/${i === 0 ? landed.sig : randomSignature()}`);

  // Let the scheduler run every job at least once (flush, resolve, deploys, tables, compact).
  const deadline = Date.now() + 30_000;
  let jobs: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    jobs = ((await (await fetch(`${url}/v1/status`)).json()) as { jobs: Record<string, unknown> }).jobs;
    if (["flush", "resolve", "deploys", "tables", "compact"].every((name) => name in jobs)) break;
    await Bun.sleep(200);
  }
  expect(Object.keys(jobs).sort()).toEqual(
    expect.arrayContaining(["compact", "deploys", "flush", "resolve", "tables"]),
  );

  // Alerts: a signed webhook and a Slack URL (itself a credential), a failing test send, the CLI's views and a run.
  const hook = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("nope", { status: 500 }) });
  const WEBHOOK_SECRET = `whsec_logs_${randomAddress()}`;
  const SLACK_TOKEN = `slacktoken${randomAddress()}`;
  const alertIds: string[] = [];
  for (const destination of [
    { type: "webhook", url: `http://127.0.0.1:${hook.port}/hook`, secret: WEBHOOK_SECRET },
    { type: "slack", url: `http://127.0.0.1:${hook.port}/services/T0/B0/${SLACK_TOKEN}` },
  ]) {
    const response = await fetch(`${url}/v1/alerts`, {
      method: "POST",
      headers: { "x-api-key": liveKey },
      body: JSON.stringify({ program, rule: "landing_rate", params: { threshold: 1, minAttempts: 1 }, destination }),
    });
    expect(response.status).toBe(201);
    alertIds.push(((await response.json()) as { id: string }).id);
  }
  for (const id of alertIds)
    expect(
      (await fetch(`${url}/v1/alerts/${id}/test`, { method: "POST", headers: { "x-api-key": liveKey } })).status,
    ).toBe(200);
  // What the alerts commands print (the rules, the delivery log, a test's result) is for people too: no secret either.
  for (const args of [
    ["alerts", "list"],
    ["alerts", "log"],
    ["alerts", "test", alertIds[0]],
    ["jobs", "run", "alerts"],
  ]) {
    const result = await cli(args);
    logs.push(result.stderr, result.stdout);
  }
  hook.stop(true);
  expect(logs.join("\n")).toContain("HTTP 500: nope");

  const keyId = (await cli(["keys", "list"])).stdout
    .split("\n")
    .find((line) => line.includes("logs-b"))!
    .split("\t")[0];
  logs.push((await cli(["keys", "revoke", keyId])).stderr);
  const jobsRun = await cli(["jobs", "run", "all"]);
  logs.push(jobsRun.stdout, jobsRun.stderr, (await cli(["keys", "list"])).stdout);
  expect((await post(JSON.stringify({ apiKey: liveKey, envelopes }))).status).toBe(202);
  await Bun.sleep(300);
  server.process.kill("SIGTERM");
  await server.process.exited;
  logs.push(server.stderr());

  const text = logs.join("\n");
  // The run did log (so the search below means something): start-up, jobs, the chain failing.
  expect(text).toContain("txray listening");
  expect(text).toContain('"job":"flush"');
  expect(rpcCalls).toBeGreaterThan(2);
  const secrets = {
    liveKey,
    readKey,
    revokedKey,
    unknownKey,
    SLACK_SECRET,
    RPC_CREDENTIAL,
    WEBHOOK_SECRET,
    SLACK_TOKEN,
    ...Object.fromEntries(payers.map((p, i) => [`payer${i}`, p])),
  };
  const leaks = Object.entries(secrets)
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name);
  expect(leaks).toEqual([]);
  expect(text).not.toMatch(/txr_(live|read|ingest)_[1-9A-HJ-NP-Za-km-z]{32}/);
}, 90_000);
