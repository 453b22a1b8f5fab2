// `bun run demo`: txray populated from a fresh clone in one command. Starts the LiteSVM local chain,
// the txray server with its job scheduler (short intervals), and the traffic simulator in this one
// process; drives real transactions (System, SPL Token and an app program; providers that drop 0%,
// 5% and 30% of sends; human wallets and a bot; a redeploy of the app that makes every call fail),
// streams their envelopes to the server, and prints the dashboard URL as soon as it has data.
// Before any traffic it registers the app program's IDL as a user would (`txray idl add`), so the
// app's failures read by name; once the chain has resolved enough sends it publishes a Landing Score
// snapshot of the demo's own traffic (today's date) and refreshes it every minute.
// Ctrl-C (SIGINT/SIGTERM) stops the traffic, the server and the chain, then exits.
//
// Settings: API_PORT and LOCALNET_PORT (default: free ports), TXRAY_DATA_DIR (default: a fresh
// temporary directory, removed on exit), DEMO_ATTEMPTS (default: until stopped), DEMO_REDEPLOY_AT
// (attempt number of the breaking redeploy, default 800: about 40 s in), TXRAY_LOG_LEVEL (default warn).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { landingScoreDir, runLandingScore } from "../../src/analytics/landing-score";
import { run as txray } from "../../src/cli/commands";
import { type Config, ConfigError, loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { createAccountKey } from "../../src/control";
import { startServer } from "../../src/server";
import { EnvelopeStream } from "../demo/stream";
import { startLocalnet } from "../localnet";
import { APP_IDL_FILE, appProgramId, runTraffic } from "../simulate";

class DemoStopped extends Error {}

const demoSettings = z
  .object({
    API_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    LOCALNET_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    DEMO_ATTEMPTS: z.coerce.number().int().min(1).default(1_000_000),
    DEMO_REDEPLOY_AT: z.coerce.number().int().min(0).default(800),
    DEMO_INTERVAL_MS: z.coerce.number().int().min(0).default(40),
  })
  .safeParse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== "")));
if (!demoSettings.success) {
  const issue = demoSettings.error.issues[0];
  console.error(`demo: invalid setting ${issue.path.join(".")}: ${issue.message}`);
  process.exit(2);
}
const settings = demoSettings.data;
const freshDir = !process.env.TXRAY_DATA_DIR;
const dataDir = process.env.TXRAY_DATA_DIR || mkdtempSync(join(tmpdir(), "txray-demo-"));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

const SEED = 7;
const localnet = await startLocalnet({ port: settings.LOCALNET_PORT, blockTimeMs: 400, seed: SEED });
let config: Config;
try {
  config = loadConfig({
    ...process.env,
    TXRAY_DATA_DIR: dataDir,
    TXRAY_SNAPSHOTS_DIR: process.env.TXRAY_SNAPSHOTS_DIR || join(dataDir, "snapshots"),
    TXRAY_LOG_LEVEL: process.env.TXRAY_LOG_LEVEL || "warn",
    API_PORT: String(settings.API_PORT),
    SOLANA_RPC_URL: localnet.url,
    TXRAY_SCHEDULER: "on",
    EXPLORER_CLUSTER: "off",
    FLUSH_INTERVAL_MS: "1000",
    RESOLVE_INTERVAL_MS: "3000",
    DEPLOYS_INTERVAL_MS: "5000",
    TABLES_INTERVAL_MS: "8000",
    COMPACT_INTERVAL_MS: "120000",
  });
} catch (error) {
  await localnet.stop();
  if (error instanceof ConfigError) {
    console.error(`demo: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
// The app program's IDL, registered the way a user would: `bun run txray idl add <program> <file>`.
const app = appProgramId(SEED);
const quiet = {
  stdout: () => {},
  stderr: (text: string) => console.error(text.trimEnd()),
  env: { ...process.env, TXRAY_DATA_DIR: dataDir },
};
if ((await txray(["idl", "add", app, APP_IDL_FILE], quiet)) !== 0)
  console.error("demo: could not register the app program's IDL: its failures show by code");
// Display names for the Landing Score page (snapshots/programs.json, docs/publishing.md); well-known programs are named
// already.
mkdirSync(config.snapshotsDir, { recursive: true });
writeFileSync(join(config.snapshotsDir, "programs.json"), `${JSON.stringify({ [app]: "txray demo app" }, null, 2)}\n`);
const ctx = await createContext(config);
const server = await startServer(ctx, { port: settings.API_PORT, scheduler: true, hostedRuns: true });
const { key } = createAccountKey(ctx.control, "demo", "live", Date.now());
console.log(
  `txray demo: chain ${localnet.url} · server ${server.url} · data ${dataDir}${freshDir ? " (removed on exit)" : ""}`,
);
console.log(`demo key (paste it under "API key" in the web app): ${key}`);

const stream = new EnvelopeStream(server.url, key, (error) =>
  console.error(`demo: submit failed: ${error instanceof Error ? error.message : error}`),
).start(250);
let stopping = false;
let sent = 0;
let appProgram: string | null = null;
let redeployed = false;

const traffic = runTraffic({
  rpcUrl: localnet.url,
  attempts: settings.DEMO_ATTEMPTS,
  payers: 12,
  providers: [
    { label: "alpha", dropRate: 0 },
    { label: "bravo", dropRate: 0.05 },
    { label: "charlie", dropRate: 0.3 },
  ],
  redeployAt: settings.DEMO_REDEPLOY_AT,
  intervalMs: settings.DEMO_INTERVAL_MS,
  seed: SEED,
  onAttempt: (attempt, index) => {
    if (stopping) throw new DemoStopped();
    stream.push(attempt.envelope);
    sent++;
    if (attempt.truth.scenario === "app_call") appProgram ??= attempt.envelope.program;
    if (index + 1 === settings.DEMO_REDEPLOY_AT) {
      redeployed = true;
      console.log(
        `[${elapsed()}] redeployed the app program with a broken release: its calls now fail (see its release diff)`,
      );
    }
  },
}).then(
  () => console.log(`[${elapsed()}] traffic finished: ${sent} attempts`),
  (error) => {
    if (!(error instanceof DemoStopped))
      console.error(`demo: traffic stopped: ${error instanceof Error ? error.message : error}`);
  },
);

/** Waits until the lake has envelopes and the tables list programs, then prints the URLs. */
async function announce(): Promise<void> {
  for (;;) {
    if (stopping) return;
    const status = (await fetch(`${server.url}/v1/status`).then(
      (r) => r.json(),
      () => null,
    )) as { lake?: { envelopes?: number } } | null;
    const eco = (await fetch(`${server.url}/v1/ecosystem?window=1d`).then(
      (r) => (r.ok ? r.json() : null),
      () => null,
    )) as { programs?: unknown[] } | null;
    if ((status?.lake?.envelopes ?? 0) > 0 && (eco?.programs?.length ?? 0) > 0) break;
    await Bun.sleep(500);
  }
  console.log(`\n[${elapsed()}] dashboard ready: ${server.url}/`);
  if (appProgram)
    console.log(
      `  app program (redeploy regression after attempt ${settings.DEMO_REDEPLOY_AT}): ${server.url}/p/${appProgram}?window=1d`,
    );
  console.log("  traffic keeps running and the pages fill in as jobs run; Ctrl-C to stop\n");
}
void announce();

/**
 * The demo's own Landing Score: the nightly job publishes yesterday's, when the demo had no traffic.
 * Once every program has enough resolved sends (the method's minimum), today's snapshot is published
 * and refreshed every minute; the home page links it.
 */
const MIN_RESOLVED_SENDS = 150;
let published = false;
let publishedAt = 0;
async function publishLandingScore(): Promise<void> {
  if (stopping || Date.now() - publishedAt < 60_000) return;
  const eco = (await fetch(`${server.url}/v1/ecosystem?window=1d`).then(
    (r) => (r.ok ? r.json() : null),
    () => null,
  )) as { programs?: { rates: { attempts: number; preflight: number } }[] } | null;
  const programs = eco?.programs ?? [];
  if (programs.length < 3 || programs.some((p) => p.rates.attempts - p.rates.preflight < MIN_RESOLVED_SENDS)) return;
  try {
    const result = await runLandingScore(ctx, { date: new Date(ctx.clock()).toISOString().slice(0, 10) });
    if (!published && result.listed > 0)
      console.log(
        `[${elapsed()}] Landing Score of the demo's traffic published: ${server.url}/landing-score/ (${result.listed} programs; files in ${landingScoreDir(config.snapshotsDir)})`,
      );
    published ||= result.listed > 0;
    if (published) publishedAt = Date.now();
  } catch (error) {
    console.error(`demo: landing score: ${error instanceof Error ? error.message : error}`);
  }
}
let publishing: Promise<void> | null = null;
const landingScore = setInterval(() => {
  publishing ??= publishLandingScore().finally(() => (publishing = null));
}, 5_000);

const progress = setInterval(async () => {
  const status = (await fetch(`${server.url}/v1/status`).then(
    (r) => r.json(),
    () => null,
  )) as { lake?: { envelopes?: number } } | null;
  console.log(
    `[${elapsed()}] attempts sent ${sent} · accepted ${stream.accepted} · lake envelopes ${status?.lake?.envelopes ?? "?"}${redeployed ? " · after redeploy" : ""}`,
  );
}, 20_000);

let stoppingAt = 0;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    // Ctrl-C reaches both `bun run` and this process (which `bun run` may forward again): only a
    // second signal given a while later forces the exit.
    if (Date.now() - stoppingAt < 2000) return;
    console.error("demo: forced exit");
    process.exit(130);
  }
  stopping = true;
  stoppingAt = Date.now();
  setTimeout(() => {
    console.error("demo: could not stop within 20 s; exiting");
    process.exit(1);
  }, 20_000).unref();
  console.log(`\n${signal}: stopping traffic, server and chain…`);
  clearInterval(progress);
  clearInterval(landingScore);
  await publishing;
  await traffic;
  await stream.stop();
  await server.stop();
  ctx.close();
  await localnet.stop();
  if (freshDir) rmSync(dataDir, { recursive: true, force: true });
  console.log("demo stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
