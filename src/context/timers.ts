// The timer effect: what waits for time (the scheduler's runs, the RPC client's retry backoff) asks
// the context for it, so a test drives time itself (test/helpers/clock.ts) instead of sleeping.

/** What `set` returns, for `clear`: opaque to the caller. */
export type TimerHandle = { readonly timer: unknown };

export type Timers = {
  /** Calls `fn` once, `ms` from now (at once for 0 or less). */
  set(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer that has not fired yet (a fired or cleared one: nothing). */
  clear(handle: TimerHandle): void;
  sleep(ms: number): Promise<void>;
};

export const realTimers: Timers = {
  set: (fn, ms) => ({ timer: setTimeout(fn, Math.max(0, ms)) }),
  clear: (handle) => clearTimeout(handle.timer as ReturnType<typeof setTimeout>),
  sleep: (ms) => Bun.sleep(Math.max(0, ms)),
};
