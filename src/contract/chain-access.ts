// What read routes need from the chain: the RPC client (SOLANA_RPC_URL) for `why`'s on-demand
// look-ups, the IDL registry (reloaded at most once a minute so `txray idl add` takes effect without
// a restart), each client's budget of chain look-ups (WHY_CHAIN_PER_MINUTE, kept apart per surface:
// HTTP, MCP and Slack callers never spend each other's), the budget of all look-ups of signatures
// txray never ingested (WHY_CHAIN_LOOKUPS_PER_MINUTE) and the answers of the last second, so a
// client polling why/{sig} costs the chain one look-up per second at most. A look-up takes at most
// WHY_CHAIN_TIMEOUT_MS, retries included, and its outcomes count in the chain's health (`why`).

import { issueSummary, payerBotScore, RecentAnswers, type WhyDeps } from "../analytics/queries";
import { type IdlRegistry, loadIdls } from "../chain/idl";
import { chainHealth, chainReading, createRpcClient } from "../chain/rpc";
import type { Context } from "../context";
import { explorerCluster, explorerLinks } from "../shared/explorer-links";
import { TokenBuckets } from "../shared/token-buckets";

/** How long a chain answer is reused (a transaction confirms within about a second of landing). */
const ANSWER_REUSE_MS = 1_000;

/** The surface a client id names: `mcp:…` and `slack:…` (src/mcp, src/chat); any other id is an HTTP client. */
function surfaceOf(client: string): "http" | "mcp" | "slack" {
  if (client.startsWith("mcp:")) return "mcp";
  if (client.startsWith("slack:")) return "slack";
  return "http";
}

export function chainAccess(ctx: Context) {
  const rpc = createRpcClient({
    url: ctx.config.SOLANA_RPC_URL,
    concurrency: ctx.config.SOLANA_RPC_CONCURRENCY,
    maxRetries: 2,
    timeoutMs: ctx.config.WHY_CHAIN_TIMEOUT_MS,
    deadlineMs: ctx.config.WHY_CHAIN_TIMEOUT_MS,
    onOutcome: (outcome) => chainHealth(ctx, "why").note(outcome),
    logger: ctx.logger,
    sleep: ctx.timers.sleep,
  });
  let idls: IdlRegistry | null = null;
  let loadedAt = 0;
  const currentIdls = () => {
    if (idls === null || ctx.clock() - loadedAt > 60_000) {
      idls = loadIdls(ctx.paths.root);
      loadedAt = ctx.clock();
    }
    return idls;
  };
  const perMinute = ctx.config.WHY_CHAIN_PER_MINUTE;
  const perClient = {
    http: new TokenBuckets(perMinute, perMinute / 60, ctx.clock),
    mcp: new TokenBuckets(perMinute, perMinute / 60, ctx.clock),
    slack: new TokenBuckets(perMinute, perMinute / 60, ctx.clock),
  };
  const inAll = ctx.config.WHY_CHAIN_LOOKUPS_PER_MINUTE;
  const neverIngestedBudget = new TokenBuckets(inAll, inAll / 60, ctx.clock, 1);
  const mayAskChain = (client: string, neverIngested: boolean) => {
    const budget = perClient[surfaceOf(client)];
    const own = budget.take(client);
    if (!own.allowed || !neverIngested) return own;
    const inAllDecision = neverIngestedBudget.take("all");
    // No look-up happens: the client keeps its own budget.
    if (!inAllDecision.allowed) budget.refund(client);
    return inAllDecision;
  };
  const recentAnswers = new RecentAnswers(ANSWER_REUSE_MS);
  const cluster = explorerCluster(ctx.config.EXPLORER_CLUSTER, ctx.config.SOLANA_RPC_URL);
  return {
    rpc,
    idls: currentIdls,
    whyDeps: (): WhyDeps => ({
      rpc,
      idls: currentIdls(),
      sampleRate: ctx.config.RESOLVE_SAMPLE_RATE,
      mayAskChain,
      recentAnswers,
      payerBotScore: (payer) => payerBotScore(ctx, payer).catch(() => null),
      issueSummary: (fingerprint) => issueSummary(ctx, fingerprint).catch(() => null),
      explorerLinks: cluster ? (sig) => explorerLinks(cluster, sig) : undefined,
      chainReading: () => chainReading(ctx),
    }),
  };
}
