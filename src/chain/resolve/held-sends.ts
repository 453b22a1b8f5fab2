// The resolved sends the resolver holds between runs (recent-sends.ts), with the counts drop
// classification asks of them kept up to date as sends come and go: drops per position, per
// provider, landed prices per program, positions per payer+program. A run's classification then
// costs binary searches over what is held (drops.ts), not a pass over it: at a few thousand sends
// per second millions are held, and a pass over all of them every run was most of a run's
// classification time, whatever the number of drops (the cost followed what was held, not what
// changed).
//
// Two sorted stores are held (HeldSends): a run's sends newer than every one held are appended to
// the first, and the rest (drops, decided a minute or more after their send, and the odd send
// confirmed late) are merged into the second. One store merged the rows after a run's earliest
// drop again every run: at 20,000 sends/s that was ~1.8M rows a run, 0.7–0.9 s of the resolver's
// thread in every round of a few seconds, for a few thousand new rows.
//
// In a store (SortedSends) rows are in send-time order. Positions in the per-provider, per-program
// and per-payer lists are absolute (`base` + row): letting go of the oldest rows moves `base` on
// and leaves them valid. Prefix sums ("how many before") stay valid when their front is cut off,
// since a window's count is a difference of two of them.

import { lowerBound, payerProgramKey, upperBound, type HeldCounts, type HeldPairs, type PairSends, type PriceRun } from "./drops";
import type { Outcome } from "./types";

/** One held send. */
export type HeldRow = { sentAt: number; rpcHash: string; program: string; outcome: Outcome; price: number | null; payer: string | null; sig: string | null };

/** A sublist with its prefix count of drops: dropsBefore[k] = drops among rows of positions[0..k). */
type Counted = { positions: number[]; dropsBefore: number[] };
/** Landed (reached the chain) sends of one program with a price, in send-time order. */
type Landed = { positions: number[]; times: number[]; prices: number[] };
/** Positions of one payer+program pair's sends whose payer is held, from `head` on. */
type Pair = { key: string; positions: number[]; head: number };
/** Rows taken off the tail to be pushed again (insert): their columns and pairs. */
type Tail = { times: number[]; providers: string[]; programs: string[]; outcomes: Outcome[]; prices: (number | null)[]; sigs: (string | null)[]; pairs: (Pair | null)[] };

/** One store of held sends, in send-time order (HeldSends holds two). */
export class SortedSends implements HeldCounts, HeldPairs {
  readonly times: number[] = [];
  readonly providers: string[] = [];
  readonly programs: string[] = [];
  readonly outcomes: Outcome[] = [];
  readonly prices: (number | null)[] = [];
  /** Signature of each row; null once let go (the retry hold, recent-sends.ts). */
  readonly sigs: (string | null)[] = [];
  /**
   * Each row's pair while its payer is held (the pair's key holds the payer, so a row holds no
   * payer string of its own: at 5M rows those were ~0.8 GB); a row pushed again finds it without
   * building its key.
   */
  private pairOf: (Pair | null)[] = [];
  /** Rows let go from the front so far: row i is at absolute position base + i. */
  private base = 0;
  private dropsBefore: number[] = [0];
  private readonly byProvider = new Map<string, Counted>();
  private readonly landed = new Map<string, Landed>();
  private readonly pairs = new Map<string, Pair>();

  get length(): number {
    return this.times.length;
  }

  /** Appends a row; its send time must not be before the last row's. */
  push(row: HeldRow): void {
    let pair: Pair | null = null;
    if (row.payer !== null) {
      const key = payerProgramKey(row.payer, row.program);
      pair = this.pairs.get(key) ?? null;
      if (!pair) this.pairs.set(key, (pair = { key, positions: [], head: 0 }));
    }
    this.append(row.sentAt, row.rpcHash, row.program, row.outcome, row.price, row.sig, pair);
  }

  /** The newest row's send time (-Infinity when empty). */
  get newest(): number {
    return this.times.length === 0 ? -Infinity : this.times[this.times.length - 1];
  }

  /**
   * Adds rows (in send-time order) among those held. New sends are mostly the latest, but a run's
   * drops were sent a minute or more before its other resolutions: the rows after the earliest new
   * one are taken off and pushed again, merged with the new ones, column by column (at 20,000
   * sends/s that is millions of rows a run; as an object each, with its pair's key built again, it
   * was a few per cent of the resolver's thread).
   */
  insert(rows: HeldRow[]): void {
    if (rows.length === 0) return;
    const tail = this.takeTail(upperBound(this.times, rows[0].sentAt));
    let k = 0;
    for (let j = 0; j < tail.times.length; j++) {
      for (; k < rows.length && rows[k].sentAt < tail.times[j]; k++) this.push(rows[k]);
      this.append(tail.times[j], tail.providers[j], tail.programs[j], tail.outcomes[j], tail.prices[j], tail.sigs[j], tail.pairs[j]);
    }
    for (; k < rows.length; k++) this.push(rows[k]);
  }

  /**
   * Lets go of payers and signatures of rows [start, end): the retry check no longer reads them.
   * Rows keep them from some row on (a row pushed before that point comes without them).
   */
  forgetDetailsBefore(start: number, end: number): void {
    for (let i = start; i < end; i++) {
      const pair = this.pairOf[i];
      if (pair === null) continue;
      this.forgetPair(pair, this.base + i);
      this.sigs[i] = null;
      this.pairOf[i] = null;
    }
  }

  /** Lets go of rows [0, k). */
  dropFront(k: number): void {
    if (k <= 0) return;
    for (let i = 0; i < k; i++) {
      const pair = this.pairOf[i];
      if (pair !== null) this.forgetPair(pair, this.base + i);
    }
    for (const column of this.columns()) column.splice(0, k);
    this.dropsBefore.splice(0, k);
    this.base += k;
    for (const [rpcHash, provider] of this.byProvider) {
      const gone = lowerBound(provider.positions, this.base);
      if (gone === provider.positions.length) this.byProvider.delete(rpcHash);
      else if (gone > 0) {
        provider.positions.splice(0, gone);
        provider.dropsBefore.splice(0, gone);
      }
    }
    for (const [program, landed] of this.landed) {
      const gone = lowerBound(landed.positions, this.base);
      if (gone === landed.positions.length) this.landed.delete(program);
      else if (gone > 0) for (const column of [landed.positions, landed.times, landed.prices]) column.splice(0, gone);
    }
  }

  /** Sends and drops sent within [from, to]. */
  window(from: number, to: number): { count: number; drops: number } {
    const s = lowerBound(this.times, from);
    const e = upperBound(this.times, to);
    if (e <= s) return { count: 0, drops: 0 };
    return { count: e - s, drops: this.dropsBefore[e] - this.dropsBefore[s] };
  }

  /** The same, for one provider's sends. */
  providerWindow(rpcHash: string, from: number, to: number): { count: number; drops: number } {
    const provider = this.byProvider.get(rpcHash);
    const s = lowerBound(this.times, from);
    const e = upperBound(this.times, to);
    if (!provider || e <= s) return { count: 0, drops: 0 };
    const a = lowerBound(provider.positions, this.base + s);
    const b = lowerBound(provider.positions, this.base + e);
    return { count: b - a, drops: provider.dropsBefore[b] - provider.dropsBefore[a] };
  }

  /** Landed prices of a program's sends sent within [from, to], in send-time order: a view (valid until the store next changes). */
  landedPrices(program: string, from: number, to: number): PriceRun[] {
    const landed = this.landed.get(program);
    const s = lowerBound(this.times, from);
    const e = upperBound(this.times, to);
    if (!landed || e <= s) return [];
    const start = lowerBound(landed.positions, this.base + s);
    const end = lowerBound(landed.positions, this.base + e);
    return end > start ? [{ times: landed.times, prices: landed.prices, start, end }] : [];
  }

  /** The sends of one payer+program pair within [from, to] whose payers are held, in row order. */
  pairSends(key: string, from: number, to: number): PairSends {
    const out: PairSends = { times: [], sigs: [], outcomes: [] };
    const pair = this.pairs.get(key);
    if (!pair) return out;
    const s = this.base + lowerBound(this.times, from);
    const e = this.base + upperBound(this.times, to);
    for (let k = Math.max(pair.head, lowerBound(pair.positions, s)); k < pair.positions.length && pair.positions[k] < e; k++) {
      const i = pair.positions[k] - this.base;
      out.times.push(this.times[i]);
      out.sigs.push(this.sigs[i]);
      out.outcomes.push(this.outcomes[i]);
    }
    return out;
  }

  /** Entries of the per-provider, per-program and per-payer lists (none outlives its row: memory stays bounded by what is held). */
  footprint(): { providers: number; landed: number; pairs: number } {
    let providers = 0;
    let landed = 0;
    let pairs = 0;
    for (const provider of this.byProvider.values()) providers += provider.positions.length;
    for (const list of this.landed.values()) landed += list.positions.length;
    for (const pair of this.pairs.values()) pairs += pair.positions.length - pair.head;
    return { providers, landed, pairs };
  }

  private append(sentAt: number, rpcHash: string, program: string, outcome: Outcome, price: number | null, sig: string | null, pair: Pair | null): void {
    const at = this.base + this.times.length;
    const dropped = outcome === "dropped";
    this.times.push(sentAt);
    this.providers.push(rpcHash);
    this.programs.push(program);
    this.outcomes.push(outcome);
    this.prices.push(price);
    this.sigs.push(sig);
    this.pairOf.push(pair);
    this.dropsBefore.push(this.dropsBefore[this.dropsBefore.length - 1] + (dropped ? 1 : 0));
    let provider = this.byProvider.get(rpcHash);
    if (!provider) this.byProvider.set(rpcHash, (provider = { positions: [], dropsBefore: [0] }));
    provider.positions.push(at);
    provider.dropsBefore.push(provider.dropsBefore[provider.dropsBefore.length - 1] + (dropped ? 1 : 0));
    if (!dropped && price !== null) {
      let landed = this.landed.get(program);
      if (!landed) this.landed.set(program, (landed = { positions: [], times: [], prices: [] }));
      landed.positions.push(at);
      landed.times.push(sentAt);
      landed.prices.push(price);
    }
    pair?.positions.push(at);
  }

  /** Removes rows [cut, length) and every count of them; returns their columns. */
  private takeTail(cut: number): Tail {
    const tail: Tail = {
      times: this.times.slice(cut), providers: this.providers.slice(cut), programs: this.programs.slice(cut), outcomes: this.outcomes.slice(cut),
      prices: this.prices.slice(cut), sigs: this.sigs.slice(cut), pairs: this.pairOf.slice(cut),
    };
    const at = this.base + cut;
    // A pair left without positions stays listed: insert pushes its rows again, and a pair is only
    // let go with its last row's payer (forgetPair).
    for (let i = this.times.length - 1; i >= cut; i--) this.pairOf[i]?.positions.pop();
    for (const column of this.columns()) column.length = cut;
    this.dropsBefore.length = cut + 1;
    for (const [rpcHash, provider] of this.byProvider) {
      const keep = lowerBound(provider.positions, at);
      if (keep === 0) this.byProvider.delete(rpcHash);
      provider.positions.length = keep;
      provider.dropsBefore.length = keep + 1;
    }
    for (const [program, landed] of this.landed) {
      const keep = lowerBound(landed.positions, at);
      if (keep === 0) this.landed.delete(program);
      for (const column of [landed.positions, landed.times, landed.prices]) column.length = keep;
    }
    return tail;
  }

  private columns(): unknown[][] {
    return [this.times, this.providers, this.programs, this.outcomes, this.prices, this.sigs, this.pairOf];
  }

  /** A pair's positions up to `at` are let go (rows lose their payers oldest first). */
  private forgetPair(pair: Pair, at: number): void {
    while (pair.head < pair.positions.length && pair.positions[pair.head] <= at) pair.head++;
    if (pair.head === pair.positions.length) this.pairs.delete(pair.key);
    else if (pair.head > 64 && pair.head > pair.positions.length / 2) {
      pair.positions.splice(0, pair.head);
      pair.head = 0;
    }
  }
}

/**
 * What is held, as two sorted stores read as one: `appended` takes a run's sends newer than every
 * send held, `late` the others (merged among the late only). Counts are sums over both; a pair's
 * sends are merged by send time, those of `appended` first on equal times, which is the order they
 * came in (a send goes to `late` only when `appended` already holds a later one, so every send of
 * `appended` at its time came before it).
 */
export class HeldSends implements HeldCounts, HeldPairs {
  readonly appended = new SortedSends();
  readonly late = new SortedSends();

  get length(): number {
    return this.appended.length + this.late.length;
  }

  /** The newest send time held (-Infinity when empty). */
  get newest(): number {
    return Math.max(this.appended.newest, this.late.newest);
  }

  /** Adds a run's rows (in send-time order). */
  insert(rows: HeldRow[]): void {
    const newest = this.appended.newest;
    let cut = 0; // rows [0, cut) were sent before the newest appended: late
    for (let hi = rows.length; cut < hi; ) {
      const mid = (cut + hi) >>> 1;
      if (rows[mid].sentAt < newest) cut = mid + 1;
      else hi = mid;
    }
    if (cut > 0) this.late.insert(cut === rows.length ? rows : rows.slice(0, cut));
    for (let k = cut; k < rows.length; k++) this.appended.push(rows[k]);
  }

  /** Appends a row sent at or after every row held (a store loaded in send-time order). */
  push(row: HeldRow): void {
    this.appended.push(row);
  }

  /** Sends held from `at` on. */
  countFrom(at: number): number {
    return this.appended.length - lowerBound(this.appended.times, at) + this.late.length - lowerBound(this.late.times, at);
  }

  /** The send time of the k-th newest send held (k ≥ 1; -Infinity when fewer are held). */
  newestAt(k: number): number {
    if (k > this.length) return -Infinity;
    // The k-th largest of two sorted lists: the largest time t with at least k sends from t on.
    const a = this.appended.times;
    const b = this.late.times;
    // fromA: how many of the k are the newest of `a` (the rest the newest of `b`).
    let lo = Math.max(0, k - b.length);
    let hi = Math.min(k, a.length);
    while (lo < hi) {
      const fromA = (lo + hi) >>> 1; // take fromA from a's end, k - fromA from b's end
      const nextA = a[a.length - fromA - 1]; // the next of `a` not taken
      const lastB = b[b.length - (k - fromA)]; // the last of `b` taken
      if (nextA > lastB) lo = fromA + 1;
      else hi = fromA;
    }
    const fromA = lo;
    const lastA = fromA > 0 ? a[a.length - fromA] : Infinity;
    const lastB = k - fromA > 0 ? b[b.length - (k - fromA)] : Infinity;
    return Math.min(lastA, lastB);
  }

  /** Lets go of signatures and payers of sends before `at` from those sent from `from` on (the retry hold moving on). */
  forgetDetails(from: number, at: number): void {
    for (const store of [this.appended, this.late]) store.forgetDetailsBefore(lowerBound(store.times, from), lowerBound(store.times, at));
  }

  /** Lets go of sends before `at` once an eighth of a store is before it (a cut moves every row after it). */
  dropBefore(at: number): void {
    for (const store of [this.appended, this.late]) {
      const k = lowerBound(store.times, at);
      if (k > 0 && k >= store.length / 8) store.dropFront(k);
    }
  }

  window(from: number, to: number): { count: number; drops: number } {
    return sum(this.appended.window(from, to), this.late.window(from, to));
  }

  providerWindow(rpcHash: string, from: number, to: number): { count: number; drops: number } {
    return sum(this.appended.providerWindow(rpcHash, from, to), this.late.providerWindow(rpcHash, from, to));
  }

  landedPrices(program: string, from: number, to: number): PriceRun[] {
    return [...this.appended.landedPrices(program, from, to), ...this.late.landedPrices(program, from, to)];
  }

  pairSends(key: string, from: number, to: number): PairSends {
    const a = this.appended.pairSends(key, from, to);
    const b = this.late.pairSends(key, from, to);
    if (b.times.length === 0) return a;
    if (a.times.length === 0) return b;
    const merged: PairSends = { times: [], sigs: [], outcomes: [] };
    let i = 0;
    let j = 0;
    while (i < a.times.length || j < b.times.length) {
      const fromA = i < a.times.length && (j >= b.times.length || a.times[i] <= b.times[j]);
      const [list, k] = fromA ? [a, i++] : [b, j++];
      merged.times.push(list.times[k]);
      merged.sigs.push(list.sigs[k]);
      merged.outcomes.push(list.outcomes[k]);
    }
    return merged;
  }

  footprint(): { providers: number; landed: number; pairs: number } {
    const a = this.appended.footprint();
    const b = this.late.footprint();
    return { providers: a.providers + b.providers, landed: a.landed + b.landed, pairs: a.pairs + b.pairs };
  }
}

const sum = (a: { count: number; drops: number }, b: { count: number; drops: number }) => ({ count: a.count + b.count, drops: a.drops + b.drops });

