// Job: resolve pending attempts against SOLANA_RPC_URL (src/chain/resolve).

import { loadIdls } from "../chain/idl";
import { resolvePending } from "../chain/resolve";
import { createRpcClient } from "../chain/rpc";
import type { Job } from "./run";

export const resolveJob: Job = {
  name: "resolve",
  needs: ["chain"],
  async run(ctx, runtime) {
    const rpc = createRpcClient({ url: ctx.config.SOLANA_RPC_URL, concurrency: ctx.config.SOLANA_RPC_CONCURRENCY, timeoutMs: ctx.config.SOLANA_RPC_TIMEOUT_MS, logger: ctx.logger });
    const summary = await resolvePending(ctx, { rpc, idls: loadIdls(ctx.paths.root), signal: runtime.signal });
    return { ...summary, rpc: rpc.stats() };
  },
};
