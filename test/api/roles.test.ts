// TXRAY_ROLES: an ingest node answers ingest and status only; a read node answers reads and status
// and picks up a serving version built by another process, without a restart; one data directory.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { parseRoles } from "../../src/config/roles";
import { type Context, createContext } from "../../src/context";
import { createAccountKey } from "../../src/control";
import { jobByName } from "../../src/jobs/registry";
import { runJob } from "../../src/jobs/run";
import { type RunningServer, startServer } from "../../src/server";
import { silentLogger } from "../../src/shared/logger";
import { makeEnvelope, PROGRAMS } from "../helpers/envelopes";

const dataDir = mkdtempSync(join(tmpdir(), "txray-roles-"));
const nodes: { ctx: Context; server: RunningServer }[] = [];

async function node(roles: string, nodeId: string) {
  const config = loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_ROLES: roles,
    TXRAY_NODE_ID: nodeId,
    TXRAY_LOG_LEVEL: "silent",
    INGEST_WORKERS: "0",
    SPOOL_SEAL_MS: "50",
  });
  const ctx = await createContext(config, { logger: silentLogger });
  const server = await startServer(ctx, { port: 0, hostname: "127.0.0.1" });
  nodes.push({ ctx, server });
  return { ctx, server };
}

let ingest: Awaited<ReturnType<typeof node>>;
let read: Awaited<ReturnType<typeof node>>;
let jobs: Context;
let key: string;

beforeAll(async () => {
  ingest = await node("ingest", "ing1");
  read = await node("read", "read1");
  jobs = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir, TXRAY_LOG_LEVEL: "silent" }), {
    logger: silentLogger,
  });
  key = createAccountKey(jobs.control, "acme", "live", Date.now()).key;
});
afterAll(async () => {
  for (const { ctx, server } of nodes) {
    await server.stop();
    ctx.close();
  }
  jobs?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (server: RunningServer, path: string, init?: RequestInit) =>
  fetch(server.url + path, init).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const post = (server: RunningServer, body: unknown) =>
  call(server, "/v1/ingest", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("parseRoles keeps a fixed order and answers allows()", () => {
  const roles = parseRoles("jobs,ingest");
  expect(roles.list).toEqual(["ingest", "jobs"]);
  expect(roles.allows("read")).toBe(false);
  expect(parseRoles("ingest,read,jobs").list).toEqual(["ingest", "read", "jobs"]);
});

test("an ingest node takes envelopes and answers status; read routes are not there", async () => {
  expect((await post(ingest.server, { apiKey: key, envelopes: [makeEnvelope(), makeEnvelope()] })).status).toBe(202);
  const status = await call(ingest.server, "/v1/status");
  expect(status.status).toBe(200);
  expect(typeof status.body.lake.spoolBacklog).toBe("number");
  const why = await call(ingest.server, `/v1/why/${makeEnvelope().sig}`);
  expect(why.status).toBe(404);
  expect(why.body.error).toEqual({ code: "not_found", message: "no such route on this node (TXRAY_ROLES=ingest)" });
  expect((await call(ingest.server, `/v1/baseline/${PROGRAMS.jupiter}`)).status).toBe(404);
  expect(ingest.server.spool).not.toBeNull();
});

test("a read node refuses ingest and has no spool", async () => {
  const refused = await post(read.server, { apiKey: key, envelopes: [makeEnvelope()] });
  expect(refused.status).toBe(404);
  expect(refused.body.error.message).toContain("TXRAY_ROLES=read");
  expect(read.server.spool).toBeNull();
  expect((await call(read.server, "/v1/status")).body.lake.spoolBacklog).toBeNull();
});

test("a read node answers from tables another process builds, without a restart", async () => {
  const before = await call(read.server, `/v1/baseline/${PROGRAMS.jupiter}`);
  expect(before.status).not.toBe(200); // nothing built yet
  await ingest.server.spool!.seal();
  for (const name of ["flush", "tables"]) expect((await runJob(jobs, jobByName(name)!)).ok).toBe(true);
  let after = await call(read.server, `/v1/baseline/${PROGRAMS.jupiter}`);
  for (let i = 0; i < 40 && after.status !== 200; i++) {
    await Bun.sleep(100); // the reader checks the serving pointer every 250 ms
    after = await call(read.server, `/v1/baseline/${PROGRAMS.jupiter}`);
  }
  expect(after.status).toBe(200);
  expect(after.body.program).toBe(PROGRAMS.jupiter);
  const status = await call(read.server, "/v1/status");
  expect(status.body.lake.envelopes).toBe(2);
});
