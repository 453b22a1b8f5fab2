// The in-process scheduler of `bun run start`: each job on its own interval, a run never overlapping
// the previous one (the next is scheduled when the current one ends). TXRAY_SCHEDULER=off disables it.

import type { Context } from "../context";
import { runJob, type Job, type JobRuntime } from "./jobs";

export type ScheduledJob = { job: Job; intervalMs: number };

export function startScheduler(ctx: Context, schedule: ScheduledJob[], runtime: JobRuntime): { stop(): Promise<void> } {
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const running = new Set<Promise<unknown>>();
  for (const { job, intervalMs } of schedule) {
    const tick = () => {
      if (stopped) return;
      const run = runJob(ctx, job, runtime).finally(() => {
        running.delete(run);
        if (!stopped) timers.add(setTimeout(tick, intervalMs));
      });
      running.add(run);
    };
    timers.add(setTimeout(tick, Math.min(intervalMs, 1000)));
  }
  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}

export { runJob, type Job, type JobRuntime } from "./jobs";
