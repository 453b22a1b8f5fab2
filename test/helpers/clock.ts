// A clock for tests that runs with the wall clock and can be moved forward: a test that needs time to
// pass (an answer reused for a second, an attempt due again later) advances it instead of sleeping.
// It stays close to the real time, so timestamps written through it still read as "now" elsewhere.

import { realTimers, type TimerHandle, type Timers } from "../../src/context";

export type AdvancingClock = (() => number) & {
  /** Moves this clock `ms` ahead of the wall clock (on top of any earlier advance). */
  advance(ms: number): void;
};

export function advancingClock(): AdvancingClock {
  let offset = 0;
  return Object.assign(() => Date.now() + offset, {
    advance(ms: number) {
      offset += ms;
    },
  });
}

/**
 * A clock and timers that move only when the test says so: `advance(ms)` fires each timer that comes
 * due, earliest first (in the order set, at one time), with the clock at that timer's time, and lets
 * the work it starts settle (a macrotask: every promise chain that waits on no real I/O ends) before
 * the next one. Give `clock` and `timers` to the context; nothing then waits on the wall clock.
 */
export type ManualTime = {
  clock: () => number;
  timers: Timers;
  /** Moves the clock `ms` on, firing the timers due by then, one at a time. */
  advance(ms: number): Promise<void>;
  /** How many timers are set and not yet fired or cleared. */
  pending(): number;
};

type ManualTimer = TimerHandle & { at: number; order: number; fn: () => void };

export function manualTime(start = Date.now()): ManualTime {
  let now = start;
  let order = 0;
  const due = new Set<ManualTimer>();
  const timers: Timers = {
    set(fn, ms) {
      const timer: ManualTimer = { timer: null, at: now + Math.max(0, ms), order: order++, fn };
      due.add(timer);
      return timer;
    },
    clear: (handle) => void due.delete(handle as ManualTimer),
    sleep: (ms) => new Promise<void>((resolve) => timers.set(resolve, ms)),
  };
  const next = (until: number): ManualTimer | null => {
    let first: ManualTimer | null = null;
    for (const timer of due)
      if (
        timer.at <= until &&
        (first === null || timer.at < first.at || (timer.at === first.at && timer.order < first.order))
      )
        first = timer;
    return first;
  };
  return {
    clock: () => now,
    timers,
    async advance(ms) {
      const until = now + ms;
      await settle();
      for (let timer = next(until); timer !== null; timer = next(until)) {
        due.delete(timer);
        now = timer.at;
        timer.fn();
        await settle();
      }
      now = until;
      await settle();
    },
    pending: () => due.size,
  };
}

/** One macrotask: the promise chains that wait on no real I/O have run to their end. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Real timers whose `sleep` returns at once and records the wait it was asked for: what retries with
 * backoff (the RPC client) still retries, as often and with the same waits, without the test waiting.
 */
export function instantSleeps(): Timers & { slept: number[] } {
  const slept: number[] = [];
  return {
    ...realTimers,
    slept,
    sleep: async (ms) => void slept.push(ms),
  };
}
