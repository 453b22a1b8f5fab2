// Keys and limits as an attacker would probe them: a read-only key stores nothing through ingest, a
// revoked key stops working within the documented 2 s (at once on the read routes), keys are kept
// only as hashes, the CLI's config file is private (0600 in a 0700 directory) even when a file was
// there before, and the public per-IP limit covers every read route with one budget.

import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/commands";
import { createAccountKey, listKeys } from "../../src/control";
import { type RunningServer, startServer } from "../../src/server";
import { testContext } from "../helpers/context";
import { makeEnvelope, randomAddress, randomSignature } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await t?.stop();
  t = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const cli = async (argv: string[], env: Record<string, string>) => {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env });
  return { code, stdout, stderr };
};

describe("read-only keys", () => {
  for (const workers of ["0", "1"]) {
    test(`cannot ingest, in the header or the body, and nothing reaches the spool (INGEST_WORKERS=${workers})`, async () => {
      t = await testServer({ INGEST_WORKERS: workers });
      const readKey = t.key("reader", "read");
      const header = await t.ingest({ envelopes: [makeEnvelope()] }, { "x-api-key": readKey });
      const body = await t.ingest({ apiKey: readKey, envelopes: [makeEnvelope(), makeEnvelope()] });
      for (const answer of [header, body]) {
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe("forbidden");
      }
      expect(t.server.spool!.backlogBytes()).toBe(0);
      // The same account's read key still reads.
      expect((await t.get("/v1/programs", { "x-api-key": readKey })).status).toBe(200);
    });
  }
});

describe("revoked keys", () => {
  test("ingest refuses a revoked key once the 2 s principal cache has passed; reads refuse it at once", async () => {
    let now = 1_763_700_000_000;
    const ctx = await testContext({ INGEST_WORKERS: "0" });
    (ctx as { clock: () => number }).clock = () => now;
    const server: RunningServer = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
    cleanups.push(async () => {
      await server.stop();
      ctx.dispose();
    });
    const { key, record } = createAccountKey(ctx.control, "revokee", "live", now);
    const ingest = async () =>
      (
        await fetch(`${server.url}/v1/ingest`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ envelopes: [makeEnvelope()] }),
        })
      ).status;
    const read = async () => (await fetch(`${server.url}/v1/programs`, { headers: { "x-api-key": key } })).status;
    expect(await ingest()).toBe(202);
    expect(await read()).toBe(200);

    const env = { TXRAY_DATA_DIR: ctx.config.dataDir, TXRAY_LOG_LEVEL: "silent" };
    expect((await cli(["keys", "revoke", record.id], env)).code).toBe(0);
    expect(await read()).toBe(401);
    now += 2001; // the documented bound (docs/api.md: effective within 2 s)
    expect(await ingest()).toBe(401);
    expect(listKeys(ctx.control).find((k) => k.id === record.id)?.revokedAt).toEqual(expect.any(Number));
  });

  test("with ingest worker threads (their own caches, real clock) a revoked key is refused after 2 s", async () => {
    t = await testServer({ INGEST_WORKERS: "1" });
    const { key, record } = createAccountKey(t.ctx.control, "revokee", "live", Date.now());
    expect((await t.ingest({ envelopes: [makeEnvelope()] }, { "x-api-key": key })).status).toBe(202);
    expect((await cli(["keys", "revoke", record.id], { TXRAY_DATA_DIR: t.ctx.config.dataDir })).code).toBe(0);
    await Bun.sleep(2100);
    const after = await t.ingest({ envelopes: [makeEnvelope()] }, { "x-api-key": key });
    expect([after.status, after.body.error.code]).toEqual([401, "unauthorized"]);
  });
});

test("keys are stored only as SHA-256 hashes: the plaintext is nowhere in the data directory", async () => {
  t = await testServer();
  const keys = [t.key("a"), t.key("a", "read"), t.key("b")];
  for (const key of keys)
    expect((await t.ingest({ apiKey: key, envelopes: [makeEnvelope()] })).status).toBeOneOf([202, 403]);
  await t.server.spool!.seal();
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      entry.isDirectory() ? walk(join(dir, entry.name)) : files.push(join(dir, entry.name));
  };
  walk(t.ctx.config.dataDir);
  expect(files.some((file) => file.endsWith("control.sqlite"))).toBe(true);
  for (const file of files) {
    const bytes = readFileSync(file).toString("latin1");
    for (const key of keys) expect(bytes.includes(key)).toBe(false);
  }
});

test("the CLI's config file is 0600 in a 0700 directory, even when a readable one was there before", async () => {
  const home = mkdtempSync(join(tmpdir(), "txray-home-"));
  const dataDir = mkdtempSync(join(tmpdir(), "txray-data-"));
  cleanups.push(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = { XDG_CONFIG_HOME: home, TXRAY_DATA_DIR: dataDir };
  expect((await cli(["keys", "create", "--account", "first"], env)).code).toBe(0);
  const file = join(home, "txray", "config.json");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(home, "txray")).mode & 0o777).toBe(0o700);

  chmodSync(file, 0o644);
  writeFileSync(file, JSON.stringify({ endpoint: "http://127.0.0.1:1" }));
  const second = await cli(["keys", "create", "--account", "second", "--json"], env);
  expect(second.code).toBe(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
    apiKey: JSON.parse(second.stdout).key,
    endpoint: "http://127.0.0.1:1",
  });
  // No temp file with the key is left beside it.
  expect(readdirSync(join(home, "txray"))).toEqual(["config.json"]);
});

test("the public per-IP limit is one budget across every read route, with or without a key", async () => {
  t = await testServer({ PUBLIC_RATE_PER_MINUTE: "9" });
  const key = t.key("limited", "read");
  const program = randomAddress();
  const paths = [
    "/v1/status",
    `/v1/why/${randomSignature()}`,
    `/v1/diagnose-drop/${randomSignature()}`,
    `/v1/baseline/${program}`,
    `/v1/release-diff/${program}`,
    `/v1/top-issues/${program}`,
    `/v1/cu-headroom/${program}`,
    `/v1/wallet/${program}/${randomAddress()}`,
    `/v1/provider-report/${program}`,
  ];
  // Spend the budget on every route but why (which would ask the chain about an unknown signature).
  const spend = [...paths.filter((path) => !path.startsWith("/v1/why")), "/v1/status"];
  expect(spend.length).toBe(9);
  for (const path of spend) expect((await t.get(path)).status).not.toBe(429);
  for (const path of [...paths, "/v1/programs"]) {
    const answer = await t.get(path, { "x-api-key": key });
    expect([answer.status, answer.body.error?.code]).toEqual([429, "rate_limited"]);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
  // Ingest has its own per-key bucket, not the public one.
  const live = t.key("limited");
  expect((await t.ingest({ apiKey: live, envelopes: [makeEnvelope()] })).status).toBe(202);
});
