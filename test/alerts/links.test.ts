// The links of alerts open: a server asked for port 0 links to the port it bound; TXRAY_PUBLIC_URL
// wins wherever it is set; `txray alerts test`, which does not listen, links to TXRAY_PUBLIC_URL,
// else to a live server of the data directory (its lock file), else API_HOST:API_PORT. Test sends
// to a real receiver on loopback.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { publicBaseUrl } from "../../src/alerts";
import { run } from "../../src/cli/commands";
import { loadConfig } from "../../src/config";
import { accountIdByName, addProgramCounts } from "../../src/control";
import { randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

let t: TestServer;
let receiver: Receiver;
let key: string;
let ruleId: string;
const program = randomAddress();

beforeAll(async () => {
  t = await testServer({ ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
  key = t.key("links");
  addProgramCounts(t.ctx.control, [
    { accountId: accountIdByName(t.ctx.control, "links")!, program, attempts: 1, lastSeen: Date.now() },
  ]);
  receiver = startReceiver();
  const created = await fetch(`${t.url}/v1/alerts`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ program, rule: "new_issue", destination: { type: "webhook", url: `${receiver.url}/hook` } }),
  });
  expect(created.status).toBe(201);
  ruleId = ((await created.json()) as { id: string }).id;
});
afterAll(async () => {
  receiver?.stop();
  await t?.stop();
});

/** The program link of the newest alert the receiver got. */
async function lastProgramLink(count: number): Promise<string> {
  const received = await receiver.waitFor(count);
  expect(received).toHaveLength(count);
  return JSON.parse(received[count - 1].body).links.program;
}

test("a server on port 0 links to the port it bound, in test alerts and in what evaluation uses", async () => {
  const port = Number(new URL(t.url).port);
  expect(port).toBeGreaterThan(0);
  expect(t.ctx.config.API_PORT).toBe(0);
  const sent = await fetch(`${t.url}/v1/alerts/${ruleId}/test`, { method: "POST", headers: { "x-api-key": key } });
  expect(sent.status).toBe(200);
  expect(await lastProgramLink(1)).toBe(`http://127.0.0.1:${port}/p/${program}`);
  expect(publicBaseUrl(t.ctx)).toBe(`http://127.0.0.1:${port}`);
  const configured = loadConfig({
    TXRAY_DATA_DIR: t.ctx.config.dataDir,
    TXRAY_PUBLIC_URL: "https://txray.example.com",
  });
  expect(publicBaseUrl({ config: configured, own: t.ctx.own })).toBe("https://txray.example.com");
});

test("`txray alerts test`: TXRAY_PUBLIC_URL, else a live server of the data directory, else API_HOST:API_PORT", async () => {
  const env: Record<string, string | undefined> = {
    TXRAY_DATA_DIR: t.ctx.config.dataDir,
    TXRAY_CONTROL_URL: t.ctx.config.TXRAY_CONTROL_URL,
    TXRAY_LOG_LEVEL: "silent",
    ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
    API_HOST: "127.0.0.1",
  };
  const cli = async (extra: Record<string, string> = {}) => {
    const code = await run(["alerts", "test", ruleId], {
      stdout: () => {},
      stderr: () => {},
      env: { ...env, ...extra },
    });
    expect(code).toBe(0);
  };
  await cli({ TXRAY_PUBLIC_URL: "https://txray.example.com" });
  expect(await lastProgramLink(2)).toBe(`https://txray.example.com/p/${program}`);

  // A live server's lock (the parent of this test process stands in for its pid).
  const lock = join(t.ctx.config.dataDir, "server-links.lock");
  writeFileSync(lock, JSON.stringify({ host: hostname(), pid: process.ppid, port: 4321, node: "links" }));
  try {
    await cli();
    expect(await lastProgramLink(3)).toBe(`http://127.0.0.1:4321/p/${program}`);
  } finally {
    rmSync(lock);
  }
  await cli();
  expect(await lastProgramLink(4)).toBe(`http://127.0.0.1:8790/p/${program}`);
});
