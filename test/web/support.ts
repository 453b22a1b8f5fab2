// Test support for the web app: a real txray server filled with simulated traffic (real
// transactions on the LiteSVM local chain through three providers with different drop rates, a
// redeploy that breaks the app program, a bot payer), flushed, resolved, deploys detected and the
// serving tables built; and a headless Chromium (Debian's, driven by playwright-core).

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { EnvelopeStream } from "../../devkit/demo/stream";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { APP_IDL_FILE, type Attempt, appProgramId, runTraffic } from "../../devkit/simulate";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { run as txray } from "../../src/cli/commands";
import { deploysJob } from "../../src/jobs/deploys";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { resolveUntilSettled } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";

export const ARTIFACTS = join(import.meta.dir, "..", "artifacts");

export type SimulatedWorld = {
  chain: Localnet;
  t: TestServer;
  key: string;
  attempts: Attempt[];
  appProgram: string;
  stop(): Promise<void>;
};

export async function simulatedWorld(
  attempts = 220,
  env: Record<string, string> = {},
  options: { payers?: number } = {},
): Promise<SimulatedWorld> {
  const chain = await startLocalnet({ blockTimeMs: 0 });
  const t = await testServer({ SOLANA_RPC_URL: chain.url, ...env });
  const key = t.key("demo");
  // As the demo does (and a user would): the app program's IDL names its instruction and errors.
  const quiet = { stdout: () => {}, stderr: () => {}, env: { TXRAY_DATA_DIR: t.ctx.config.dataDir } };
  if ((await txray(["idl", "add", appProgramId(5), APP_IDL_FILE], quiet)) !== 0)
    throw new Error("could not register the app IDL");
  // Envelopes go in while the traffic runs (received times straddle the redeploy, as in production).
  const stream = new EnvelopeStream(t.url, key).start(100);
  const run = await runTraffic({
    rpcUrl: chain.url,
    attempts,
    seed: 5,
    providers: [
      { label: "alpha", dropRate: 0 },
      { label: "bravo", dropRate: 0.05 },
      { label: "charlie", dropRate: 0.35 },
    ],
    redeployAt: Math.floor(attempts * 0.55),
    blocksPerAttempt: 1,
    payers: options.payers ?? 8,
    onAttempt: (attempt) => stream.push(attempt.envelope),
  });
  await stream.stop();
  if (stream.accepted !== run.attempts.length) throw new Error("not every envelope was accepted");
  const runtime = { spool: t.server.spool ?? undefined };
  const must = async (job: Parameters<typeof runJob>[1]) => {
    const outcome = await runJob(t.ctx, job, runtime);
    if (!outcome.ok) throw new Error(`${job.name} failed: ${outcome.error}`);
  };
  await must(flushJob);
  const summary = await resolveUntilSettled(t.ctx, {
    rpc: createRpcClient({ url: chain.url }),
    idls: loadIdls(t.ctx.paths.root),
    recheckDelayMs: 20,
  });
  if (summary.stillPending !== 0) throw new Error(`${summary.stillPending} attempts still pending`);
  await must(deploysJob);
  await must(tablesJob);
  return {
    chain,
    t,
    key,
    attempts: run.attempts,
    appProgram: run.world.appProgram!.toBase58(),
    async stop() {
      await t.stop();
      await chain.stop();
    },
  };
}

/** Chromium with a new empty profile (playwright passes it as --user-data-dir). */
export async function launchBrowser(
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "txray-chromium-"));
  mkdirSync(ARTIFACTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
