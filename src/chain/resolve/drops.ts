// Drop classification (DESIGN §4, DOMAIN §2). A dropped attempt never reached the chain, so the
// chain cannot say why; the class is inferred from what txray saw around it, and every diagnosis
// lists the evidence rows that decided it. Classes, strongest evidence first:
//   superseded_by_retry   the same payer's attempt at the same program landed under another
//                         signature within the blockhash lifetime: a harmless drop
//   stale_blockhash_at_send  the blockhash had (almost) no blocks left when the attempt was sent
//   rpc_not_forwarding    the attempt's provider dropped far more than the other providers in the
//                         same window (Wilson intervals do not overlap, ≥ 2× the rate)
//   network_congestion    drops spiked across all providers in the same minute
//   priority_fee_too_low  attempts at the same program that landed around it paid a clearly higher
//                         compute-unit price (needs the envelope's cuPriceMicroLamports)
//   expired_blockhash     the base class: block height passed lastValidBlockHeight, never landed
//   unknown               not even expiry can be shown (durable-nonce attempts, or a lastValidBlockHeight
//                         the chain never reaches), not seen long after the send

import { wilson } from "../../analytics/stats";
import type { Attempt, DropDiagnosis, Evidence, Outcome } from "./types";

export const DROP_CLASSES = [
  "superseded_by_retry",
  "stale_blockhash_at_send",
  "rpc_not_forwarding",
  "network_congestion",
  "priority_fee_too_low",
  "expired_blockhash",
  "unknown",
] as const;
export type DropClass = (typeof DROP_CLASSES)[number];

/** A resolved send attempt near the one being classified. */
export type Neighbour = { sig: string | null; payer: string; program: string; rpcHash: string; sentAt: number; outcome: Outcome; cuPriceMicroLamports: number | null };

export type DropContext = {
  /** Confirmed block height observed before the status look-up that found nothing. */
  heightAtExpiry: number;
  /** Estimated block height when the attempt was sent (null when unknown). */
  heightAtSend: number | null;
  /** Resolved sends around the attempt (± 30 min), including this run's. */
  neighbours: Neighbour[];
};

const RETRY_WINDOW_MS = 90_000;
const STALE_BLOCKS_LEFT = 20; // ≈ 8 s at 400 ms blocks: a client that sends this late rarely lands
const PROVIDER_WINDOW_MS = 15 * 60_000;
const MIN_SAMPLES = 20;

export function classifyDrop(attempt: Attempt, context: DropContext): DropDiagnosis {
  const expiry: Evidence = {
    kind: "blockhash_expired",
    detail: `confirmed block height ${context.heightAtExpiry} passed lastValidBlockHeight ${attempt.lastValidBlockHeight}; two status look-ups after expiry found no transaction`,
    value: context.heightAtExpiry - attempt.lastValidBlockHeight,
  };

  // A retry is the payer's very next attempt at the same program, sent within the blockhash lifetime,
  // that reached the chain, and the only one of that payer at that program that did so around it: a
  // busy payer (a bot, a power user) landing other work is not evidence of a retry.
  const samePayer = context.neighbours.filter((n) => n.sig !== attempt.sig && n.payer === attempt.payer && n.program === attempt.program && Math.abs(n.sentAt - attempt.sentAt) <= RETRY_WINDOW_MS);
  const reachedChain = (n: Neighbour) => n.outcome === "landed" || n.outcome === "failed_onchain";
  const next = samePayer.filter((n) => n.sentAt > attempt.sentAt).sort((a, b) => a.sentAt - b.sentAt)[0];
  const retry = next && reachedChain(next) && samePayer.filter(reachedChain).length === 1 ? next : null;
  if (retry) {
    return {
      dropClass: "superseded_by_retry",
      confidence: 0.9,
      evidence: [expiry, { kind: "landed_retry", detail: `the same payer's attempt at this program ${retry.outcome === "landed" ? "landed" : "landed (and failed)"} ${Math.round((retry.sentAt - attempt.sentAt) / 1000)} s later`, value: retry.sig }],
    };
  }

  if (context.heightAtSend !== null) {
    const blocksLeft = attempt.lastValidBlockHeight - context.heightAtSend;
    if (blocksLeft <= STALE_BLOCKS_LEFT) {
      return {
        dropClass: "stale_blockhash_at_send",
        confidence: blocksLeft <= 0 ? 0.85 : 0.65,
        evidence: [expiry, { kind: "blocks_left_at_send", detail: `about ${blocksLeft} blocks of validity were left when it was sent (estimated block height ${context.heightAtSend})`, value: blocksLeft }],
      };
    }
  }

  const sends = context.neighbours.filter((n) => Math.abs(n.sentAt - attempt.sentAt) <= PROVIDER_WINDOW_MS && n.outcome !== "preflight");
  const mine = sends.filter((n) => n.rpcHash === attempt.rpcHash);
  const others = sends.filter((n) => n.rpcHash !== attempt.rpcHash);
  const drops = (list: Neighbour[]) => list.filter((n) => n.outcome === "dropped").length;
  if (mine.length >= MIN_SAMPLES && others.length >= MIN_SAMPLES) {
    const mineInterval = wilson(drops(mine), mine.length);
    const othersInterval = wilson(drops(others), others.length);
    const mineRate = drops(mine) / mine.length;
    const othersRate = drops(others) / others.length;
    if (mineInterval[0] > othersInterval[1] && mineRate >= 2 * othersRate) {
      return {
        dropClass: "rpc_not_forwarding",
        confidence: Math.min(0.9, 0.6 + (mineInterval[0] - othersInterval[1])),
        evidence: [
          expiry,
          { kind: "provider_drop_rate", detail: `${attempt.rpcLabel} dropped ${drops(mine)} of ${mine.length} sends within 15 min (95% CI ${pct(mineInterval[0])}–${pct(mineInterval[1])})`, value: round(mineRate) },
          { kind: "other_providers_drop_rate", detail: `other providers dropped ${drops(others)} of ${others.length} in the same window (95% CI ${pct(othersInterval[0])}–${pct(othersInterval[1])})`, value: round(othersRate) },
        ],
      };
    }
  }

  const minute = sends.filter((n) => Math.abs(n.sentAt - attempt.sentAt) <= 60_000);
  const around = sends.filter((n) => Math.abs(n.sentAt - attempt.sentAt) > 60_000);
  if (minute.length >= MIN_SAMPLES && around.length >= MIN_SAMPLES) {
    const minuteRate = drops(minute) / minute.length;
    const baseline = drops(around) / around.length;
    if (minuteRate >= Math.max(0.2, 3 * baseline)) {
      return {
        dropClass: "network_congestion",
        confidence: 0.6,
        evidence: [
          expiry,
          { kind: "minute_drop_rate", detail: `${drops(minute)} of ${minute.length} sends across all providers were dropped within a minute of it`, value: round(minuteRate) },
          { kind: "baseline_drop_rate", detail: `the surrounding 30 minutes dropped ${drops(around)} of ${around.length}`, value: round(baseline) },
        ],
      };
    }
  }

  if (attempt.cuPriceMicroLamports !== null) {
    const landedPrices = sends
      .filter((n) => n.program === attempt.program && n.outcome !== "dropped" && n.cuPriceMicroLamports !== null && Math.abs(n.sentAt - attempt.sentAt) <= 5 * 60_000)
      .map((n) => n.cuPriceMicroLamports!)
      .sort((a, b) => a - b);
    if (landedPrices.length >= 10) {
      const p25 = landedPrices[Math.floor(landedPrices.length * 0.25)];
      if (attempt.cuPriceMicroLamports < p25) {
        return {
          dropClass: "priority_fee_too_low",
          confidence: 0.55,
          evidence: [
            expiry,
            { kind: "cu_price", detail: `it offered ${attempt.cuPriceMicroLamports} µlamports/CU`, value: attempt.cuPriceMicroLamports },
            { kind: "landed_peers_cu_price_p25", detail: `a quarter of the ${landedPrices.length} attempts at this program that landed within 5 min paid less than ${p25}; three quarters paid more`, value: p25 },
          ],
        };
      }
    }
  }

  return { dropClass: "expired_blockhash", confidence: 0.5, evidence: [expiry] };
}

/**
 * Not found on chain long after it was sent, but expiry cannot be shown: a durable-nonce attempt
 * (no blockhash expiry), or one whose lastValidBlockHeight the chain has not reached (a client bug).
 */
export function unknownDrop(attempt: Attempt, waitedMs: number): DropDiagnosis {
  const minutes = Math.round(waitedMs / 60_000);
  return {
    dropClass: "unknown",
    confidence: 0.3,
    evidence: [
      attempt.nonce
        ? { kind: "nonce_not_seen", detail: `durable-nonce transaction not found on chain ${minutes} min after it was sent`, value: waitedMs }
        : { kind: "not_seen", detail: `not found on chain ${minutes} min after it was sent, and the chain has not reached its lastValidBlockHeight ${attempt.lastValidBlockHeight}`, value: waitedMs },
    ],
  };
}

/** Advice a developer can act on, per class (diagnose-drop). */
export const DROP_ADVICE: Record<DropClass, string> = {
  superseded_by_retry: "Harmless: a retry of the same intent landed. Consider cancelling outstanding retries once one confirms to save fees and load.",
  stale_blockhash_at_send: "Fetch the blockhash right before signing (commitment 'confirmed'), and re-sign with a fresh one instead of re-sending after ~60 s.",
  rpc_not_forwarding: "This provider is not getting transactions to leaders as often as others: send through a second provider or a staked/landing service, and rebroadcast until lastValidBlockHeight.",
  network_congestion: "Drops spiked network-wide: raise the compute-unit price (getRecentPrioritizationFees on your writable accounts) and keep rebroadcasting until expiry.",
  priority_fee_too_low: "Peers that landed paid more per compute unit: raise cuPriceMicroLamports and set a tight SetComputeUnitLimit so the fee buys priority.",
  expired_blockhash: "The transaction never landed before its blockhash expired: rebroadcast until lastValidBlockHeight (maxRetries 0 + your own loop), add a priority fee, and check the provider report.",
  unknown: "No chain evidence: for durable-nonce transactions check whether the nonce account advanced.",
};

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const round = (value: number) => Math.round(value * 10_000) / 10_000;
