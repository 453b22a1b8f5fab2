// Drop classification (docs/architecture.md "Outcomes, drops and issues", docs/solana.md "What the chain can show"). A
// dropped attempt never reached the chain, so the
// chain cannot say why; the class is inferred from what txray saw around it, and every diagnosis
// lists the evidence rows that decided it, ending with its provider's measured drop rate and the
// other providers' (sample sizes and 95% intervals) whatever the class. A class that blames the
// client is chosen only when its evidence beats the provider as the explanation. Classes, strongest
// evidence first:
//   superseded_by_retry   the same payer's attempt at the same program landed under another
//                         signature within the blockhash lifetime: a harmless drop
//   stale_blockhash_at_send  the blockhash had (almost) no blocks left when the attempt was sent, by
//                         a block height interpolated between heights observed while the chain
//                         answered (estimateHeightAt); with blocks left, not when the provider drops
//                         significantly more than the others
//   rpc_not_forwarding    the attempt's provider dropped far more than the other providers in the
//                         same window (Wilson intervals do not overlap, ≥ 2× the rate)
//   network_congestion    drops spiked across all providers in the same minute
//   priority_fee_too_low  attempts at the same program that landed around it paid a clearly higher
//                         compute-unit price, AND sends paying that little were dropped more often
//                         than sends paying more (intervals apart), AND its provider does not drop
//                         significantly more than the others (needs the envelope's cuPriceMicroLamports)
//   expired_blockhash     the base class: block height passed lastValidBlockHeight, never landed
//   nonce_advanced        a durable-nonce attempt whose nonce account advanced past the nonce it was
//                         signed against, never landed (lifetime.ts)
//   unknown               not even expiry can be shown (durable-nonce attempts, or a lastValidBlockHeight
//                         the chain never reaches), not seen long after the send

import { wilson } from "../../shared/stats";
import type { Attempt, DropDiagnosis, Evidence, Outcome } from "./types";

export const DROP_CLASSES = [
  "superseded_by_retry",
  "stale_blockhash_at_send",
  "rpc_not_forwarding",
  "network_congestion",
  "priority_fee_too_low",
  "expired_blockhash",
  "nonce_advanced",
  "unknown",
] as const;
export type DropClass = (typeof DROP_CLASSES)[number];

/** A resolved send attempt near the one being classified. */
export type Neighbour = {
  sig: string | null;
  payer: string;
  program: string;
  rpcHash: string;
  sentAt: number;
  outcome: Outcome;
  cuPriceMicroLamports: number | null;
};

export type DropContext = {
  /** Confirmed block height observed before the status look-up that found nothing. */
  heightAtExpiry: number;
  /** Estimated block height when the attempt was sent (null when unknown). */
  heightAtSend: number | null;
  /** Resolved sends around the attempt (within NEIGHBOUR_WINDOW_MS), including this run's. */
  neighbours: Neighbour[];
};

const RETRY_WINDOW_MS = 90_000;
/** The retry check looks at the payer's attempts at the same program this close to the drop. */
export const SAME_PAYER_WINDOW_MS = RETRY_WINDOW_MS;
const STALE_BLOCKS_LEFT = 20; // blocks, not seconds (slot times change): a client that sends this late rarely lands
const PROVIDER_WINDOW_MS = 15 * 60_000;
/**
 * No class looks further from the attempt than this (the provider and congestion windows): neighbours beyond it change
 * nothing.
 */
export const NEIGHBOUR_WINDOW_MS = PROVIDER_WINDOW_MS;
const MIN_SAMPLES = 20;

/** A block height the chain answered, at the time its answer arrived (the resolver records only prompt answers). */
export type HeightObservation = { observed_at: number; height: number };
/**
 * The longest span between two observations a send time is interpolated across: a longer gap is a
 * time the chain was not asked or did not answer (an outage, a stall), where heights say nothing.
 */
export const HEIGHT_SPAN_MS = 2 * 60_000;
/** The longest wait for a getBlockHeight answer that is still a height at the time it arrived. */
export const HEIGHT_ANSWER_MS = 2_000;

/**
 * Block height at a past time, interpolated between the observations just before and just after it,
 * when both are at most HEIGHT_SPAN_MS apart and no RPC request failed between them (`failedWithin`,
 * the resolver's chain health): else null, and no class that judges the client's blockhash is claimed.
 * `samples` ascending by time, unique times.
 */
export function estimateHeightAt(
  samples: HeightObservation[],
  at: number,
  failedWithin: (from: number, to: number) => boolean = () => false,
): number | null {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid].observed_at <= at) lo = mid + 1;
    else hi = mid;
  }
  const before = lo > 0 ? samples[lo - 1] : undefined;
  const after = lo < samples.length ? samples[lo] : undefined;
  if (!before || !after || after.observed_at - before.observed_at > HEIGHT_SPAN_MS || after.height < before.height)
    return null;
  if (failedWithin(before.observed_at, after.observed_at)) return null;
  const perMs = (after.height - before.height) / (after.observed_at - before.observed_at);
  return Math.round(before.height + (at - before.observed_at) * perMs);
}

export type DropItem = { attempt: Attempt; heightAtExpiry: number; heightAtSend: number | null };

/** One attempt against its neighbours. For many attempts, use classifyDrops (same answers, one index). */
export function classifyDrop(attempt: Attempt, context: DropContext): DropDiagnosis {
  return classifyDrops(
    [{ attempt, heightAtExpiry: context.heightAtExpiry, heightAtSend: context.heightAtSend }],
    context.neighbours,
  )[0];
}

/**
 * Classifies a run's drops against one shared neighbour list. The neighbours are indexed once
 * (sorted by send time overall, per provider, per payer+program, and landed prices per program),
 * so each attempt costs a few binary searches instead of filtering the whole list: a run with
 * thousands of drops among hundreds of thousands of neighbours stays n log n. The answers are
 * exactly those of the per-attempt filters this replaced (test/chain/resolve/drops-index.test.ts).
 */
export function classifyDrops(items: DropItem[], neighbours: Neighbour[]): DropDiagnosis[] {
  const sends = new SendColumns();
  for (const n of neighbours)
    if (n.outcome !== "preflight") sends.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
  return classifyDropsFrom(items, { samePayerProgram: neighbours, sends });
}

/** What the retry check reads of a send by the same payer at the same program. */
export type SamePayerSend = Pick<Neighbour, "sig" | "payer" | "program" | "sentAt" | "outcome">;

/**
 * What classification reads about a run's neighbours, in the form a busy instance can afford:
 * signature, time and outcome only for the drops' own payer+program pairs (the retry check), and
 * every other send in the window as columns (time, provider, program, outcome, price), which is all
 * the rate and fee checks use. At 2,000 sends/s the window holds millions of sends; as objects they
 * cost hundreds of megabytes per run.
 */
export type NeighbourSet = {
  /** Neighbours sharing a payer and program with a drop (any others are ignored by the retry check). */
  samePayerProgram: SamePayerSend[];
  /**
   * More of them: the held sends of the drops' pairs sent within [from, to] (recent-sends.ts), ordered before the
   * listed ones on equal times.
   */
  heldSamePayer?: { sends: HistoryPairs; from: number; to: number };
  /** Every non-preflight neighbour (but those in `held`). */
  sends: SendColumns;
  /**
   * More of them: the resolver's recent sends (recent-sends.ts) sent within [from, to], whose counts are kept as they
   * come.
   */
  held?: { sends: HistoryCounts; from: number; to: number };
};

type Counts = { count: number; drops: number };

/** What classification asks of sends held between runs (send-history.ts implements it). */
export interface HistoryCounts {
  /** Sends and drops sent within [from, to]. */
  window(from: number, to: number): Counts;
  /** The same, for one provider's sends. */
  providerWindow(rpcHash: string, from: number, to: number): Counts;
  /** Prices of one program's sends that reached the chain, sent within [from, to]: runs, each in send-time order. */
  landedPrices(program: string, from: number, to: number): PriceRun[];
  /** The same for its dropped sends (the fee check compares the two). */
  droppedPrices(program: string, from: number, to: number): PriceRun[];
}

/**
 * Rows [start, end) of a program's landed sends' times and prices, in send-time order: a view of
 * where they are held, not a copy (the fee check's window holds millions at 20,000 sends/s, read
 * in place; it treats its runs as one multiset, so they are never merged).
 */
export type PriceRun = { times: ArrayLike<number>; prices: ArrayLike<number>; start: number; end: number };

/** One payer+program pair's sends, in send-time order, as columns. */
export type PairSends = { times: number[]; sigs: (string | null)[]; outcomes: Outcome[] };

/** What the retry check asks of sends held between runs (send-history.ts implements it). */
export interface HistoryPairs {
  /** The held sends of one payer+program pair (payerProgramKey) sent within [from, to], in send-time order. */
  pairSends(key: string, from: number, to: number): PairSends;
}

/** How many sends a neighbour set holds. */
export function sendCount(neighbours: NeighbourSet): number {
  const held = neighbours.held;
  return neighbours.sends.length + (held ? held.sends.window(held.from, held.to).count : 0);
}

/** Non-preflight sends as parallel columns; strings are expected to be shared (interned) by the caller. */
export class SendColumns {
  readonly times: number[] = [];
  readonly providers: string[] = [];
  readonly programs: string[] = [];
  readonly outcomes: Outcome[] = [];
  readonly prices: (number | null)[] = [];
  push(sentAt: number, rpcHash: string, program: string, outcome: Outcome, price: number | null): void {
    this.times.push(sentAt);
    this.providers.push(rpcHash);
    this.programs.push(program);
    this.outcomes.push(outcome);
    this.prices.push(price);
  }
  get length(): number {
    return this.times.length;
  }
  /** Row positions in send-time order, ties in insertion order (no sort when already in order). */
  timeOrder(): ArrayLike<number> {
    const n = this.times.length;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if (this.times[i] < this.times[i - 1]) sorted = false;
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    if (!sorted) order.sort((a, b) => this.times[a] - this.times[b] || a - b);
    return order;
  }
}

export function classifyDropsFrom(items: DropItem[], neighbours: NeighbourSet): DropDiagnosis[] {
  // The fee check looks FEE_WINDOW_MS around each drop, the provider check three times as far:
  // landed prices are only collected where a fee check can look (a third of a busy window).
  let first = Infinity;
  let last = -Infinity;
  for (const { attempt } of items) {
    first = Math.min(first, attempt.sentAt);
    last = Math.max(last, attempt.sentAt);
  }
  const keys = new Set(items.map(({ attempt }) => payerProgramKey(attempt.payer, attempt.program)));
  const index = indexNeighbours(neighbours, { from: first - FEE_WINDOW_MS, to: last + FEE_WINDOW_MS }, keys);
  const providers = items.map(({ attempt }) => compareProvider(attempt, index));
  const results: (DropDiagnosis | null)[] = items.map((item, i) => classifyBeforeFees(item, index, providers[i]));
  // priority_fee_too_low needs the 25th percentile of landed prices in a sliding window, and how many
  // landed and dropped sends paid less than it: answered per program, attempts in send-time order,
  // with counting trees over price ranks. A provider dropping significantly more than the others
  // explains a drop better than its price: no fee check then.
  const feeChecks = new Map<string, number[]>();
  items.forEach((item, i) => {
    if (results[i] !== null || item.attempt.cuPriceMicroLamports === null || providers[i].significantlyWorse) return;
    const list = feeChecks.get(item.attempt.program) ?? [];
    list.push(i);
    feeChecks.set(item.attempt.program, list);
  });
  for (const [program, indices] of feeChecks) {
    const landedRuns = index.landedPrices(program);
    const droppedRuns = index.droppedPrices(program);
    const ranks = rankPrices([...landedRuns, ...droppedRuns]);
    const landed = new SlidingRuns(landedRuns, ranks.rankOf.slice(0, landedRuns.length), ranks.values.length);
    const dropped = new SlidingRuns(droppedRuns, ranks.rankOf.slice(landedRuns.length), ranks.values.length);
    indices.sort((a, b) => items[a].attempt.sentAt - items[b].attempt.sentAt);
    for (const i of indices) {
      const { attempt } = items[i];
      const count = landed.slideTo(attempt.sentAt - FEE_WINDOW_MS, attempt.sentAt + FEE_WINDOW_MS);
      const droppedCount = dropped.slideTo(attempt.sentAt - FEE_WINDOW_MS, attempt.sentAt + FEE_WINDOW_MS);
      if (count < 10) continue;
      const p25Rank = landed.tree.kth(Math.floor(count * 0.25));
      const p25 = ranks.values[p25Rank];
      if (attempt.cuPriceMicroLamports! >= p25) continue;
      const cheap = priceEvidence(
        { below: dropped.tree.prefix(p25Rank), count: droppedCount },
        { below: landed.tree.prefix(p25Rank), count },
        p25,
      );
      if (cheap === null) continue;
      results[i] = {
        dropClass: "priority_fee_too_low",
        confidence: 0.55,
        evidence: [
          expiryEvidence(items[i]),
          {
            kind: "cu_price",
            detail: `it offered ${attempt.cuPriceMicroLamports} µlamports/CU`,
            value: attempt.cuPriceMicroLamports,
          },
          {
            kind: "landed_peers_cu_price_p25",
            detail: `a quarter of the ${count} attempts at this program that landed within 5 min paid less than ${p25}; three quarters paid more`,
            value: p25,
          },
          cheap,
          ...providers[i].rows,
        ],
      };
    }
  }
  return results.map(
    (result, i) =>
      result ?? {
        dropClass: "expired_blockhash",
        confidence: 0.5,
        evidence: [expiryEvidence(items[i]), ...providers[i].rows],
      },
  );
}

/**
 * The evidence that price decided drops around it: sends at this program paying less than the landed
 * 25th percentile were dropped more often than landed sends paid that little (95% intervals apart);
 * null when they were not (a price that drops as often as any other says nothing about the fee).
 */
function priceEvidence(
  dropped: { below: number; count: number },
  landed: { below: number; count: number },
  p25: number,
): Evidence | null {
  if (dropped.count === 0) return null;
  const droppedInterval = wilson(dropped.below, dropped.count);
  const landedInterval = wilson(landed.below, landed.count);
  if (droppedInterval[0] <= landedInterval[1]) return null;
  return {
    kind: "cheap_sends_dropped",
    detail: `${dropped.below} of the ${dropped.count} priced drops at this program within 5 min paid less than ${p25} (95% CI ${pct(droppedInterval[0])}–${pct(droppedInterval[1])}), against ${landed.below} of the ${landed.count} that landed (95% CI ${pct(landedInterval[0])}–${pct(landedInterval[1])})`,
    value: round(dropped.below / dropped.count),
  };
}

/** The attempt's provider against the others within PROVIDER_WINDOW_MS: the evidence rows every diagnosis ends with. */
type ProviderComparison = {
  mine: Counts;
  others: Counts;
  mineInterval: [number, number];
  othersInterval: [number, number];
  /** Its drop rate's interval lies above the others' (any sample size: the interval carries it). */
  significantlyWorse: boolean;
  rows: Evidence[];
};

function compareProvider(attempt: Attempt, index: NeighbourIndex): ProviderComparison {
  const sends = index.window(attempt.sentAt - PROVIDER_WINDOW_MS, attempt.sentAt + PROVIDER_WINDOW_MS);
  const mine = index.providerWindow(
    attempt.rpcHash,
    attempt.sentAt - PROVIDER_WINDOW_MS,
    attempt.sentAt + PROVIDER_WINDOW_MS,
  );
  const others = { count: sends.count - mine.count, drops: sends.drops - mine.drops };
  const mineInterval = wilson(mine.drops, mine.count);
  const othersInterval = wilson(others.drops, others.count);
  return {
    mine,
    others,
    mineInterval,
    othersInterval,
    significantlyWorse: mine.count > 0 && others.count > 0 && mineInterval[0] > othersInterval[1],
    rows: [
      {
        kind: "provider_drop_rate",
        detail:
          mine.count > 0
            ? `${attempt.rpcLabel} dropped ${mine.drops} of ${mine.count} sends within 15 min (95% CI ${pct(mineInterval[0])}–${pct(mineInterval[1])})`
            : `no sends through ${attempt.rpcLabel} within 15 min to measure its drop rate`,
        value: mine.count > 0 ? round(mine.drops / mine.count) : null,
      },
      {
        kind: "other_providers_drop_rate",
        detail:
          others.count > 0
            ? `other providers dropped ${others.drops} of ${others.count} in the same window (95% CI ${pct(othersInterval[0])}–${pct(othersInterval[1])})`
            : "no sends through other providers within 15 min to compare with",
        value: others.count > 0 ? round(others.drops / others.count) : null,
      },
    ],
  };
}

/** Rows of price runs within a window that slides forward: each row added and removed once, counted per price rank. */
class SlidingRuns {
  readonly tree: CountTree;
  private readonly lo: number[];
  private readonly hi: number[];
  constructor(
    private readonly runs: PriceRun[],
    private readonly rankOf: Int32Array[],
    ranks: number,
  ) {
    this.tree = new CountTree(ranks);
    this.lo = runs.map((run) => run.start);
    this.hi = runs.map((run) => run.start);
  }
  /** Moves the window to [from, to] (never backwards) and answers how many rows it holds. */
  slideTo(from: number, to: number): number {
    let count = 0;
    for (let r = 0; r < this.runs.length; r++) {
      const { times, end, start } = this.runs[r];
      const rankOf = this.rankOf[r];
      while (this.hi[r] < end && times[this.hi[r]] <= to) this.tree.add(rankOf[this.hi[r]++ - start], 1);
      while (this.lo[r] < this.hi[r] && times[this.lo[r]] < from) this.tree.add(rankOf[this.lo[r]++ - start], -1);
      count += this.hi[r] - this.lo[r];
    }
    return count;
  }
}

function expiryEvidence({ attempt, heightAtExpiry }: DropItem): Evidence {
  return {
    kind: "blockhash_expired",
    detail: `confirmed block height ${heightAtExpiry} passed lastValidBlockHeight ${attempt.lastValidBlockHeight}; two status look-ups after expiry found no transaction`,
    value: heightAtExpiry - attempt.lastValidBlockHeight,
  };
}

/** Every class but priority_fee_too_low and the expired_blockhash fallback (null: none applies). */
function classifyBeforeFees(item: DropItem, index: NeighbourIndex, provider: ProviderComparison): DropDiagnosis | null {
  const { attempt } = item;

  // A retry is the payer's very next attempt at the same program, sent within the blockhash lifetime,
  // that reached the chain, and the only one of that payer at that program that did so around it: a
  // busy payer (a bot, a power user) landing other work is not evidence of a retry.
  const byPayer = index.byPayerProgram.get(payerProgramKey(attempt.payer, attempt.program));
  if (byPayer) {
    const from = lowerBound(byPayer.times, attempt.sentAt - RETRY_WINDOW_MS);
    const to = upperBound(byPayer.times, attempt.sentAt + RETRY_WINDOW_MS);
    // A busy payer has thousands of sends in the window: the prefix counts decide most cases without
    // walking them (none reached the chain: no retry; one: it is the retry if it is the next send).
    const reachedInWindow = byPayer.reachedBefore[to] - byPayer.reachedBefore[from];
    let retry: number | null = null;
    if (reachedInWindow === 1) {
      let k = Math.max(from, upperBound(byPayer.times, attempt.sentAt));
      while (k < to && byPayer.sigs[k] === attempt.sig) k++;
      if (k < to && reachedChain(byPayer.outcomes[k])) retry = k;
    } else if (reachedInWindow > 1) {
      let next = -1;
      let reached = 0;
      for (let k = from; k < to && reached < 2; k++) {
        if (byPayer.sigs[k] === attempt.sig) continue;
        if (next < 0 && byPayer.times[k] > attempt.sentAt) next = k;
        if (reachedChain(byPayer.outcomes[k])) reached++;
      }
      if (next >= 0 && reachedChain(byPayer.outcomes[next]) && reached === 1) retry = next;
    }
    if (retry !== null) {
      return {
        dropClass: "superseded_by_retry",
        confidence: 0.9,
        evidence: [
          expiryEvidence(item),
          {
            kind: "landed_retry",
            detail: `the same payer's attempt at this program ${byPayer.outcomes[retry] === "landed" ? "landed" : "landed (and failed)"} ${Math.round((byPayer.times[retry] - attempt.sentAt) / 1000)} s later`,
            value: byPayer.sigs[retry],
          },
          ...provider.rows,
        ],
      };
    }
  }

  // heightAtSend is null unless observed heights while the chain answered pin it (estimateHeightAt).
  // With blocks left, a provider dropping significantly more than the others explains it better.
  if (item.heightAtSend !== null) {
    const blocksLeft = attempt.lastValidBlockHeight - item.heightAtSend;
    if (blocksLeft <= STALE_BLOCKS_LEFT && (blocksLeft <= 0 || !provider.significantlyWorse)) {
      return {
        dropClass: "stale_blockhash_at_send",
        confidence: blocksLeft <= 0 ? 0.85 : 0.65,
        evidence: [
          expiryEvidence(item),
          {
            kind: "blocks_left_at_send",
            detail: `about ${blocksLeft} blocks of validity were left when it was sent (estimated block height ${item.heightAtSend})`,
            value: blocksLeft,
          },
          ...provider.rows,
        ],
      };
    }
  }

  const { mine, others, mineInterval, othersInterval } = provider;
  if (mine.count >= MIN_SAMPLES && others.count >= MIN_SAMPLES) {
    const mineRate = mine.drops / mine.count;
    const othersRate = others.drops / others.count;
    if (provider.significantlyWorse && mineRate >= 2 * othersRate) {
      return {
        dropClass: "rpc_not_forwarding",
        confidence: Math.min(0.9, 0.6 + (mineInterval[0] - othersInterval[1])),
        evidence: [expiryEvidence(item), ...provider.rows],
      };
    }
  }

  const sends = { count: mine.count + others.count, drops: mine.drops + others.drops };
  const minute = index.window(attempt.sentAt - 60_000, attempt.sentAt + 60_000);
  const around = { count: sends.count - minute.count, drops: sends.drops - minute.drops };
  if (minute.count >= MIN_SAMPLES && around.count >= MIN_SAMPLES) {
    const minuteRate = minute.drops / minute.count;
    const baseline = around.drops / around.count;
    if (minuteRate >= Math.max(0.2, 3 * baseline)) {
      return {
        dropClass: "network_congestion",
        confidence: 0.6,
        evidence: [
          expiryEvidence(item),
          {
            kind: "minute_drop_rate",
            detail: `${minute.drops} of ${minute.count} sends across all providers were dropped within a minute of it`,
            value: round(minuteRate),
          },
          {
            kind: "baseline_drop_rate",
            detail: `the surrounding 30 minutes dropped ${around.drops} of ${around.count}`,
            value: round(baseline),
          },
          ...provider.rows,
        ],
      };
    }
  }
  return null;
}

const FEE_WINDOW_MS = 5 * 60_000;
const reachedChain = (outcome: Outcome) => outcome === "landed" || outcome === "failed_onchain";
export const payerProgramKey = (payer: string, program: string) => `${payer}\u0000${program}`;

type NeighbourIndex = {
  /**
   * The drops' payer+program pairs' sends, each pair's in send-time order (held ones first, then the listed in list
   * order, on ties).
   */
  byPayerProgram: Map<string, PairIndex>;
  /** Non-preflight neighbours: counts and drops in a time window, over all providers and for one. */
  window(from: number, to: number): Counts;
  providerWindow(rpcHash: string, from: number, to: number): Counts;
  /**
   * Per program, neighbours that reached the chain (not dropped, not preflight) with a known price, within the fee
   * range: runs in send-time order.
   */
  landedPrices(program: string): PriceRun[];
  /** Per program, dropped neighbours with a known price within the fee range: runs in send-time order. */
  droppedPrices(program: string): PriceRun[];
};

/**
 * One payer+program pair's sends in send-time order, as columns; reachedBefore[k]: how many of [0, k) reached the
 * chain.
 */
type PairIndex = PairSends & { reachedBefore: number[] };

/**
 * The sends of each pair in `keys`: those held (already in send-time order, columns sliced from
 * what is held, no object per send: a busy payer has thousands around each run's drops) merged with
 * the listed ones.
 */
function indexPairs(neighbours: NeighbourSet, keys: ReadonlySet<string>): Map<string, PairIndex> {
  const listed = new Map<string, SamePayerSend[]>();
  for (const n of neighbours.samePayerProgram) {
    const key = payerProgramKey(n.payer, n.program);
    if (!keys.has(key)) continue;
    const list = listed.get(key);
    if (list) list.push(n);
    else listed.set(key, [n]);
  }
  const held = neighbours.heldSamePayer;
  const byPair = new Map<string, PairIndex>();
  for (const key of keys) {
    const fromHeld = held ? held.sends.pairSends(key, held.from, held.to) : null;
    const list = listed.get(key) ?? [];
    if ((fromHeld === null || fromHeld.times.length === 0) && list.length === 0) continue;
    // A stable sort: equal times keep the list's order (Array.prototype.sort is stable).
    for (let i = 1; i < list.length; i++) {
      if (list[i].sentAt < list[i - 1].sentAt) {
        list.sort((a, b) => a.sentAt - b.sentAt);
        break;
      }
    }
    const pair: PairIndex = { times: [], sigs: [], outcomes: [], reachedBefore: [0] };
    const add = (sentAt: number, sig: string | null, outcome: Outcome) => {
      pair.times.push(sentAt);
      pair.sigs.push(sig);
      pair.outcomes.push(outcome);
      pair.reachedBefore.push(pair.reachedBefore[pair.reachedBefore.length - 1] + (reachedChain(outcome) ? 1 : 0));
    };
    let h = 0;
    const heldCount = fromHeld === null ? 0 : fromHeld.times.length;
    for (const n of list) {
      for (; h < heldCount && fromHeld!.times[h] <= n.sentAt; h++)
        add(fromHeld!.times[h], fromHeld!.sigs[h], fromHeld!.outcomes[h]);
      add(n.sentAt, n.sig, n.outcome);
    }
    for (; h < heldCount; h++) add(fromHeld!.times[h], fromHeld!.sigs[h], fromHeld!.outcomes[h]);
    byPair.set(key, pair);
  }
  return byPair;
}

function indexNeighbours(
  neighbours: NeighbourSet,
  feeRange: { from: number; to: number },
  keys: ReadonlySet<string>,
): NeighbourIndex {
  const byPayerProgram = indexPairs(neighbours, keys);
  // The sends of `sends` (this run's, or the lake's) indexed here; those held are counted where
  // they are held (send-history.ts), so a run costs what it brings, not what is held.
  const all = new WindowCounts();
  const byProvider = new Map<string, WindowCounts>();
  const landedHere = new Map<string, { times: number[]; prices: number[] }>();
  const droppedHere = new Map<string, { times: number[]; prices: number[] }>();
  const columns = neighbours.sends;
  const order = columns.timeOrder();
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const at = columns.times[i];
    const dropped = columns.outcomes[i] === "dropped";
    all.add(at, dropped);
    const provider = byProvider.get(columns.providers[i]);
    if (provider) provider.add(at, dropped);
    else byProvider.set(columns.providers[i], new WindowCounts().add(at, dropped));
    const price = columns.prices[i];
    if (price !== null && at >= feeRange.from && at <= feeRange.to) {
      const byProgram = dropped ? droppedHere : landedHere;
      const kept = byProgram.get(columns.programs[i]) ?? { times: [], prices: [] };
      kept.times.push(at);
      kept.prices.push(price);
      byProgram.set(columns.programs[i], kept);
    }
  }
  const held = neighbours.held;
  const none = { count: 0, drops: 0 };
  const sum = (a: Counts, b: Counts) => ({ count: a.count + b.count, drops: a.drops + b.drops });
  // The held sends count within the run's window of them only.
  const within = (from: number, to: number) => [Math.max(from, held!.from), Math.min(to, held!.to)] as const;
  return {
    byPayerProgram,
    window: (from, to) =>
      held ? sum(held.sends.window(...within(from, to)), all.window(from, to)) : all.window(from, to),
    providerWindow: (rpcHash, from, to) => {
      const here = byProvider.get(rpcHash)?.window(from, to) ?? none;
      return held ? sum(held.sends.providerWindow(rpcHash, ...within(from, to)), here) : here;
    },
    landedPrices: (program) => {
      const here = landedHere.get(program);
      const runs: PriceRun[] = here ? [{ ...here, start: 0, end: here.times.length }] : [];
      return held ? [...held.sends.landedPrices(program, ...within(feeRange.from, feeRange.to)), ...runs] : runs;
    },
    droppedPrices: (program) => {
      const here = droppedHere.get(program);
      const runs: PriceRun[] = here ? [{ ...here, start: 0, end: here.times.length }] : [];
      return held ? [...held.sends.droppedPrices(program, ...within(feeRange.from, feeRange.to)), ...runs] : runs;
    },
  };
}

/**
 * Counts and drops of a time-sorted list within [from, to], by binary search over prefix sums (rows added in time
 * order).
 */
class WindowCounts {
  private readonly times: number[] = [];
  private readonly dropsBefore: number[] = [0];
  add(at: number, dropped: boolean): this {
    this.times.push(at);
    this.dropsBefore.push(this.dropsBefore[this.dropsBefore.length - 1] + (dropped ? 1 : 0));
    return this;
  }
  window(from: number, to: number): { count: number; drops: number } {
    const start = lowerBound(this.times, from);
    const end = upperBound(this.times, to);
    if (end <= start) return { count: 0, drops: 0 };
    return { count: end - start, drops: this.dropsBefore[end] - this.dropsBefore[start] };
  }
}

/**
 * First index whose value is ≥ target (values ascending), among the first `end` (a typed column's rows; its capacity is
 * longer).
 */
export function lowerBound(values: ArrayLike<number>, target: number, end = values.length): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose value is > target (values ascending), among the first `end`. */
export function upperBound(values: ArrayLike<number>, target: number, end = values.length): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Prices within this span of the lowest are ranked through a table, not a Map (whole µlamports per CU, as envelopes
 * carry them).
 */
const RANK_TABLE_SPAN = 1 << 20;

/** Distinct prices ascending, and each run's rows' ranks among them (rankOf[r][k]: row start + k of run r). */
function rankPrices(runs: PriceRun[]): { values: number[]; rankOf: Int32Array[] } {
  let low = Infinity;
  let high = -Infinity;
  let whole = true;
  for (const { prices, start, end } of runs) {
    for (let k = start; k < end; k++) {
      const p = prices[k];
      if (p < low) low = p;
      if (p > high) high = p;
      if (whole && !Number.isInteger(p)) whole = false;
    }
  }
  // Each run's rows' ranks, through a lookup from price to rank.
  const ranksBy = (rankOfPrice: (price: number) => number) =>
    runs.map(({ prices, start, end }) => {
      const ranks = new Int32Array(end - start);
      for (let k = start; k < end; k++) ranks[k - start] = rankOfPrice(prices[k]);
      return ranks;
    });
  if (whole && low <= high && high - low < RANK_TABLE_SPAN) {
    // A table over [low, high]: marks, then ranks by a running count; no hashing per row.
    const table = new Int32Array(high - low + 1);
    for (const { prices, start, end } of runs) for (let k = start; k < end; k++) table[prices[k] - low] = 1;
    const values: number[] = [];
    for (let v = 0; v < table.length; v++) if (table[v] === 1) table[v] = values.push(v + low) - 1;
    return { values, rankOf: ranksBy((price) => table[price - low]) };
  }
  const distinct = new Set<number>();
  for (const { prices, start, end } of runs) for (let k = start; k < end; k++) distinct.add(prices[k]);
  const values = [...distinct].sort((a, b) => a - b);
  const rank = new Map(values.map((v, i) => [v, i]));
  return { values, rankOf: ranksBy((price) => rank.get(price)!) };
}

/** A Fenwick tree of counts per price rank: add, and the rank holding the k-th smallest (0-based). */
class CountTree {
  private readonly tree: Int32Array;
  private readonly top: number;
  constructor(private readonly size: number) {
    this.tree = new Int32Array(size + 1);
    this.top = size === 0 ? 0 : 2 ** Math.floor(Math.log2(size));
  }
  add(rank: number, delta: number) {
    for (let i = rank + 1; i <= this.size; i += i & -i) this.tree[i] += delta;
  }
  /** How many counted rows rank below `rank`. */
  prefix(rank: number): number {
    let sum = 0;
    for (let i = rank; i > 0; i -= i & -i) sum += this.tree[i];
    return sum;
  }
  kth(k: number): number {
    let position = 0;
    let remaining = k;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.size && this.tree[next] <= remaining) {
        position = next;
        remaining -= this.tree[next];
      }
    }
    return position; // 1-based prefix end = 0-based rank
  }
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
        ? {
            kind: "nonce_not_seen",
            detail: `durable-nonce transaction not found on chain ${minutes} min after it was sent`,
            value: waitedMs,
          }
        : {
            kind: "not_seen",
            detail: `not found on chain ${minutes} min after it was sent, and the chain has not reached its lastValidBlockHeight ${attempt.lastValidBlockHeight}`,
            value: waitedMs,
          },
    ],
  };
}

/** Advice a developer can act on, per class (diagnose-drop). */
export const DROP_ADVICE: Record<DropClass, string> = {
  superseded_by_retry:
    "Harmless: a retry of the same intent landed. Consider cancelling outstanding retries once one confirms to save fees and load.",
  stale_blockhash_at_send:
    "Fetch the blockhash right before signing (commitment 'confirmed'), and re-sign with a fresh one instead of re-sending after ~60 s.",
  rpc_not_forwarding:
    "This provider is not getting transactions to leaders as often as others: send through a second provider or a staked/landing service, and rebroadcast until lastValidBlockHeight.",
  network_congestion:
    "Drops spiked network-wide: raise the compute-unit price (getRecentPrioritizationFees on your writable accounts) and keep rebroadcasting until expiry.",
  priority_fee_too_low:
    "Peers that landed paid more per compute unit: raise cuPriceMicroLamports and set a tight SetComputeUnitLimit so the fee buys priority.",
  expired_blockhash:
    "The transaction never landed before its blockhash expired: rebroadcast until lastValidBlockHeight (maxRetries 0 + your own loop), add a priority fee, and check the provider report.",
  nonce_advanced:
    "The durable nonce it was signed against was used up by another transaction (or the nonce account closed): it can never land. Re-sign against the account's current nonce, and advance a nonce from one sender at a time.",
  unknown: "No chain evidence: for durable-nonce transactions check whether the nonce account advanced.",
};

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const round = (value: number) => Math.round(value * 10_000) / 10_000;
