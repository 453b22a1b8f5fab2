// The in-process scheduler of `bun run start`: each job on its own interval, a run never overlapping
// the previous one (the next is scheduled when the current one ends). TXRAY_SCHEDULER=off disables it.
// A job that fails is retried with exponential backoff (twice the interval after each consecutive
// failure, at most RETRY_CAP) and back on its interval after its first success: a fault that clears
// (disk space, the RPC endpoint) is recovered from without anyone restarting anything. stop() aborts
// the running jobs' signal (they end at a safe point) and waits for them.

import type { Context } from "../context";
import { Stopped } from "../shared/stop";
import { runJob, type Job, type JobRuntime } from "./jobs";

export type ScheduledJob = { job: Job; intervalMs: number };

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
  for (const { job, intervalMs } of schedule) {
    let failures = 0;
    const tick = () => {
      if (stopped) return;
      const run = runJob(ctx, job, { ...runtime, signal: controller.signal })
        .then((outcome) => {
          if (outcome.skipped || outcome.stopped) return;
          failures = outcome.ok ? 0 : failures + 1;
          if (failures > 0) ctx.logger.warn("job failed; retrying with backoff", { job: job.name, failures, retryInMs: retryDelayMs(intervalMs, failures) });
        })
        .finally(() => {
          running.delete(run);
          if (!stopped) timers.add(setTimeout(tick, retryDelayMs(intervalMs, failures)));
        });
      running.add(run);
    };
    timers.add(setTimeout(tick, Math.min(intervalMs, 1000)));
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

export { runJob, type Job, type JobRuntime } from "./jobs";
