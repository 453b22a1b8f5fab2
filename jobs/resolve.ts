// Job: resolve pending attempts against SOLANA_RPC_URL (src/chain/resolve).

import { loadIdls } from "../src/chain/idl";
import { resolvePending } from "../src/chain/resolve";
import { createRpcClient } from "../src/chain/rpc";
import type { Job } from "../src/scheduler/jobs";
import { runStandalone } from "../src/scheduler/standalone";

export const resolveJob: Job = {
  name: "resolve",
  async run(ctx, runtime) {
    const rpc = createRpcClient({ url: ctx.config.SOLANA_RPC_URL, concurrency: ctx.config.SOLANA_RPC_CONCURRENCY, timeoutMs: ctx.config.SOLANA_RPC_TIMEOUT_MS, logger: ctx.logger });
    const summary = await resolvePending(ctx, { rpc, idls: loadIdls(ctx.paths.root), signal: runtime.signal });
    return { ...summary, rpc: rpc.stats() };
  },
};

if (import.meta.main) await runStandalone(resolveJob);
