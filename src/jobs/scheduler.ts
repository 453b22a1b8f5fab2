// The in-process scheduler of `bun run start`: each job on its own interval, a run never overlapping
// the previous one (the next is scheduled when the current one ends). TXRAY_SCHEDULER=off disables it.
// A daily job runs at a fixed UTC time of day by the context's clock (tests inject one); if `missed`
// says its last occurrence was not done (the process was down then), it also runs soon after start.
// A job that fails is retried with exponential backoff (twice the interval after each consecutive
// failure, at most RETRY_CAP) and back on its interval after its first success: a fault that clears
// (disk space, the RPC endpoint) is recovered from without anyone restarting anything. stop() aborts
// the running jobs' signal (they end at a safe point) and waits for them. A job whose run reports
// `backlog: true` (the resolver took its per-run cap and more is waiting) runs again after
// BACKLOG_DELAY_MS instead of a whole interval, so a busy instance is not held to cap ÷ interval.
// An interval entry may also run `after` other jobs: each successful run of one of them starts it at
// once (or right after its current run), so a job that reads another's output sees every new one
// (the alerts job after each tables build); its interval still runs it when nothing else does.

import type { Context } from "../context";
import { Stopped } from "../shared/stop";
import { runJob, type Job, type JobOutcome, type JobRuntime } from "./run";

const DAY_MS = 86_400_000;
/** Long enough for the other jobs' timers and requests to get the thread between back-to-back runs. */
const BACKLOG_DELAY_MS = 200;

export type ScheduledJob =
  | { job: Job; intervalMs: number; after?: readonly string[] }
  | { job: Job; dailyAtMs: number; missed?: (ctx: Context) => boolean };

/** The first time strictly after `now` that is `atMs` past a UTC midnight. */
export function nextDailyRun(now: number, atMs: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS + atMs;
  return today > now ? today : today + DAY_MS;
}

/** Delay before the next run after `failures` consecutive failures (0: the interval). */
export function retryDelayMs(intervalMs: number, failures: number): number {
  if (failures === 0) return intervalMs;
  const cap = Math.max(60_000, 4 * intervalMs);
  return Math.min(cap, intervalMs * 2 ** Math.min(failures, 20));
}

export function startScheduler(ctx: Context, schedule: ScheduledJob[], runtime: JobRuntime): { stop(): Promise<void> } {
  let stopped = false;
  const controller = new AbortController();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const running = new Set<Promise<unknown>>();
  const later = (fn: () => void, delayMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, Math.max(0, delayMs));
    timers.add(timer);
    return timer;
  };
  /** Jobs to start after a successful run of the named job (`after`). */
  const followers = new Map<string, (() => void)[]>();
  const start = (job: Job, then: (outcome: JobOutcome | null) => void) => {
    if (stopped) return;
    let result: JobOutcome | null = null;
    const run = runJob(ctx, job, { ...runtime, signal: controller.signal })
      .then((outcome) => {
        result = outcome;
      })
      .finally(() => {
        running.delete(run);
        if (stopped) return;
        then(result);
        if (result?.ok && !result.skipped) for (const follow of followers.get(job.name) ?? []) follow();
      });
    running.add(run);
  };
  for (const entry of schedule) {
    if ("intervalMs" in entry) {
      const { job, intervalMs } = entry;
      let failures = 0;
      // One run at a time: a trigger during a run asks for another right after it.
      const state: { timer: ReturnType<typeof setTimeout> | null; running: boolean; again: boolean } = { timer: null, running: false, again: false };
      const next = (delayMs: number) => (state.timer = later(tick, delayMs));
      function tick() {
        state.timer = null;
        state.running = true;
        start(job, (outcome) => {
          state.running = false;
          if (outcome && !outcome.skipped && !outcome.stopped) {
            failures = outcome.ok ? 0 : failures + 1;
            if (failures > 0) ctx.logger.warn("job failed; retrying with backoff", { job: job.name, failures, retryInMs: retryDelayMs(intervalMs, failures) });
          }
          // A job that reports a backlog (it took less than was waiting) runs again almost at once, not after a whole interval.
          const backlog = outcome?.ok === true && outcome.details?.backlog === true;
          if (state.again) {
            state.again = false;
            next(0);
          } else next(backlog ? Math.min(intervalMs, BACKLOG_DELAY_MS) : retryDelayMs(intervalMs, failures));
        });
      }
      const trigger = () => {
        if (state.running) {
          state.again = true;
          return;
        }
        if (state.timer) {
          clearTimeout(state.timer);
          timers.delete(state.timer);
        }
        next(0);
      };
      for (const name of entry.after ?? []) followers.set(name, [...(followers.get(name) ?? []), trigger]);
      next(Math.min(intervalMs, 1000));
      continue;
    }
    // Plan each run from the previous planned time, so a timer that fires a little early never
    // runs the same night twice; after a long stall, plan from the clock again.
    let planned = nextDailyRun(ctx.clock(), entry.dailyAtMs);
    const daily = () => {
      start(entry.job, () => {
        const now = ctx.clock();
        planned = planned + DAY_MS > now ? planned + DAY_MS : nextDailyRun(now, entry.dailyAtMs);
        later(daily, planned - now);
      });
    };
    const wait = () => later(daily, planned - ctx.clock());
    if (entry.missed?.(ctx)) {
      // Catch up now, then keep the plan (its own planned run may come soon after).
      later(() => start(entry.job, wait), 1000);
    } else wait();
  }
  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      controller.abort(new Stopped());
      await Promise.allSettled([...running]);
    },
  };
}

export { runJob, type Job, type JobRuntime } from "./run";
