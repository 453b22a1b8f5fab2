// diagnose-drop/{sig} (docs/api.md): the drop class of an attempt with the evidence that decided it,
// its provider's measured drop rate (last 7 days, sends only) and advice. An attempt that did not
// drop answers with its outcome, dropClass null and what to look at instead.

import { DROP_ADVICE, type DropClass, type Evidence, type Outcome } from "../../chain/resolve";
import type { Context } from "../../context";
import { providerSendsSince } from "../../control";
import { notFound } from "../../shared/errors";
import { servingTables } from "../serving/reader";
import { pendingError, unresolvedAttempt } from "./unresolved-attempt";
import { attemptsBySig, requireSignature } from "./why";

export type DiagnoseDropAnswer = {
  sig: string;
  outcome: Outcome;
  dropClass: string | null;
  confidence: number | null;
  evidence: Evidence[];
  provider: { rpcLabel: string; rpcHash: string; dropRate: number; sends7d: number; accounts: number };
  advice: string;
};

const NOT_DROPPED_ADVICE: Record<Exclude<Outcome, "dropped">, string> = {
  landed: "Not dropped: the transaction landed. Nothing to diagnose here.",
  failed_onchain: "Not dropped: it landed and failed on chain. See why/{sig} for the failing instruction and error.",
  preflight: "Not dropped: simulation failed before it was sent. See why/{sig} for the preflight error.",
};

export async function diagnoseDrop(ctx: Context, params: { sig: string }): Promise<DiagnoseDropAnswer> {
  const sig = requireSignature(params.sig);
  const attempts = attemptsBySig(ctx, sig);
  const stored = attempts.find((entry) => entry.state === "resolved");
  if (!stored) {
    // Only the resolver decides a drop (a look-up at least 2 s after expiry): a held attempt is pending, not asked of
    // the chain.
    const held = await unresolvedAttempt(ctx, sig, attempts);
    if (held) throw pendingError(ctx, held);
    throw notFound("txray has no attempt with this signature");
  }
  const provider = await providerSends7d(ctx, stored.rpcHash);
  const base = {
    sig,
    outcome: stored.outcome,
    provider: {
      rpcLabel: stored.rpcLabel,
      rpcHash: stored.rpcHash,
      dropRate: provider.sends > 0 ? provider.dropped / provider.sends : 0,
      sends7d: provider.sends,
      accounts: provider.accounts,
    },
  };
  if (stored.outcome !== "dropped" || !stored.drop) {
    const evidence: Evidence[] =
      stored.outcome === "preflight"
        ? [{ kind: "preflight_error", detail: "simulation failed before the send", value: stored.err }]
        : [{ kind: "landed_in_slot", detail: `found on chain in slot ${stored.slot}`, value: stored.slot }];
    return {
      ...base,
      dropClass: null,
      confidence: null,
      evidence,
      advice: NOT_DROPPED_ADVICE[stored.outcome as Exclude<Outcome, "dropped">],
    };
  }
  return {
    ...base,
    dropClass: stored.drop.dropClass,
    confidence: stored.drop.confidence,
    evidence: stored.drop.evidence,
    advice: DROP_ADVICE[stored.drop.dropClass as DropClass] ?? DROP_ADVICE.expired_blockhash,
  };
}

type ProviderSends = { sends: number; dropped: number; accounts: number };

/**
 * The provider's resolved sends of the last 7 days. Where the serving version weights public figures
 * (a deployment with several accounts: docs/serving.md#public-figures), its public 7-day sends over
 * every program, so that one account's reports the chain cannot confirm do not blame a provider for
 * everyone; otherwise the resolver's hourly counts (control migration 4: not a scan per request),
 * fresh to the last resolve run, all of them the one account's.
 */
export async function providerSends7d(ctx: Context, rpcHash: string): Promise<ProviderSends> {
  const weighted = await weightedProviderSends(ctx, rpcHash);
  if (weighted) return weighted;
  const since = Math.floor((ctx.clock() - 7 * 86_400_000) / 3_600_000);
  const counts = providerSendsSince(ctx.control, rpcHash, since);
  return { ...counts, accounts: counts.sends > 0 ? 1 : 0 };
}

async function weightedProviderSends(ctx: Context, rpcHash: string): Promise<ProviderSends | null> {
  let tables: Awaited<ReturnType<typeof servingTables>>;
  try {
    tables = await servingTables(ctx);
  } catch {
    return null; // no version yet
  }
  return tables.cached(`diagnose-drop-provider:${rpcHash}`, async () => {
    const [trust] = await tables.all<{ weighted: boolean }>("SELECT weighted FROM public_trust");
    if (!trust?.weighted) return null;
    const [row] = await tables.all<{ attempts: number; dropped: number; accounts: number }>(
      "SELECT attempts, dropped, accounts FROM provider_totals WHERE rpc_hash = $1 AND win = '7d'",
      [rpcHash],
    );
    return {
      sends: Number(row?.attempts ?? 0),
      dropped: Number(row?.dropped ?? 0),
      accounts: Number(row?.accounts ?? 0),
    };
  });
}
