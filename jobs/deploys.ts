// Job: detect program deploys (ProgramData slot changes) of every tracked program over
// SOLANA_RPC_URL and record them in the lake (src/chain/deploys).

import { detectDeploys } from "../src/chain/deploys";
import { createRpcClient } from "../src/chain/rpc";
import { trackedPrograms } from "../src/control";
import type { Job } from "../src/scheduler/jobs";
import { runStandalone } from "../src/scheduler/standalone";

export const deploysJob: Job = {
  name: "deploys",
  async run(ctx) {
    const rpc = createRpcClient({ url: ctx.config.SOLANA_RPC_URL, concurrency: ctx.config.SOLANA_RPC_CONCURRENCY, logger: ctx.logger });
    const result = await detectDeploys(ctx, rpc, trackedPrograms(ctx.control));
    return { programs: result.programs, upgradeable: result.upgradeable, recorded: result.recorded.length, skipped: result.skipped.length, rpc: rpc.stats() };
  },
};

if (import.meta.main) await runStandalone(deploysJob);
