// bench alerts: how soon the team hears of a new failure and of a breaking deploy, at txray's default
// settings. A txray server process with its scheduler, the LiteSVM local chain with ~400 ms blocks,
// paced simulated traffic streamed to the server as an SDK would (small batches every 250 ms), and
// alert rules to a webhook receiver on loopback: `new_issue` on every program the traffic calls,
// `regression` on the app program, both with their default parameters, created while the traffic
// is healthy. Then, phase after phase, one new kind of failure joins the healthy traffic (a quarter
// of the attempts): each is a new issue. Last, the app program is redeployed with a broken release
// while the traffic goes on: a new issue on the app and a regression.
//
// Figures: per new issue, the seconds from its first failed attempt's send (its envelope's sentAt;
// the stream hands it to the server within 250 ms) to the `new_issue` webhook's arrival, p50 and
// p95 over the phases; for the regression, the seconds from the redeploy (the first attempt sent
// after it) and from the first failed app call after it to the `regression` webhook's arrival.
//
// BENCH_PHASE_S: the length of each failure phase (default 25). BENCH_AFTER_DEPLOY_S: the longest
// traffic after the redeploy (default 90; it stops once the regression alert is in).
// BENCH_TIMEOUT_S: the longest wait for the alerts still missing after the traffic (default 120).
// Any txray setting given in the environment with a BENCH_SET_ prefix (BENCH_SET_TABLES_INTERVAL_MS=30000)
// is passed to the server, to measure other settings; none by default. BENCH_SERVER_LOG: a file the
// server's log is written to at the end; with it, release-diff's periods are logged every 5 s after
// the redeploy (where a slow regression alert waits).

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Connection } from "@solana/web3.js";
import { EnvelopeStream } from "../devkit/demo/stream";
import { startLocalnet } from "../devkit/localnet";
import { mulberry32 } from "../devkit/localnet/prng";
import {
  type Attempt,
  ChainClient,
  createWorld,
  type ProviderEndpoint,
  rpcHash,
  runAttempt,
  type ScenarioKind,
} from "../devkit/simulate";
import { loadConfig } from "../src/config";
import { createAccountKey, openControlDb } from "../src/control";
import { dataPaths } from "../src/lake/paths";
import { startServerProcess } from "../test/helpers/process";
import { startReceiver } from "../test/helpers/webhook-receiver";

const phaseMs = Number(process.env.BENCH_PHASE_S ?? 25) * 1000;
const afterDeployMs = Number(process.env.BENCH_AFTER_DEPLOY_S ?? 90) * 1000;
const timeoutMs = Number(process.env.BENCH_TIMEOUT_S ?? 120) * 1000;
const overrides = Object.fromEntries(
  Object.entries(process.env)
    .filter(([name]) => name.startsWith("BENCH_SET_"))
    .map(([name, value]) => [name.slice("BENCH_SET_".length), String(value)]),
);
const settings = loadConfig(overrides);
const intervals = Object.fromEntries(
  (
    [
      "FLUSH_INTERVAL_MS",
      "RESOLVE_INTERVAL_MS",
      "DEPLOYS_INTERVAL_MS",
      "TABLES_INTERVAL_MS",
      "ALERTS_INTERVAL_MS",
    ] as const
  ).map((name) => [name, settings[name]]),
);
const HEALTHY: Partial<Record<ScenarioKind, number>> = { sol_transfer: 30, token_transfer: 30, app_call: 40 };
/** One new issue per phase, each on a program the healthy traffic already calls. */
const NEW_FAILURES: ScenarioKind[] = [
  "sol_insufficient",
  "token_insufficient",
  "compute_exceeded",
  "preflight_sol",
  "preflight_token",
];
const FAILURE_SHARE = 0.25;
const INTERVAL_MS = 150;
const log = (text: string) => console.error(`[${new Date().toISOString()}] ${text}`);
const seconds = (ms: number) => Number((ms / 1000).toFixed(1));

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
  ...overrides,
});
log(`server ${server.url}, intervals ${JSON.stringify(intervals)}`);

// With BENCH_SERVER_LOG, every job run /v1/status reports (polled each second) goes to the log file's `.jobs` sibling.
const jobRuns = new Map<string, unknown>();
const watchJobs = process.env.BENCH_SERVER_LOG
  ? setInterval(async () => {
      const response = await fetch(`${server.url}/v1/status`, { headers: { "x-api-key": key } }).catch(() => null);
      if (!response?.ok) return;
      const jobs = ((await response.json()) as { jobs?: Record<string, { lastRunAt: number }> }).jobs ?? {};
      for (const [name, run] of Object.entries(jobs)) jobRuns.set(`${name}@${run.lastRunAt}`, { job: name, ...run });
    }, 1000)
  : null;

type Arrival = { rule: string; at: number; data: Record<string, unknown>; subject: string };
const arrivals: Arrival[] = [];
let seen = 0;
const collect = () => {
  for (; seen < receiver.received.length; seen++) {
    const request = receiver.received[seen];
    const body = JSON.parse(request.body);
    if (body.kind === "alert" && body.state === "firing")
      arrivals.push({ rule: body.rule, at: request.at, data: body.data ?? {}, subject: body.subject });
  }
};

const pick = <T>(random: () => number, items: [T, number][]): T => {
  let draw = random() * items.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [item, weight] of items) if ((draw -= weight) < 0) return item;
  return items[items.length - 1][0];
};

try {
  const client = new ChainClient(chain.url);
  const connection = new Connection(chain.url, { commitment: "confirmed" });
  const providers: ProviderEndpoint[] = [];
  for (const label of ["alpha", "bravo"]) {
    const { url } = await client.addProvider({ label, dropRate: 0 });
    providers.push({ label, url, rpcHash: rpcHash(url), connection: new Connection(url, { commitment: "confirmed" }) });
  }
  const world = await createWorld(connection, client, { seed: 11, payers: 6, deployApp: true });
  const random = mulberry32(11);
  const stream = new EnvelopeStream(server.url, key).start(250);
  const attempts: Attempt[] = [];
  let appBroken = false;
  const send = async (kind: ScenarioKind) => {
    const index = attempts.length;
    const attempt = await runAttempt(kind, {
      world,
      provider: providers[index % providers.length],
      payer: world.payers[Math.floor(random() * world.payers.length)],
      recipient: world.recipients[index % world.recipients.length],
      index,
      random,
      chain: client,
      now: Date.now,
      appBroken,
      preflightErrorText: "transactionMessage",
    });
    attempts.push(attempt);
    stream.push(attempt.envelope);
    await Bun.sleep(INTERVAL_MS);
    return attempt;
  };
  const healthy = Object.entries(HEALTHY) as [ScenarioKind, number][];

  // Healthy traffic until every program it calls has reached the lake and has its rules.
  log("healthy traffic; rules once the programs are reported…");
  const hook = { type: "webhook", url: `${receiver.url}/hook`, secret: "bench-secret-0123456789" };
  const programs = new Set<string>();
  const ruled = new Set<string>();
  const app = world.appProgram!.toBase58();
  const createRule = async (program: string, rule: string) => {
    const response = await fetch(`${server.url}/v1/alerts`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: JSON.stringify({ program, rule, destination: hook }),
    });
    if (response.status === 201) return true;
    if (response.status !== 404) throw new Error(`creating ${rule}: ${response.status} ${await response.text()}`);
    return false;
  };
  const healthyUntil = Date.now() + 120_000;
  let rulesTried = 0;
  while (ruled.size < 3 || programs.size > ruled.size) {
    if (Date.now() > healthyUntil) throw new Error(`rules not created: ${[...ruled].join(", ")}`);
    programs.add((await send(pick(random, healthy))).envelope.program);
    if (attempts.length - rulesTried < 10) continue;
    rulesTried = attempts.length;
    for (const program of programs)
      if (!ruled.has(program) && (await createRule(program, "new_issue"))) {
        if (program === app && !(await createRule(program, "regression"))) throw new Error("regression rule: 404");
        ruled.add(program);
      }
  }
  log(`rules on ${ruled.size} programs after ${attempts.length} healthy attempts`);
  // Some healthy traffic with the rules in place: the regression's pre-deploy period.
  const settleUntil = Date.now() + 10_000;
  while (Date.now() < settleUntil) await send(pick(random, healthy));

  type Phase = { kind: ScenarioKind; firstFailure: number | null; sigs: Set<string> };
  const phases: Phase[] = [];
  for (const kind of NEW_FAILURES) {
    const phase: Phase = { kind, firstFailure: null, sigs: new Set() };
    phases.push(phase);
    log(`phase ${kind}`);
    const until = Date.now() + phaseMs;
    while (Date.now() < until) {
      const attempt = await send(random() < FAILURE_SHARE ? kind : pick(random, healthy));
      if (attempt.truth.scenario !== kind || attempt.truth.outcome === "landed") continue;
      phase.firstFailure ??= attempt.envelope.sentAt;
      if (attempt.envelope.sig) phase.sigs.add(attempt.envelope.sig);
    }
  }

  // The broken redeploy, dated after every attempt before it (block times are whole seconds).
  log("redeploying the app with a broken release…");
  await Bun.sleep(1000 - (Date.now() % 1000) + 5);
  await client.advanceBlocks(1);
  const deploy = await client.deployProgram({ programId: app, template: "spl-token" });
  appBroken = true;
  const broken: Phase = { kind: "app_call", firstFailure: null, sigs: new Set() };
  phases.push(broken);
  let deployedAt: number | null = null;
  const diagnose = process.env.BENCH_SERVER_LOG
    ? setInterval(async () => {
        const response = await fetch(`${server.url}/v1/release-diff/${app}?scope=account`, {
          headers: { "x-api-key": key },
        });
        const body = (await response.json()) as {
          deploy?: { slot: number };
          pre?: { attempts: number };
          post?: { attempts: number };
        };
        log(
          `release-diff ${response.status}: deploy ${body.deploy?.slot}, pre ${body.pre?.attempts}, post ${body.post?.attempts}`,
        );
      }, 5_000)
    : null;
  const trafficUntil = Date.now() + afterDeployMs;
  while (Date.now() < trafficUntil) {
    const attempt = await send(pick(random, healthy));
    deployedAt ??= attempt.envelope.sentAt;
    if (attempt.truth.scenario === "app_call" && attempt.truth.outcome === "failed_onchain") {
      broken.firstFailure ??= attempt.envelope.sentAt;
      if (attempt.envelope.sig) broken.sigs.add(attempt.envelope.sig);
    }
    collect();
    if (arrivals.some((a) => a.rule === "regression")) break;
  }
  if (diagnose) clearInterval(diagnose);
  log(`deploy at slot ${deploy.slot}; ${attempts.length} attempts in all; waiting for the alerts still missing…`);

  // Each new_issue alert names a sample signature of its issue: the phase that sent it.
  const newIssueAt = new Map<Phase, number>();
  const attribute = () => {
    collect();
    for (const arrival of arrivals) {
      if (arrival.rule !== "new_issue") continue;
      const sample = String(arrival.data.sampleSig ?? "");
      const phase =
        phases.find((p) => p.sigs.has(sample)) ??
        phases.find((p) => !newIssueAt.has(p) && p.firstFailure !== null && p.firstFailure < arrival.at);
      if (phase && !newIssueAt.has(phase)) newIssueAt.set(phase, arrival.at);
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    attribute();
    const done = phases.every((p) => newIssueAt.has(p)) && arrivals.some((a) => a.rule === "regression");
    if (done || Date.now() > deadline) break;
    await Bun.sleep(200);
  }
  await stream.stop();

  const samples = phases.map((p) => ({
    kind: p.kind,
    seconds: p.firstFailure !== null && newIssueAt.has(p) ? seconds(newIssueAt.get(p)! - p.firstFailure) : null,
  }));
  for (const sample of samples) log(`new_issue ${sample.kind}: ${sample.seconds ?? "no alert"} s`);
  const measured = samples
    .map((s) => s.seconds)
    .filter((s): s is number => s !== null)
    .sort((a, b) => a - b);
  const quantile = (q: number) =>
    measured.length === 0 ? null : measured[Math.min(measured.length - 1, Math.ceil(q * measured.length) - 1)];
  const regression = arrivals.find((a) => a.rule === "regression");
  const regressionFigures = {
    afterDeploySeconds: regression && deployedAt !== null ? seconds(regression.at - deployedAt) : null,
    afterFirstFailureSeconds:
      regression && broken.firstFailure !== null ? seconds(regression.at - broken.firstFailure) : null,
    subject: regression?.subject ?? null,
  };
  log(`regression: ${JSON.stringify(regressionFigures)}`);
  console.log(
    JSON.stringify({
      intervals,
      overrides,
      attempts: attempts.length,
      newIssue: {
        samples,
        missing: samples.filter((s) => s.seconds === null).length,
        p50: quantile(0.5),
        p95: quantile(0.95),
      },
      regression: regressionFigures,
      loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
    }),
  );
} finally {
  server.process.kill("SIGTERM");
  await server.process.exited;
  if (watchJobs) clearInterval(watchJobs);
  if (process.env.BENCH_SERVER_LOG) {
    await Bun.write(process.env.BENCH_SERVER_LOG, server.stderr());
    await Bun.write(
      `${process.env.BENCH_SERVER_LOG}.jobs`,
      [...jobRuns.values()].map((run) => JSON.stringify(run)).join("\n"),
    );
  }
  receiver.stop();
  await chain.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
