// bench alerts: how long after a breaking deploy's first failures the team hears of it. A txray
// server process with its scheduler (the intervals under test), the LiteSVM local chain with ~400 ms
// blocks, paced simulated traffic streamed to the server as an SDK would, alert rules (new_issue,
// regression) to a webhook receiver on loopback, created while the healthy traffic runs; then the
// app program is redeployed with a broken release while traffic continues. Measures, for each
// alert, the time from the first failed transaction's send (its envelope's sentAt) to the webhook's
// arrival.
//
// BENCH_RESOLVE_MS, BENCH_TABLES_MS, BENCH_DEPLOYS_MS: the scheduler's intervals (defaults: txray's,
// from its config: 5 s / 30 s / 300 s). BENCH_BREAK_AT: the attempt before which the app is redeployed broken
// (default 160, ~30 s of healthy traffic; move it to move the break within the jobs' cycles, which
// start with the server). BENCH_TIMEOUT_S: the longest wait for both alerts (default 1200).

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { EnvelopeStream } from "../devkit/demo/stream";
import { startLocalnet } from "../devkit/localnet";
import { runTraffic } from "../devkit/simulate";
import { loadConfig } from "../src/config";
import { createAccountKey, openControlDb } from "../src/control";
import { dataPaths } from "../src/lake/paths";
import { startServerProcess } from "../test/helpers/process";
import { startReceiver } from "../test/helpers/webhook-receiver";

const defaults = loadConfig({});
const intervals = {
  RESOLVE_INTERVAL_MS: process.env.BENCH_RESOLVE_MS ?? String(defaults.RESOLVE_INTERVAL_MS),
  TABLES_INTERVAL_MS: process.env.BENCH_TABLES_MS ?? String(defaults.TABLES_INTERVAL_MS),
  DEPLOYS_INTERVAL_MS: process.env.BENCH_DEPLOYS_MS ?? String(defaults.DEPLOYS_INTERVAL_MS),
};
const timeoutMs = Number(process.env.BENCH_TIMEOUT_S ?? 1200) * 1000;
const breakAt = Number(process.env.BENCH_BREAK_AT ?? 160);
const PROVIDERS = [
  { label: "alpha", dropRate: 0 },
  { label: "bravo", dropRate: 0 },
];
const MIX = { app_call: 50, sol_transfer: 30, sol_insufficient: 10 };
const log = (text: string) => console.error(`[${new Date().toISOString()}] ${text}`);

const dataDir = mkdtempSync(join(tmpdir(), "txray-bench-alerts-"));
const control = openControlDb(dataPaths(dataDir).controlDb);
const key = createAccountKey(control, "bench", "live", Date.now()).key;
control.close();
const chain = await startLocalnet({ blockTimeMs: 400 });
const receiver = startReceiver();
const server = await startServerProcess({
  TXRAY_DATA_DIR: dataDir,
  SOLANA_RPC_URL: chain.url,
  TXRAY_SCHEDULER: "on",
  TXRAY_LOG_LEVEL: "info",
  // The webhook receiver is on loopback.
  ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  ...intervals,
});
const serverStartedAt = Date.now();
log(`server ${server.url}, intervals ${JSON.stringify(intervals)}`);

try {
  log("healthy traffic, then a broken redeploy…");
  const stream = new EnvelopeStream(server.url, key).start(250);
  let app: string | null = null;
  const run = runTraffic({
    rpcUrl: chain.url,
    seed: 11,
    providers: PROVIDERS,
    mix: MIX,
    payers: 6,
    intervalMs: 150,
    attempts: breakAt + 240,
    redeployAt: breakAt,
    onAttempt: (a) => {
      stream.push(a.envelope);
      if (a.truth.scenario === "app_call") app ??= a.envelope.program;
    },
  });
  // Rules are created once the app program reached the lake (the account then "reported" it), while the traffic is
  // still healthy.
  const hook = { type: "webhook", url: `${receiver.url}/hook`, secret: "bench-secret-0123456789" };
  while (app === null) await Bun.sleep(100);
  for (const [rule, params] of [
    ["new_issue", {}],
    ["regression", { minAttempts: 20 }],
  ] as const) {
    for (;;) {
      const response = await fetch(`${server.url}/v1/alerts`, {
        method: "POST",
        headers: { "x-api-key": key },
        body: JSON.stringify({ program: app, rule, params, destination: hook }),
      });
      if (response.status === 201) break;
      if (response.status !== 404) throw new Error(`creating ${rule}: ${response.status} ${await response.text()}`);
      await Bun.sleep(250);
    }
  }
  const rulesAt = Date.now();
  log("rules created");
  const broken = await run;
  await stream.stop();
  const failures = broken.attempts.filter(
    (a) => a.truth.scenario === "app_call" && a.truth.outcome === "failed_onchain",
  );
  const firstFailure = Math.min(...failures.map((a) => a.envelope.sentAt));
  if (rulesAt > firstFailure) throw new Error("the rules were created after the break: raise BENCH_BREAK_AT");
  log(
    `${failures.length} failed app calls, the first sent at ${new Date(firstFailure).toISOString()} (deploy at slot ${broken.deploys.at(-1)!.slot}); waiting for the alerts…`,
  );
  const arrival = new Map<string, number>();
  const deadline = Date.now() + timeoutMs;
  while (arrival.size < 2 && Date.now() < deadline) {
    for (const request of receiver.received) {
      const body = JSON.parse(request.body);
      if (body.kind === "alert" && body.state === "firing" && !arrival.has(body.rule)) {
        arrival.set(body.rule, request.at);
        log(`${body.rule}: "${body.title}" after ${((request.at - firstFailure) / 1000).toFixed(1)} s`);
      }
    }
    await Bun.sleep(200);
  }
  const seconds = (rule: string) =>
    arrival.has(rule) ? Number(((arrival.get(rule)! - firstFailure) / 1000).toFixed(1)) : null;
  console.log(
    JSON.stringify({
      intervals: Object.fromEntries(Object.entries(intervals).map(([name, value]) => [name, Number(value)])),
      breakAt,
      breakAfterServerStartSeconds: Number(((firstFailure - serverStartedAt) / 1000).toFixed(1)),
      failedAppCalls: failures.length,
      trafficAfterBreakSeconds: Number(
        ((Math.max(...broken.attempts.map((a) => a.envelope.sentAt)) - firstFailure) / 1000).toFixed(1),
      ),
      newIssueSeconds: seconds("new_issue"),
      regressionSeconds: seconds("regression"),
      loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
    }),
  );
} finally {
  server.process.kill("SIGTERM");
  await server.process.exited;
  receiver.stop();
  await chain.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
