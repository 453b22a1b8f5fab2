// The resolved sends the resolver holds between runs (recent-sends.ts), with the counts drop
// classification asks of them kept up to date as sends come and go: drops per position, per
// provider, landed prices per program, positions per payer+program. A run's classification then
// costs binary searches over what is held (drops.ts), not a pass over it: at a few thousand sends
// per second millions are held, and a pass over all of them every run would be most of a run's
// classification time, whatever the number of drops (the cost would follow what is held, not what
// changed).
//
// Two sorted stores are held (SendHistory): a run's sends newer than every one held are appended to
// the first, and the rest (drops, decided a minute or more after their send, and the odd send
// confirmed late) are merged into the second. One store merged the rows after a run's earliest
// drop again every run: at 20,000 sends/s that was ~1.8M rows a run, 0.7–0.9 s of the resolver's
// thread in every round of a few seconds, for a few thousand new rows.
//
// In a store (SortedSends) rows are in send-time order. Positions in the per-provider, per-program
// and per-payer lists are absolute (`base` + row): letting go of the oldest rows moves `base` on
// and leaves them valid. Prefix sums ("how many before") stay valid when their front is cut off,
// since a window's count is a difference of two of them. Numbers are held in typed columns (Column):
// up to 5M sends are held, and as arrays of JavaScript values they took a sixth more memory, all of
// it traced by every full garbage collection.

import { OUTCOMES } from "../../shared/outcome";
import {
  type HistoryCounts,
  type HistoryPairs,
  lowerBound,
  type PairSends,
  type PriceRun,
  payerProgramKey,
  upperBound,
} from "./drops";
import type { Outcome } from "./types";

/** One held send. */
export type HistoryRow = {
  sentAt: number;
  rpcHash: string;
  program: string;
  outcome: Outcome;
  price: number | null;
  payer: string | null;
  sig: string | null;
};

type NumberArray = Float64Array | Uint32Array | Uint8Array;

/**
 * A column of numbers held in a typed array: 1–8 bytes a row where an array of JavaScript values
 * takes 8 and is traced by the garbage collector, and grown by half again rather than doubled, so
 * that memory follows what is held (5M held sends, RSS once settled: 674–683 MB as arrays, 566 MB
 * typed). Rows are `data[0, length)`; the rest is room to grow.
 */
class Column<A extends NumberArray> {
  data: A;
  length = 0;

  constructor(private readonly make: (capacity: number) => A) {
    this.data = make(MIN_CAPACITY);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.resize(Math.ceil(this.length * 1.5));
    this.data[this.length++] = value;
  }

  last(): number {
    return this.data[this.length - 1];
  }

  /** The first row whose value is ≥ target (values ascending). */
  lowerBound(target: number): number {
    return lowerBound(this.data, target, this.length);
  }

  /** The first row whose value is > target (values ascending). */
  upperBound(target: number): number {
    return upperBound(this.data, target, this.length);
  }

  /** The rows from `from` on, copied. */
  slice(from: number): A {
    return this.data.slice(from, this.length) as A;
  }

  /** Keeps rows [0, n). */
  truncate(n: number): void {
    this.length = Math.min(this.length, n);
    this.shrink();
  }

  /** Lets go of rows [0, k), moving the rest to the front in place. */
  dropFront(k: number): void {
    this.data.copyWithin(0, k, this.length);
    this.length -= Math.min(k, this.length);
    this.shrink();
  }

  /** A column held at a quarter of its room gives back all but half again of its rows. */
  private shrink(): void {
    if (this.data.length > MIN_CAPACITY && this.length < this.data.length / 4)
      this.resize(Math.max(MIN_CAPACITY, Math.ceil(this.length * 1.5)));
  }

  private resize(capacity: number): void {
    const next = this.make(capacity);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

const MIN_CAPACITY = 1024;
const numbers64 = () => new Column((n) => new Float64Array(n));

/** Outcomes as one byte each (their index in OUTCOMES). */
const OUTCOME_CODE = new Map<Outcome, number>(OUTCOMES.map((outcome, code) => [outcome, code]));
const DROPPED = OUTCOME_CODE.get("dropped")!;

/** A sublist with its prefix count of drops: dropsBefore[k] = drops among rows of positions[0..k). */
type Counted = { positions: Column<Float64Array>; dropsBefore: Column<Float64Array> };
/** Priced sends of one program that reached the chain (under its number) or dropped (under -1 - its number), in send-time order. */
type Landed = { positions: Column<Float64Array>; times: Column<Float64Array>; prices: Column<Float64Array> };
/** Positions of one payer+program pair's sends whose payer is held, from `head` on. */
type Pair = { key: string; positions: number[]; head: number };
/** Rows taken off the tail to be pushed again (insert): their columns and pairs. */
type Tail = {
  times: Float64Array;
  providers: Uint32Array;
  programs: Uint32Array;
  outcomes: Uint8Array;
  prices: Float64Array;
  sigs: (string | null)[];
  pairs: (Pair | null)[];
};

/** One store of held sends, in send-time order (SendHistory holds two). */
export class SortedSends implements HistoryCounts, HistoryPairs {
  private readonly sentAt = numbers64();
  /** Providers and programs by number (names: a handful of strings, however many rows). */
  private readonly providers = new Column((n) => new Uint32Array(n));
  private readonly programs = new Column((n) => new Uint32Array(n));
  private readonly outcomes = new Column((n) => new Uint8Array(n));
  /** NaN: no price. */
  private readonly prices = new Column((n) => new Float64Array(n));
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
  private readonly dropsBefore = numbers64();
  private readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();
  private readonly byProvider = new Map<number, Counted>();
  private readonly landed = new Map<number, Landed>();
  private readonly pairs = new Map<string, Pair>();

  constructor() {
    this.dropsBefore.push(0);
  }

  get length(): number {
    return this.sentAt.length;
  }

  /** The rows' send times, in order: a view (valid until the store next changes). */
  get times(): Float64Array {
    return this.sentAt.data.subarray(0, this.sentAt.length);
  }

  /** Appends a row; its send time must not be before the last row's. */
  push(row: HistoryRow): void {
    let pair: Pair | null = null;
    if (row.payer !== null) {
      const key = payerProgramKey(row.payer, row.program);
      pair = this.pairs.get(key) ?? null;
      if (!pair) this.pairs.set(key, (pair = { key, positions: [], head: 0 }));
    }
    this.append(
      row.sentAt,
      this.number(row.rpcHash),
      this.number(row.program),
      OUTCOME_CODE.get(row.outcome)!,
      row.price ?? NaN,
      row.sig,
      pair,
    );
  }

  /** The newest row's send time (-Infinity when empty). */
  get newest(): number {
    return this.sentAt.length === 0 ? -Infinity : this.sentAt.last();
  }

  /** The first row sent at or after `at`. */
  firstFrom(at: number): number {
    return this.sentAt.lowerBound(at);
  }

  /**
   * Adds rows (in send-time order) among those held. New sends are mostly the latest, but a run's
   * drops were sent a minute or more before its other resolutions: the rows after the earliest new
   * one are taken off and pushed again, merged with the new ones, column by column (at 20,000
   * sends/s that is millions of rows a run; as an object each, with its pair's key built again, it
   * was a few per cent of the resolver's thread).
   */
  insert(rows: HistoryRow[]): void {
    if (rows.length === 0) return;
    const tail = this.takeTail(this.sentAt.upperBound(rows[0].sentAt));
    let k = 0;
    for (let j = 0; j < tail.times.length; j++) {
      for (; k < rows.length && rows[k].sentAt < tail.times[j]; k++) this.push(rows[k]);
      this.append(
        tail.times[j],
        tail.providers[j],
        tail.programs[j],
        tail.outcomes[j],
        tail.prices[j],
        tail.sigs[j],
        tail.pairs[j],
      );
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
    for (const column of [this.sentAt, this.providers, this.programs, this.outcomes, this.prices, this.dropsBefore])
      column.dropFront(k);
    this.sigs.splice(0, k);
    this.pairOf.splice(0, k);
    this.base += k;
    for (const [provider, counted] of this.byProvider) {
      const gone = counted.positions.lowerBound(this.base);
      if (gone === counted.positions.length) this.byProvider.delete(provider);
      else if (gone > 0) {
        counted.positions.dropFront(gone);
        counted.dropsBefore.dropFront(gone);
      }
    }
    for (const [program, landed] of this.landed) {
      const gone = landed.positions.lowerBound(this.base);
      if (gone === landed.positions.length) this.landed.delete(program);
      else if (gone > 0) for (const column of [landed.positions, landed.times, landed.prices]) column.dropFront(gone);
    }
  }

  /** Sends and drops sent within [from, to]. */
  window(from: number, to: number): { count: number; drops: number } {
    const [s, e] = this.rowsWithin(from, to);
    if (e <= s) return { count: 0, drops: 0 };
    return { count: e - s, drops: this.dropsBefore.data[e] - this.dropsBefore.data[s] };
  }

  /** The same, for one provider's sends. */
  providerWindow(rpcHash: string, from: number, to: number): { count: number; drops: number } {
    const provider = this.byProvider.get(this.numbers.get(rpcHash) ?? -1);
    const [s, e] = this.rowsWithin(from, to);
    if (!provider || e <= s) return { count: 0, drops: 0 };
    const positions = provider.positions;
    const a = positions.lowerBound(this.base + s);
    const b = positions.lowerBound(this.base + e);
    return { count: b - a, drops: provider.dropsBefore.data[b] - provider.dropsBefore.data[a] };
  }

  /**
   * Landed prices of a program's sends sent within [from, to], in send-time order: a view (valid until the store next
   * changes).
   */
  landedPrices(program: string, from: number, to: number): PriceRun[] {
    const number = this.numbers.get(program);
    return number === undefined ? [] : this.pricesOf(number, from, to);
  }

  /** The same for its dropped sends (kept under the program's number's complement, -1 - number). */
  droppedPrices(program: string, from: number, to: number): PriceRun[] {
    const number = this.numbers.get(program);
    return number === undefined ? [] : this.pricesOf(-1 - number, from, to);
  }

  private pricesOf(key: number, from: number, to: number): PriceRun[] {
    const landed = this.landed.get(key);
    const [s, e] = this.rowsWithin(from, to);
    if (!landed || e <= s) return [];
    const positions = landed.positions;
    const start = positions.lowerBound(this.base + s);
    const end = positions.lowerBound(this.base + e);
    return end > start ? [{ times: landed.times.data, prices: landed.prices.data, start, end }] : [];
  }

  /** The sends of one payer+program pair within [from, to] whose payers are held, in row order. */
  pairSends(key: string, from: number, to: number): PairSends {
    const out: PairSends = { times: [], sigs: [], outcomes: [] };
    const pair = this.pairs.get(key);
    if (!pair) return out;
    const [rowFrom, rowTo] = this.rowsWithin(from, to);
    const s = this.base + rowFrom;
    const e = this.base + rowTo;
    for (
      let k = Math.max(pair.head, lowerBound(pair.positions, s));
      k < pair.positions.length && pair.positions[k] < e;
      k++
    ) {
      const i = pair.positions[k] - this.base;
      out.times.push(this.sentAt.data[i]);
      out.sigs.push(this.sigs[i]);
      out.outcomes.push(OUTCOMES[this.outcomes.data[i]]);
    }
    return out;
  }

  /** What row i holds beyond its payer and signature (benchmarks compare with the rows as they were listed before). */
  row(i: number): Pick<HistoryRow, "sentAt" | "rpcHash" | "program" | "outcome" | "price"> {
    const price = this.prices.data[i];
    return {
      sentAt: this.sentAt.data[i],
      rpcHash: this.names[this.providers.data[i]],
      program: this.names[this.programs.data[i]],
      outcome: OUTCOMES[this.outcomes.data[i]],
      price: Number.isNaN(price) ? null : price,
    };
  }

  /**
   * Entries of the per-provider, per-program and per-payer lists (none outlives its row: memory stays bounded by what
   * is held).
   */
  footprint(): { providers: number; landed: number; pairs: number } {
    let providers = 0;
    let landed = 0;
    let pairs = 0;
    for (const provider of this.byProvider.values()) providers += provider.positions.length;
    for (const [key, list] of this.landed) if (key >= 0) landed += list.positions.length; // dropped prices: key < 0
    for (const pair of this.pairs.values()) pairs += pair.positions.length - pair.head;
    return { providers, landed, pairs };
  }

  /** Rows [s, e) sent within [from, to]. */
  private rowsWithin(from: number, to: number): [number, number] {
    return [this.sentAt.lowerBound(from), this.sentAt.upperBound(to)];
  }

  /** A provider's or program's number in this store (given for good: a store meets a handful of them). */
  private number(name: string): number {
    let n = this.numbers.get(name);
    if (n === undefined) {
      n = this.names.length;
      this.names.push(name);
      this.numbers.set(name, n);
    }
    return n;
  }

  private append(
    sentAt: number,
    provider: number,
    program: number,
    outcome: number,
    price: number,
    sig: string | null,
    pair: Pair | null,
  ): void {
    const at = this.base + this.sentAt.length;
    const dropped = outcome === DROPPED ? 1 : 0;
    this.sentAt.push(sentAt);
    this.providers.push(provider);
    this.programs.push(program);
    this.outcomes.push(outcome);
    this.prices.push(price);
    this.sigs.push(sig);
    this.pairOf.push(pair);
    this.dropsBefore.push(this.dropsBefore.last() + dropped);
    let counted = this.byProvider.get(provider);
    if (!counted) {
      this.byProvider.set(provider, (counted = { positions: numbers64(), dropsBefore: numbers64() }));
      counted.dropsBefore.push(0);
    }
    counted.positions.push(at);
    counted.dropsBefore.push(counted.dropsBefore.last() + dropped);
    if (!Number.isNaN(price)) {
      const key = dropped ? -1 - program : program;
      let landed = this.landed.get(key);
      if (!landed) this.landed.set(key, (landed = { positions: numbers64(), times: numbers64(), prices: numbers64() }));
      landed.positions.push(at);
      landed.times.push(sentAt);
      landed.prices.push(price);
    }
    pair?.positions.push(at);
  }

  /** Removes rows [cut, length) and every count of them; returns their columns. */
  private takeTail(cut: number): Tail {
    const tail: Tail = {
      times: this.sentAt.slice(cut),
      providers: this.providers.slice(cut),
      programs: this.programs.slice(cut),
      outcomes: this.outcomes.slice(cut),
      prices: this.prices.slice(cut),
      sigs: this.sigs.slice(cut),
      pairs: this.pairOf.slice(cut),
    };
    const at = this.base + cut;
    // A pair left without positions stays listed: insert pushes its rows again, and a pair is only
    // let go with its last row's payer (forgetPair).
    for (let i = this.sentAt.length - 1; i >= cut; i--) this.pairOf[i]?.positions.pop();
    for (const column of [this.sentAt, this.providers, this.programs, this.outcomes, this.prices]) column.truncate(cut);
    this.sigs.length = cut;
    this.pairOf.length = cut;
    this.dropsBefore.truncate(cut + 1);
    for (const [provider, counted] of this.byProvider) {
      const keep = counted.positions.lowerBound(at);
      if (keep === 0) this.byProvider.delete(provider);
      counted.positions.truncate(keep);
      counted.dropsBefore.truncate(keep + 1);
    }
    for (const [program, landed] of this.landed) {
      const keep = landed.positions.lowerBound(at);
      if (keep === 0) this.landed.delete(program);
      for (const column of [landed.positions, landed.times, landed.prices]) column.truncate(keep);
    }
    return tail;
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
export class SendHistory implements HistoryCounts, HistoryPairs {
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
  insert(rows: HistoryRow[]): void {
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
  push(row: HistoryRow): void {
    this.appended.push(row);
  }

  /** Sends held from `at` on. */
  countFrom(at: number): number {
    return this.appended.length - this.appended.firstFrom(at) + this.late.length - this.late.firstFrom(at);
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

  /**
   * Lets go of signatures and payers of sends before `at` from those sent from `from` on (the retry hold moving on).
   */
  forgetDetails(from: number, at: number): void {
    for (const store of [this.appended, this.late])
      store.forgetDetailsBefore(store.firstFrom(from), store.firstFrom(at));
  }

  /** Lets go of sends before `at` once an eighth of a store is before it (a cut moves every row after it). */
  dropBefore(at: number): void {
    for (const store of [this.appended, this.late]) {
      const k = store.firstFrom(at);
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

  droppedPrices(program: string, from: number, to: number): PriceRun[] {
    return [...this.appended.droppedPrices(program, from, to), ...this.late.droppedPrices(program, from, to)];
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

const sum = (a: { count: number; drops: number }, b: { count: number; drops: number }) => ({
  count: a.count + b.count,
  drops: a.drops + b.drops,
});
