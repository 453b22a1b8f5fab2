// The resolver's open attempts (docs/operations.md, "How resolving works"): every attempt taken in
// from the lake and not resolved yet, held in this process's memory, ordered by when it is next
// looked up (a binary heap per account of entries pointing at their attempts; a rescheduled or removed attempt
// leaves a stale heap entry behind, older than its version, skipped when popped). Nothing per attempt goes to the
// control database: the set is checkpointed to a file
// (checkpoint.ts), and what happened since the checkpoint is replayed from the lake after a restart.

import type { Attempt } from "./types";

export type OpenAttempt = Attempt & {
  /** Status look-ups so far. */
  checks: number;
  nextCheckAt: number;
  /**
   * Set at the first look-up that found nothing after the blockhash expired, or after a durable-nonce attempt's nonce
   * was seen advanced (the drop needs a second one).
   */
  expiry: { observedAt: number; height: number } | null;
  /**
   * The chain's height at its first look-up + MAX_BLOCKS_TO_EXPIRY (null before it): the expiry believed in place of a
   * lastValidBlockHeight further away. Kept apart from the client's value, which evidence and the index show as sent.
   */
  expiryCap: number | null;
  /** Whether the signature index holds an entry for it (written at the end of the run that took it in). */
  indexed: boolean;
  /** Heap bookkeeping: the version of its live heap entry. */
  version: number;
};

/**
 * `seq`: the order entries were pushed in, which breaks ties of `at` (a number: a run takes in ~100,000 attempts due at
 * the same time, and comparing their ids was most of the heap's cost).
 */
type HeapEntry = { at: number; seq: number; attempt: OpenAttempt; version: number };

export class OpenAttempts {
  private readonly byId = new Map<string, OpenAttempt>();
  /** Each account's own heap: a run takes due attempts across accounts in turn (takeDue). */
  private readonly heaps = new Map<string, HeapEntry[]>();
  private pushed = 0;

  get size(): number {
    return this.byId.size;
  }

  has(attemptId: string): boolean {
    return this.byId.has(attemptId);
  }

  get(attemptId: string): OpenAttempt | undefined {
    return this.byId.get(attemptId);
  }

  values(): IterableIterator<OpenAttempt> {
    return this.byId.values();
  }

  /** Adds an attempt (ignored when already open: a segment read again after a crash). */
  add(attempt: OpenAttempt): boolean {
    if (this.byId.has(attempt.attemptId)) return false;
    this.byId.set(attempt.attemptId, attempt);
    this.push({ at: attempt.nextCheckAt, seq: this.pushed++, attempt, version: attempt.version });
    return true;
  }

  remove(attemptId: string): void {
    const attempt = this.byId.get(attemptId);
    if (!attempt) return;
    attempt.version++; // its heap entry goes stale
    this.byId.delete(attemptId);
  }

  /**
   * Takes up to `limit` attempts due at `now`, the caller reschedules or removes each. Accounts take
   * turns, one attempt each per turn, each account's earliest first (the accounts of a turn in the
   * order their earliest came due): an account with more due attempts than a run takes leaves every
   * other account its share of the run, so its backlog delays nobody else's by more than one run.
   */
  takeDue(now: number, limit: number): OpenAttempt[] {
    const due: OpenAttempt[] = [];
    const turns: { heap: HeapEntry[]; head: HeapEntry }[] = [];
    for (const heap of this.heaps.values()) {
      const head = liveHead(heap);
      if (head && head.at <= now) turns.push({ heap, head });
    }
    turns.sort((a, b) => (before(a.head, b.head) ? -1 : 1));
    let accounts = turns.map((turn) => turn.heap);
    while (due.length < limit && accounts.length > 1) {
      const still: HeapEntry[][] = [];
      for (const heap of accounts) {
        if (due.length === limit) break;
        const head = liveHead(heap);
        if (!head || head.at > now) continue;
        pop(heap);
        head.attempt.version++; // taken: no live heap entry until rescheduled
        due.push(head.attempt);
        still.push(heap);
      }
      accounts = still;
    }
    // One account left: the rest of its due attempts in order, without turns.
    for (const heap of accounts) {
      for (let head = liveHead(heap); due.length < limit && head && head.at <= now; head = liveHead(heap)) {
        pop(heap);
        head.attempt.version++;
        due.push(head.attempt);
      }
    }
    for (const [account, heap] of this.heaps) if (heap.length === 0) this.heaps.delete(account);
    return due;
  }

  /** Puts a taken attempt back, due at `at`. */
  reschedule(attempt: OpenAttempt, at: number): void {
    attempt.nextCheckAt = at;
    attempt.version++;
    if (this.byId.get(attempt.attemptId) === attempt)
      this.push({ at, seq: this.pushed++, attempt, version: attempt.version });
  }

  /** When the next attempt is due (Infinity when none is open). */
  nextDueAt(): number {
    let next = Infinity;
    for (const [account, heap] of this.heaps) {
      const head = liveHead(heap);
      if (head) next = Math.min(next, head.at);
      else this.heaps.delete(account);
    }
    return next;
  }

  private push(entry: HeapEntry): void {
    const account = entry.attempt.accountId;
    let heap = this.heaps.get(account);
    if (!heap) this.heaps.set(account, (heap = []));
    push(heap, entry);
  }
}

/** The heap's earliest live entry, its stale ones above it popped; undefined when none is left. */
function liveHead(heap: HeapEntry[]): HeapEntry | undefined {
  while (heap.length > 0) {
    const top = heap[0];
    if (top.attempt.version === top.version) return top;
    pop(heap);
  }
  return undefined;
}

// Sifts move a hole instead of swapping pairs (a swap by destructuring builds an array per step):
// a run pops and pushes ~200,000 entries of heaps of ~500,000 at 20,000 envelopes/s.
function push(heap: HeapEntry[], entry: HeapEntry): void {
  let i = heap.length;
  heap.push(entry);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(entry, heap[parent])) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = entry;
}

function pop(heap: HeapEntry[]): HeapEntry {
  const top = heap[0];
  const last = heap.pop()!;
  const n = heap.length;
  if (n > 0) {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right], heap[left]) ? right : left;
      if (!before(heap[child], last)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
  }
  return top;
}

/** Earlier first; at equal times, first come first (taken in or rescheduled first, looked up first). */
function before(a: HeapEntry, b: HeapEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** A new open attempt, due at `at`. */
export function openAttempt(attempt: Attempt, at: number): OpenAttempt {
  return { ...attempt, checks: 0, nextCheckAt: at, expiry: null, expiryCap: null, indexed: false, version: 0 };
}

/**
 * The most blocks past the chain's height at an attempt's first look-up that its expiry is believed: a blockhash is
 * valid for 150 blocks after the one it was taken at, so an honest lastValidBlockHeight is at most ~150 ahead of the
 * height when it is sent; 300 leaves margin for a lagging RPC node.
 */
export const MAX_BLOCKS_TO_EXPIRY = 300;

/**
 * Sets an attempt's expiry cap at `height` (the chain's, at its first look-up) + MAX_BLOCKS_TO_EXPIRY: a made-up
 * far-future lastValidBlockHeight would otherwise keep it open, looked up every 30 s, until the 24 h limit. The
 * client's lastValidBlockHeight stays as it was sent.
 */
export function capExpiry(attempt: OpenAttempt, height: number): void {
  attempt.expiryCap = height + MAX_BLOCKS_TO_EXPIRY;
}

/** The block height after which the attempt counts as expired: its lastValidBlockHeight, or the cap when lower. */
export function expiryOf(attempt: OpenAttempt): number {
  return attempt.expiryCap === null || attempt.expiryCap === undefined
    ? attempt.lastValidBlockHeight
    : Math.min(attempt.lastValidBlockHeight, attempt.expiryCap);
}

/** Whether the cap, not the client's lastValidBlockHeight, decides the attempt's expiry. */
export const cappedExpiry = (attempt: OpenAttempt): boolean =>
  attempt.expiryCap !== null && attempt.expiryCap !== undefined && attempt.expiryCap < attempt.lastValidBlockHeight;

/**
 * Due attempts of at most `maxPrograms` distinct programs, the rest `deferred` (still due: the next round takes them).
 * Every program is a partition a round's recording writes at once (DuckDB holds a Parquet writer per partition), so a
 * round's programs are bounded whatever envelopes name: 3,000 made-up programs in one recording ran DuckDB out of
 * memory. Programs are granted round-robin across accounts, each account's in the order its attempts came due, so
 * an account naming thousands of programs takes one share of a round and every other account's programs go in the
 * same round.
 */
export function withinProgramBudget(
  due: OpenAttempt[],
  maxPrograms: number,
): { taken: OpenAttempt[]; deferred: OpenAttempt[] } {
  const programsByAccount = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const attempt of due) {
    if (seen.has(attempt.program)) continue;
    seen.add(attempt.program);
    let programs = programsByAccount.get(attempt.accountId);
    if (!programs) programsByAccount.set(attempt.accountId, (programs = []));
    programs.push(attempt.program);
  }
  if (seen.size <= maxPrograms) return { taken: due, deferred: [] };
  // A program several accounts name is listed under the first to name it: granted once, it takes all their attempts.
  const granted = new Set<string>();
  const queues = [...programsByAccount.values()];
  for (let turn = 0; granted.size < maxPrograms; turn++) {
    let any = false;
    for (const programs of queues) {
      if (turn >= programs.length) continue;
      any = true;
      granted.add(programs[turn]);
      if (granted.size === maxPrograms) break;
    }
    if (!any) break;
  }
  const taken: OpenAttempt[] = [];
  const deferred: OpenAttempt[] = [];
  for (const attempt of due) (granted.has(attempt.program) ? taken : deferred).push(attempt);
  return { taken, deferred };
}
