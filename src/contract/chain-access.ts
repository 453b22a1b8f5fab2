// What read routes need from the chain: the RPC client (SOLANA_RPC_URL) for on-demand decoding and
// the IDL registry, reloaded at most once a minute so `txray idl add` takes effect without a restart.

import { loadIdls, type IdlRegistry } from "../chain/idl";
import { createRpcClient } from "../chain/rpc";
import type { Context } from "../context";
import type { WhyDeps } from "../analytics/queries";
import { issueSummary, payerBotScore } from "../analytics/queries";
import { explorerCluster, explorerLinks } from "../shared/explorer-links";

export function chainAccess(ctx: Context) {
  const rpc = createRpcClient({ url: ctx.config.SOLANA_RPC_URL, concurrency: ctx.config.SOLANA_RPC_CONCURRENCY, maxRetries: 2, logger: ctx.logger });
  let idls: IdlRegistry | null = null;
  let loadedAt = 0;
  const currentIdls = () => {
    if (idls === null || ctx.clock() - loadedAt > 60_000) {
      idls = loadIdls(ctx.paths.root);
      loadedAt = ctx.clock();
    }
    return idls;
  };
  const cluster = explorerCluster(ctx.config.EXPLORER_CLUSTER, ctx.config.SOLANA_RPC_URL);
  return {
    rpc,
    idls: currentIdls,
    whyDeps: (): WhyDeps => ({
      rpc,
      idls: currentIdls(),
      payerBotScore: (payer) => payerBotScore(ctx, payer).catch(() => null),
      issueSummary: (fingerprint) => issueSummary(ctx, fingerprint).catch(() => null),
      explorerLinks: cluster ? (sig) => explorerLinks(cluster, sig) : undefined,
    }),
  };
}
