// The drop classifier as one filter over the whole neighbour list per attempt (as it was before
// neighbours were indexed, with the rules since: the provider's rows in every diagnosis, no client
// blame the provider explains better, a fee blamed only where cheap sends dropped more): the oracle
// for drops-index.test.ts and the "before" side of bench/drops.ts. Also a generator of runs that
// reach every drop class.

import type { Attempt, DropDiagnosis, Evidence } from "../../../src/chain/resolve";
import type { DropContext, DropItem, Neighbour } from "../../../src/chain/resolve/drops";
import { wilson } from "../../../src/shared/stats";

const RETRY_WINDOW_MS = 90_000;
const STALE_BLOCKS_LEFT = 20;
const PROVIDER_WINDOW_MS = 15 * 60_000;
const MIN_SAMPLES = 20;
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const round = (value: number) => Math.round(value * 10_000) / 10_000;

export function referenceClassifyDrop(attempt: Attempt, context: DropContext): DropDiagnosis {
  const expiry: Evidence = {
    kind: "blockhash_expired",
    detail: `confirmed block height ${context.heightAtExpiry} passed lastValidBlockHeight ${attempt.lastValidBlockHeight}; two status look-ups after expiry found no transaction`,
    value: context.heightAtExpiry - attempt.lastValidBlockHeight,
  };

  const sends = context.neighbours.filter(
    (n) => Math.abs(n.sentAt - attempt.sentAt) <= PROVIDER_WINDOW_MS && n.outcome !== "preflight",
  );
  const mine = sends.filter((n) => n.rpcHash === attempt.rpcHash);
  const others = sends.filter((n) => n.rpcHash !== attempt.rpcHash);
  const drops = (list: Neighbour[]) => list.filter((n) => n.outcome === "dropped").length;
  const mineInterval = wilson(drops(mine), mine.length);
  const othersInterval = wilson(drops(others), others.length);
  const worse = mine.length > 0 && others.length > 0 && mineInterval[0] > othersInterval[1];
  const providerRows: Evidence[] = [
    {
      kind: "provider_drop_rate",
      detail:
        mine.length > 0
          ? `${attempt.rpcLabel} dropped ${drops(mine)} of ${mine.length} sends within 15 min (95% CI ${pct(mineInterval[0])}–${pct(mineInterval[1])})`
          : `no sends through ${attempt.rpcLabel} within 15 min to measure its drop rate`,
      value: mine.length > 0 ? round(drops(mine) / mine.length) : null,
    },
    {
      kind: "other_providers_drop_rate",
      detail:
        others.length > 0
          ? `other providers dropped ${drops(others)} of ${others.length} in the same window (95% CI ${pct(othersInterval[0])}–${pct(othersInterval[1])})`
          : "no sends through other providers within 15 min to compare with",
      value: others.length > 0 ? round(drops(others) / others.length) : null,
    },
  ];

  // A retry is the payer's very next attempt at the same program, sent within the blockhash lifetime,
  // that reached the chain, and the only one of that payer at that program that did so around it: a
  // busy payer (a bot, a power user) landing other work is not evidence of a retry.
  const samePayer = context.neighbours.filter(
    (n) =>
      n.sig !== attempt.sig &&
      n.payer === attempt.payer &&
      n.program === attempt.program &&
      Math.abs(n.sentAt - attempt.sentAt) <= RETRY_WINDOW_MS,
  );
  const reachedChain = (n: Neighbour) => n.outcome === "landed" || n.outcome === "failed_onchain";
  const next = samePayer.filter((n) => n.sentAt > attempt.sentAt).sort((a, b) => a.sentAt - b.sentAt)[0];
  const retry = next && reachedChain(next) && samePayer.filter(reachedChain).length === 1 ? next : null;
  if (retry) {
    return {
      dropClass: "superseded_by_retry",
      confidence: 0.9,
      evidence: [
        expiry,
        {
          kind: "landed_retry",
          detail: `the same payer's attempt at this program ${retry.outcome === "landed" ? "landed" : "landed (and failed)"} ${Math.round((retry.sentAt - attempt.sentAt) / 1000)} s later`,
          value: retry.sig,
        },
        ...providerRows,
      ],
    };
  }

  if (context.heightAtSend !== null) {
    const blocksLeft = attempt.lastValidBlockHeight - context.heightAtSend;
    if (blocksLeft <= STALE_BLOCKS_LEFT && (blocksLeft <= 0 || !worse)) {
      return {
        dropClass: "stale_blockhash_at_send",
        confidence: blocksLeft <= 0 ? 0.85 : 0.65,
        evidence: [
          expiry,
          {
            kind: "blocks_left_at_send",
            detail: `about ${blocksLeft} blocks of validity were left when it was sent (estimated block height ${context.heightAtSend})`,
            value: blocksLeft,
          },
          ...providerRows,
        ],
      };
    }
  }

  if (mine.length >= MIN_SAMPLES && others.length >= MIN_SAMPLES) {
    const mineRate = drops(mine) / mine.length;
    const othersRate = drops(others) / others.length;
    if (worse && mineRate >= 2 * othersRate) {
      return {
        dropClass: "rpc_not_forwarding",
        confidence: Math.min(0.9, 0.6 + (mineInterval[0] - othersInterval[1])),
        evidence: [expiry, ...providerRows],
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
          {
            kind: "minute_drop_rate",
            detail: `${drops(minute)} of ${minute.length} sends across all providers were dropped within a minute of it`,
            value: round(minuteRate),
          },
          {
            kind: "baseline_drop_rate",
            detail: `the surrounding 30 minutes dropped ${drops(around)} of ${around.length}`,
            value: round(baseline),
          },
          ...providerRows,
        ],
      };
    }
  }

  if (attempt.cuPriceMicroLamports !== null && !worse) {
    const landedPrices = sends
      .filter(
        (n) =>
          n.program === attempt.program &&
          n.outcome !== "dropped" &&
          n.cuPriceMicroLamports !== null &&
          Math.abs(n.sentAt - attempt.sentAt) <= 5 * 60_000,
      )
      .map((n) => n.cuPriceMicroLamports!)
      .sort((a, b) => a - b);
    if (landedPrices.length >= 10) {
      const p25 = landedPrices[Math.floor(landedPrices.length * 0.25)];
      const priced = (outcome: "dropped" | "landed") =>
        sends.filter(
          (n) =>
            n.program === attempt.program &&
            (n.outcome === "dropped") === (outcome === "dropped") &&
            n.cuPriceMicroLamports !== null &&
            Math.abs(n.sentAt - attempt.sentAt) <= 5 * 60_000,
        );
      const droppedPriced = priced("dropped");
      const droppedBelow = droppedPriced.filter((n) => n.cuPriceMicroLamports! < p25).length;
      const landedBelow = landedPrices.filter((p) => p < p25).length;
      const droppedInterval = wilson(droppedBelow, droppedPriced.length);
      const landedInterval = wilson(landedBelow, landedPrices.length);
      const cheapDropMore = droppedPriced.length > 0 && droppedInterval[0] > landedInterval[1];
      if (attempt.cuPriceMicroLamports < p25 && cheapDropMore) {
        return {
          dropClass: "priority_fee_too_low",
          confidence: 0.55,
          evidence: [
            expiry,
            {
              kind: "cu_price",
              detail: `it offered ${attempt.cuPriceMicroLamports} µlamports/CU`,
              value: attempt.cuPriceMicroLamports,
            },
            {
              kind: "landed_peers_cu_price_p25",
              detail: `a quarter of the ${landedPrices.length} attempts at this program that landed within 5 min paid less than ${p25}; three quarters paid more`,
              value: p25,
            },
            {
              kind: "cheap_sends_dropped",
              detail: `${droppedBelow} of the ${droppedPriced.length} priced drops at this program within 5 min paid less than ${p25} (95% CI ${pct(droppedInterval[0])}–${pct(droppedInterval[1])}), against ${landedBelow} of the ${landedPrices.length} that landed (95% CI ${pct(landedInterval[0])}–${pct(landedInterval[1])})`,
              value: round(droppedBelow / droppedPriced.length),
            },
            ...providerRows,
          ],
        };
      }
    }
  }

  return { dropClass: "expired_blockhash", confidence: 0.5, evidence: [expiry, ...providerRows] };
}

/** A deterministic pseudo-random source (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A run like the resolver's: `drops` dropped attempts and `neighbours` resolved sends over ~40 min,
 * a few payers and programs (so retries and busy payers occur), one provider that drops far more,
 * a congested minute, priced and unpriced sends (the cheapest dropped more often, as a fee that is too
 * low would), whole-second send times (ties), some preflight
 * rows and missing signatures; the dropped attempts are also neighbours, as in resolvePending.
 */
export function generateRun(
  drops: number,
  neighbours: number,
  seed = 1,
): { items: DropItem[]; neighbours: Neighbour[] } {
  const random = seeded(seed);
  const T = 1_763_700_000_000;
  const span = 40 * 60_000;
  const pick = <X>(values: X[]) => values[Math.floor(random() * values.length)];
  const payers = Array.from({ length: Math.max(5, Math.floor((drops + neighbours) / 40)) }, (_, i) => `payer-${i}`);
  const programs = ["P1", "P2", "P3"];
  const providers = ["bad0000000000000", "good000000000001", "good000000000002"];
  const congested = T + span / 2;
  const sentAt = () => T + Math.floor((random() * span) / 1000) * 1000;
  const price = () => (random() < 0.3 ? null : Math.floor(random() * 20) * 500);
  const cheapPrice = () => Math.floor(random() * 4) * 500;
  const list: Neighbour[] = [];
  for (let i = 0; i < neighbours; i++) {
    const rpcHash = pick(providers);
    const at = random() < 0.1 ? congested + Math.floor(random() * 60) * 1000 : sentAt();
    const cuPrice = price();
    const dropChance =
      (Math.abs(at - congested) <= 60_000 ? 0.6 : rpcHash === providers[0] ? 0.2 : 0.05) +
      (cuPrice !== null && cuPrice < 2000 ? 0.3 : 0);
    const roll = random();
    const outcome: Neighbour["outcome"] =
      roll < 0.03 ? "preflight" : roll < 0.03 + dropChance ? "dropped" : roll < 0.95 ? "landed" : "failed_onchain";
    list.push({
      sig: random() < 0.02 ? null : `n${i}`,
      payer: pick(payers),
      program: pick(programs),
      rpcHash,
      sentAt: at,
      outcome,
      cuPriceMicroLamports: cuPrice,
    });
  }
  const items: DropItem[] = [];
  for (let i = 0; i < drops; i++) {
    const rpcHash = pick(providers);
    const at = random() < 0.1 ? congested + Math.floor(random() * 60) * 1000 : sentAt();
    const attempt: Attempt = {
      attemptId: `a${i}`,
      accountId: "acc",
      program: pick(programs),
      sig: random() < 0.01 ? null : `d${i}`,
      lastValidBlockHeight: 10_000 + i,
      sentAt: at,
      rpcHash,
      rpcLabel: rpcHash.slice(0, 4),
      payer: pick(payers),
      cuPriceMicroLamports: random() < 0.5 ? price() : cheapPrice(),
      nonce: false,
      kind: "send",
      receivedAt: at,
      cuLimit: null,
      ixPrefix: null,
      preflightError: null,
      simulationLogs: null,
    };
    const heightAtSend = random() < 0.3 ? null : attempt.lastValidBlockHeight - Math.floor(random() * 200) + 5;
    items.push({ attempt, heightAtExpiry: attempt.lastValidBlockHeight + 1 + Math.floor(random() * 5), heightAtSend });
    list.push({
      sig: attempt.sig,
      payer: attempt.payer,
      program: attempt.program,
      rpcHash,
      sentAt: at,
      outcome: "dropped",
      cuPriceMicroLamports: attempt.cuPriceMicroLamports,
    });
  }
  return { items, neighbours: list };
}

export type { DropContext, DropDiagnosis, Evidence };
