// The resolved sends of the last RECENT_SENDS_MS (20 minutes), kept in memory between resolve runs for drop
// classification (drops.ts), which compares each drop with every send within 15 minutes of it. At
// 2,000 sends/s that window holds ~3.6M sends: read from the attempt index at every run it cost
// seconds of the server's thread and millions of short-lived objects per run, and the resolver fell
// behind. Held here, a run reads only what was indexed since the last one (through the index on
// resolved_at) and merges it into a list kept in send-time order.
//
// Exact, not approximate: the list holds every indexed send (not preflight) with sent_at ≥ heldFrom,
// as the index does. The resolve job runs under a lease, one run at a time, and only its runs add to
// the index, so "indexed since the last run" is everything with resolved_at after the last run's
// (those at exactly that time are told apart by attempt id, for a clock that did not move). Windows
// reaching before heldFrom (a drop sent long before it was resolved) are read from the index instead.

import { latestIndexed, latestSentSince, sendsIndexedAfter, sendsIndexedAt, sendsIndexedAtCount, sendsSentBetween, type ControlDb, type IndexedSendColumns } from "../../control";
import { lowerBound, SendColumns, upperBound } from "./drops";
import { yieldToEventLoop } from "./pause";

/**
 * How far back sends are held: the 15-minute window before drops resolved up to 5 minutes after
 * they were sent (a blockhash lives ~60-90 s; the resolver looks again right after expiry). About
 * 40 bytes per send: ~100 MB at 2,000 resolved sends/s.
 */
export const RECENT_SENDS_MS = 20 * 60_000;
/** Sends read from the index per query (a minute of them), with a pause for the event loop between. */
const SLICE_MS = 60_000;
/**
 * At most this many sends are held (~200 MB): beyond ~4,000 resolved sends/s, 20 minutes would not
 * fit, and the oldest are let go; windows reaching before what is held are read from the index.
 */
export const MAX_HELD_SENDS = 5_000_000;


export class RecentSends {
  /** Every indexed send with sent_at ≥ heldFrom, in send-time order (rows before heldFrom may linger until trimmed). */
  readonly columns = new SendColumns();
  heldFrom = Infinity;
  /** now - RECENT_SENDS_MS at the last refresh (heldFrom is later when the cap let older sends go). */
  private windowFrom = Infinity;
  /** The latest resolved_at read, and the attempts read at exactly that time. */
  private readUpTo = -1;
  private readAtLast = new Set<string>();
  /** Providers and programs are few: each string is held once. */
  private intern = stringPool();

  constructor(private readonly maxHeld = MAX_HELD_SENDS) {}

  /** Brings the list up to date with the index at `now`. */
  async refresh(control: ControlDb, now: number): Promise<void> {
    // First use, or a clock that went back (the window would start before what is held): load.
    if (this.windowFrom === Infinity || now - RECENT_SENDS_MS < this.windowFrom) await this.load(control, now);
    else this.addIndexedSince(control);
    this.trim(now - RECENT_SENDS_MS);
  }

  /** The held sends within [from, to] as a range of `columns`, or null when the window reaches before what is held. */
  range(from: number, to: number): { start: number; end: number } | null {
    if (from < this.heldFrom) return null;
    return { start: lowerBound(this.columns.times, from), end: upperBound(this.columns.times, to) };
  }

  /** Everything from now - RECENT_SENDS_MS, a minute at a time through the index on sent_at. */
  private async load(control: ControlDb, now: number): Promise<void> {
    this.columns.times.length = this.columns.providers.length = this.columns.programs.length = this.columns.outcomes.length = this.columns.prices.length = 0;
    this.intern = stringPool();
    this.heldFrom = this.windowFrom = now - RECENT_SENDS_MS;
    const latest = latestIndexed(control);
    this.readUpTo = latest.resolvedAt ?? -1;
    this.readAtLast = new Set(latest.attemptIds);
    const last = latestSentSince(control, this.heldFrom);
    if (last === null) return;
    await readIndexedSends(control, this.heldFrom, last, (r) => this.pushRow(r));
  }

  /** What the index gained since the last read, merged in send-time order. */
  private addIndexedSince(control: ControlDb): void {
    const rows = sendsIndexedAfter(control, this.readUpTo);
    // Sends indexed at the very time of the last read (a clock that did not move between runs).
    if (sendsIndexedAtCount(control, this.readUpTo) !== this.readAtLast.size) {
      const same = sendsIndexedAt(control, this.readUpTo).filter((r) => !this.readAtLast.has(r.attempt_id));
      rows.push(...same);
    }
    for (const r of rows) {
      if (r.resolved_at > this.readUpTo) {
        this.readUpTo = r.resolved_at;
        this.readAtLast = new Set();
      }
    }
    for (const r of rows) if (r.resolved_at === this.readUpTo) this.readAtLast.add(r.attempt_id);
    const held = rows.filter((r) => r.sent_at >= this.heldFrom).sort((a, b) => a.sent_at - b.sent_at);
    if (held.length === 0) return;
    // New sends are mostly the latest: only the tail after the earliest of them is rewritten.
    const c = this.columns;
    const cut = upperBound(c.times, held[0].sent_at);
    const tail = { times: c.times.splice(cut), providers: c.providers.splice(cut), programs: c.programs.splice(cut), outcomes: c.outcomes.splice(cut), prices: c.prices.splice(cut) };
    let k = 0;
    for (let i = 0; i < tail.times.length; i++) {
      for (; k < held.length && held[k].sent_at < tail.times[i]; k++) this.pushRow(held[k]);
      c.push(tail.times[i], tail.providers[i], tail.programs[i], tail.outcomes[i], tail.prices[i]);
    }
    for (; k < held.length; k++) this.pushRow(held[k]);
  }

  private pushRow(r: IndexedSendColumns): void {
    this.columns.push(r.sent_at, this.intern(r.rpc_hash), this.intern(r.program), r.outcome, r.cu_price_micro_lamports);
  }

  /**
   * Lets go of sends before `from`, and of the oldest beyond maxHeld (never splitting sends of the
   * same time). The array fronts are cut once an eighth of the list is behind heldFrom (splicing
   * moves everything); until then those rows linger unused.
   */
  private trim(from: number): void {
    if (from > this.windowFrom) this.windowFrom = from;
    const c = this.columns;
    if (this.windowFrom > this.heldFrom) this.heldFrom = this.windowFrom;
    let k = lowerBound(c.times, this.heldFrom);
    if (c.times.length - k > this.maxHeld) {
      k = lowerBound(c.times, c.times[c.times.length - this.maxHeld]);
      this.heldFrom = c.times[k];
    }
    if (k === 0 || k < c.times.length / 8) return;
    c.times.splice(0, k);
    c.providers.splice(0, k);
    c.programs.splice(0, k);
    c.outcomes.splice(0, k);
    c.prices.splice(0, k);
    if (this.intern.size() > 10_000) this.intern = stringPool(); // a long-lived list sheds strings no longer held
  }
}

const held = new WeakMap<ControlDb, RecentSends>();

/** The recent sends of this control database, held for this process's resolve runs. */
export function recentSends(control: ControlDb): RecentSends {
  let sends = held.get(control);
  if (!sends) held.set(control, (sends = new RecentSends()));
  return sends;
}

/**
 * Every indexed send (not preflight) with sent_at in [from, to], in send-time order, read a minute
 * at a time through the index on sent_at with a pause for the event loop between minutes.
 */
export async function readIndexedSends(control: ControlDb, from: number, to: number, each: (send: IndexedSendColumns) => void): Promise<void> {
  for (let at = from; at <= to; at += SLICE_MS) {
    for (const send of sendsSentBetween(control, at, Math.min(at + SLICE_MS, to + 1))) each(send);
    await yieldToEventLoop();
  }
}

/** A function that returns one shared copy of each string it is given (millions of sends, a few distinct providers and programs). */
export function stringPool(): ((text: string) => string) & { size(): number } {
  const pool = new Map<string, string>();
  const intern = (text: string) => {
    const known = pool.get(text);
    if (known !== undefined) return known;
    pool.set(text, text);
    return text;
  };
  return Object.assign(intern, { size: () => pool.size });
}
