// diagnose-drop/{sig} (docs/api.md): the drop class of an attempt with the evidence that decided it,
// its provider's measured drop rate (last 7 days, sends only) and advice. An attempt that did not
// drop answers with its outcome, dropClass null and what to look at instead.

import { DROP_ADVICE, type DropClass, type Evidence, type Outcome } from "../../chain/resolve";
import type { Context } from "../../context";
import { providerSendsSince } from "../../control";
import { notFound } from "../../shared/errors";
import { pendingError, unresolvedAttempt } from "./unresolved-attempt";
import { attemptsBySig, requireSignature } from "./why";

export type DiagnoseDropAnswer = {
  sig: string;
  outcome: Outcome;
  dropClass: string | null;
  confidence: number | null;
  evidence: Evidence[];
  provider: { rpcLabel: string; rpcHash: string; dropRate: number; sends7d: number };
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
    if (await unresolvedAttempt(ctx, sig, attempts)) throw pendingError(ctx);
    throw notFound("txray has no attempt with this signature");
  }
  // The provider's resolved sends in the hours of the last 7 days (control migration 4: hourly counts, not a scan per
  // request).
  const since = Math.floor((ctx.clock() - 7 * 86_400_000) / 3_600_000);
  const provider = providerSendsSince(ctx.control, stored.rpcHash, since);
  const base = {
    sig,
    outcome: stored.outcome,
    provider: {
      rpcLabel: stored.rpcLabel,
      rpcHash: stored.rpcHash,
      dropRate: provider.sends > 0 ? provider.dropped / provider.sends : 0,
      sends7d: provider.sends,
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
