// Job: detect program deploys (ProgramData slot changes) of every tracked program over
// SOLANA_RPC_URL and record them in the lake (src/chain/deploys); fetch the on-chain Anchor IDL of
// programs that have none yet or were just redeployed, and each deploy's verified-build source. It
// runs every few seconds (DEPLOYS_INTERVAL_MS) as a watch: one getMultipleAccounts of the ProgramData
// headers (45 bytes each, 100 programs a call), so a deploy is recorded within seconds and the tables
// job, woken by it, dates the release for the regression alert. Every FULL_LOOK_MS it also reads the
// program accounts again, asks for the IDLs of programs that have none and for the verified-build
// records not found yet: those cost a call per program and change rarely.

import { deploysToSource, detectDeploys, refreshDeploySources } from "../chain/deploys";
import { refreshOnchainIdls } from "../chain/idl";
import { chainHealth, createRpcClient } from "../chain/rpc";
import type { OwnedPart } from "../context";
import { trackedPrograms } from "../control";
import type { Job } from "./run";

/** How often a run also reads the program accounts and asks for missing IDLs (the job's interval before the watch). */
export const FULL_LOOK_MS = 300_000;
/** When this context last made a full look (null: not yet). */
const LAST_FULL_LOOK: OwnedPart<{ at: number | null }> = { name: "deploys full look", make: () => ({ at: null }) };

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
    const lastFull = ctx.own(LAST_FULL_LOOK);
    const now = ctx.clock();
    const full = lastFull.at === null || now - lastFull.at >= FULL_LOOK_MS;
    const result = await detectDeploys(ctx, rpc, programs, { reuseProgramAccounts: !full });
    const redeployed = new Set(result.recorded.map((deploy) => deploy.program));
    const idls = await refreshOnchainIdls(
      ctx.paths.root,
      rpc,
      full ? programs : programs.filter((program) => redeployed.has(program)),
      new Map(result.recorded.map((deploy) => [deploy.program, deploy.slot])),
    );
    const sources =
      full || result.recorded.length > 0
        ? await refreshDeploySources(
            ctx.paths.root,
            rpc,
            deploysToSource(ctx.paths, programs, result.recorded),
            ctx.clock(),
          )
        : { found: 0 };
    if (full) lastFull.at = now;
    return {
      programs: result.programs,
      upgradeable: result.upgradeable,
      recorded: result.recorded.length,
      baselines: result.baselines.length,
      skipped: result.skipped.length,
      idlsFetched: idls.fetched.length,
      fullLook: full,
      sourcesFound: sources.found,
      rpc: rpc.stats(),
    };
  },
};
