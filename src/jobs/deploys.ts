// Job: detect program deploys (ProgramData slot changes) of every tracked program over
// SOLANA_RPC_URL and record them in the lake (src/chain/deploys); fetch the on-chain Anchor IDL of
// programs that have none yet or were just redeployed, and each deploy's verified-build source.

import { deploysToSource, detectDeploys, refreshDeploySources } from "../chain/deploys";
import { refreshOnchainIdls } from "../chain/idl";
import { chainHealth, createRpcClient } from "../chain/rpc";
import { trackedPrograms } from "../control";
import type { Job } from "./run";

export const deploysJob: Job = {
  name: "deploys",
  needs: ["chain"],
  async run(ctx) {
    const rpc = createRpcClient({
      url: ctx.config.SOLANA_RPC_URL,
      concurrency: ctx.config.SOLANA_RPC_CONCURRENCY,
      timeoutMs: ctx.config.SOLANA_RPC_TIMEOUT_MS,
      onOutcome: (outcome) => chainHealth(ctx, "deploys").note(outcome),
      logger: ctx.logger,
      sleep: ctx.timers.sleep,
    });
    const programs = trackedPrograms(ctx.control);
    const result = await detectDeploys(ctx, rpc, programs);
    const idls = await refreshOnchainIdls(
      ctx.paths.root,
      rpc,
      programs,
      new Map(result.recorded.map((deploy) => [deploy.program, deploy.slot])),
    );
    const sources = await refreshDeploySources(
      ctx.paths.root,
      rpc,
      deploysToSource(ctx.paths, programs, result.recorded),
      ctx.clock(),
    );
    return {
      programs: result.programs,
      upgradeable: result.upgradeable,
      recorded: result.recorded.length,
      baselines: result.baselines.length,
      skipped: result.skipped.length,
      idlsFetched: idls.fetched.length,
      sourcesFound: sources.found,
      rpc: rpc.stats(),
    };
  },
};
