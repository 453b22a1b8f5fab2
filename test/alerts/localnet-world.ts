// A real txray server over a LiteSVM local chain with simulated traffic in phases, for the alerts'
// end-to-end tests: each phase runs real transactions through the chain's providers while their
// envelopes stream to the server (to account A, or some of them to account B), and `refresh()` runs
// the jobs a deployment's scheduler would (flush, resolve, deploys, tables) so the serving tables
// hold what the phase did. The same seed in a later phase reuses the world (payers, mint, the app
// program, which createWorld deploys again: an ordinary redeploy of the same code).

import { EnvelopeStream } from "../../devkit/demo/stream";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { type Attempt, type RunOptions, type RunResult, runTraffic } from "../../devkit/simulate";
import { loadIdls } from "../../src/chain/idl";
import { resolvePending } from "../../src/chain/resolve";
import { createRpcClient } from "../../src/chain/rpc";
import { deploysJob } from "../../src/jobs/deploys";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { type TestServer, testServer } from "../helpers/server";

export type LocalnetWorld = {
  chain: Localnet;
  t: TestServer;
  keys: { a: string; b: string };
  /** Runs traffic; `toB(attempt, index)` sends that attempt's envelope as account B. */
  phase(
    options: Omit<RunOptions, "rpcUrl" | "onAttempt">,
    toB?: (attempt: Attempt, index: number) => boolean,
  ): Promise<RunResult>;
  refresh(): Promise<void>;
  stop(): Promise<void>;
};

export async function localnetWorld(env: Record<string, string> = {}): Promise<LocalnetWorld> {
  const chain = await startLocalnet({ blockTimeMs: 0 });
  const t = await testServer({ SOLANA_RPC_URL: chain.url, ...env });
  const keys = { a: t.key("team-a"), b: t.key("team-b") };
  const must = async (job: Parameters<typeof runJob>[1]) => {
    const outcome = await runJob(t.ctx, job, { spool: t.server.spool ?? undefined });
    if (!outcome.ok) throw new Error(`${job.name} failed: ${outcome.error}`);
  };
  return {
    chain,
    t,
    keys,
    async phase(options, toB = () => false) {
      const streams = {
        a: new EnvelopeStream(t.url, keys.a).start(100),
        b: new EnvelopeStream(t.url, keys.b).start(100),
      };
      let sent = 0;
      const run = await runTraffic({
        ...options,
        rpcUrl: chain.url,
        onAttempt: (attempt, index) => {
          sent++;
          (toB(attempt, index) ? streams.b : streams.a).push(attempt.envelope);
        },
      });
      await streams.a.stop();
      await streams.b.stop();
      if (streams.a.accepted + streams.b.accepted !== sent) throw new Error("not every envelope was accepted");
      return run;
    },
    async refresh() {
      await must(flushJob);
      const summary = await resolvePending(t.ctx, {
        rpc: createRpcClient({ url: chain.url }),
        idls: loadIdls(t.ctx.paths.root),
        recheckDelayMs: 20,
      });
      if (summary.stillPending !== 0) throw new Error(`${summary.stillPending} attempts still pending`);
      await must(deploysJob);
      await must(tablesJob);
    },
    async stop() {
      await t.stop();
      await chain.stop();
    },
  };
}
