// The in-process scheduler of `bun run start`: each job on its own interval, a run never overlapping
// the previous one (the next is scheduled when the current one ends). TXRAY_SCHEDULER=off disables it.
// A daily job runs at a fixed UTC time of day by the context's clock; if `missed`
// says its last occurrence was not done (the process was down then), it also runs soon after start.
// A job that fails is retried with exponential backoff (twice the interval after each consecutive
// failure, at most a minute or four intervals) and back on its interval after its first success: a
// fault that clears (disk space, the RPC endpoint) is recovered from without anyone restarting
// anything. A disk-full failure waits at most DISK_FULL_RETRY_CAP_MS (or the interval): nothing
// announces the freed space, and ingest keeps filling the spool meanwhile. stop() aborts
// the running jobs' signal (they end at a safe point) and waits for them. A job whose run reports
// `backlog: true` (the resolver took its per-run cap and more is waiting) runs again after
// BACKLOG_DELAY_MS instead of a whole interval, so a busy instance is not held to cap ÷ interval.
// An interval entry may also run `after` other jobs: a successful run of one of them (whose details
// meet the entry's condition, when it has one) starts it at once, or right after its current run
// (the alerts job after each tables build; resolve after a flush that brought new rows). A run may
// also say when it wants to run next (`nextRunInMs`: the resolver's next due look-up). Work driven
// by data runs within moments of the data, and the interval is only the longest wait. Every wait is
// a timer of the context's (`ctx.timers`) and every time of day its clock, so tests move time on.

import { type Component, type Context, settlesBy, type TimerHandle } from "../context";
import { recordSchedule } from "../control";
import { describeError } from "../shared/logger";
import { Stopped } from "../shared/stop";
import { type Job, type JobOutcome, type JobRuntime, runJob } from "./run";

const DAY_MS = 86_400_000;
/** Long enough for the other jobs' timers and requests to get the thread between back-to-back runs. */
const BACKLOG_DELAY_MS = 200;

/**
 * Run this entry's job as soon as a run of `job` (by name) succeeds with details for which `when` holds (always,
 * without one).
 */
/**
 * `when`: the condition on the run's details (none: every successful run). `minGapMs`: a wake never
 * starts the job sooner than this after its previous start (it is planned for then instead), so what
 * wakes it often (data a client controls) cannot keep it running back to back.
 */
export type RunAfter = { job: string; when?: (details: Record<string, unknown>) => boolean; minGapMs?: number };

export type ScheduledJob =
  | { job: Job; intervalMs: number; after?: readonly RunAfter[] }
  | { job: Job; dailyAtMs: number; missed?: (ctx: Context) => boolean };

/** The shortest wait a run's `nextRunInMs` or a wake can ask for (no busy loop between runs). */
const MIN_DELAY_MS = 50;

/** The first time strictly after `now` that is `atMs` past a UTC midnight. */
export function nextDailyRun(now: number, atMs: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS + atMs;
  return today > now ? today : today + DAY_MS;
}

/** A failure for want of disk space (Node, SQLite, DuckDB wording): it clears the moment space is freed. */
const DISK_FULL = /ENOSPC|EDQUOT|no space left|disk is full|quota exceeded/i;
/** The longest wait after a disk-full failure (or the interval, when longer): a freed disk is used within seconds. */
export const DISK_FULL_RETRY_CAP_MS = 5_000;

/** Delay before the next run after `failures` consecutive failures (0: the interval), the latest with `error`. */
export function retryDelayMs(intervalMs: number, failures: number, error?: string): number {
  if (failures === 0) return intervalMs;
  const cap =
    error !== undefined && DISK_FULL.test(error)
      ? Math.max(DISK_FULL_RETRY_CAP_MS, intervalMs)
      : Math.max(60_000, 4 * intervalMs);
  return Math.min(cap, intervalMs * 2 ** Math.min(failures, 20));
}

/**
 * The scheduler started at once, for a caller that is not a list of components (tests); stop() waits for the runs
 * without a deadline.
 */
export function startScheduler(ctx: Context, schedule: ScheduledJob[], runtime: JobRuntime): { stop(): Promise<void> } {
  const scheduler = createScheduler(ctx, schedule, runtime);
  scheduler.start();
  return {
    async stop() {
      scheduler.drain();
      await scheduler.finished();
    },
  };
}

/**
 * The scheduler as a component of a process (src/server): start plans every entry; drain starts no
 * more runs and aborts the running ones (they end at a safe point); stop waits for them, and for the
 * hosts of jobs that run elsewhere to close, until the deadline.
 */
export function schedulerComponent(ctx: Context, schedule: ScheduledJob[], runtime: JobRuntime): Component {
  const scheduler = createScheduler(ctx, schedule, runtime);
  return {
    name: "scheduler",
    start: scheduler.start,
    drain: scheduler.drain,
    async stop(deadline) {
      scheduler.drain();
      if (!(await settlesBy(scheduler.finished(), deadline)))
        ctx.logger.warn("shutdown: a job did not reach a safe point before the deadline");
    },
  };
}

function createScheduler(ctx: Context, schedule: ScheduledJob[], runtime: JobRuntime) {
  let stopped = false;
  const controller = new AbortController();
  const timers = new Set<TimerHandle>();
  const running = new Set<Promise<unknown>>();
  const later = (fn: () => void, delayMs: number) => {
    const timer = ctx.timers.set(() => {
      timers.delete(timer);
      fn();
    }, delayMs);
    timers.add(timer);
    return timer;
  };
  const cancel = (timer: TimerHandle) => {
    ctx.timers.clear(timer);
    timers.delete(timer);
  };
  /** What to start after a successful run of the named job (`after`), given that run's details. */
  const followers = new Map<string, ((details: Record<string, unknown>) => void)[]>();
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
        const finished = result as JobOutcome | null;
        if (finished?.ok && !finished.skipped)
          for (const follow of followers.get(job.name) ?? []) follow(finished.details ?? {});
      });
    running.add(run);
  };
  const planAll = () => {
    const intervals = schedule.flatMap((entry) => ("intervalMs" in entry ? [[entry.job.name, entry.intervalMs]] : []));
    try {
      recordSchedule(ctx.control, Object.fromEntries(intervals), ctx.clock());
    } catch (error) {
      // Only status's report of the interval depends on it: the jobs run all the same.
      ctx.logger.warn("scheduler: could not record its intervals", { error: describeError(error) });
    }
    for (const entry of schedule) {
      if ("intervalMs" in entry) {
        const { job, intervalMs } = entry;
        let failures = 0;
        /** When the first of the failed runs since the job's last success started (for the recovery line). */
        let failingSince = "";
        let busy = false;
        let again = false;
        let timer: TimerHandle | null = null;
        /** When the planned run starts (null: none planned), and when the latest run started. */
        let plannedAt: number | null = null;
        let startedAt = Number.NEGATIVE_INFINITY;
        const plan = (delayMs: number) => {
          if (timer !== null) cancel(timer);
          plannedAt = ctx.clock() + delayMs;
          timer = later(() => {
            timer = null;
            plannedAt = null;
            tick();
          }, delayMs);
        };
        const tick = () => {
          busy = true;
          again = false;
          startedAt = ctx.clock();
          start(job, (outcome) => {
            busy = false;
            if (outcome && !outcome.skipped && !outcome.stopped) {
              if (outcome.ok && failures > 0)
                ctx.logger.info("job recovered", { job: job.name, failedRuns: failures, failingSince });
              if (!outcome.ok && failures === 0) failingSince = new Date(startedAt).toISOString();
              failures = outcome.ok ? 0 : failures + 1;
              if (failures > 0)
                ctx.logger.warn("job failed; retrying with backoff", {
                  job: job.name,
                  failures,
                  retryInMs: retryDelayMs(intervalMs, failures, outcome.error),
                });
            }
            const details = outcome?.ok === true ? (outcome.details ?? {}) : null;
            // A job that reports a backlog (it took less than was waiting) runs again almost at once, not after a whole
            // interval.
            let delay =
              details?.backlog === true
                ? Math.min(intervalMs, BACKLOG_DELAY_MS)
                : retryDelayMs(intervalMs, failures, outcome?.error);
            if (details && typeof details.nextRunInMs === "number")
              delay = Math.min(delay, Math.max(MIN_DELAY_MS, details.nextRunInMs));
            if (again && failures === 0)
              delay = Math.min(delay, Math.max(MIN_DELAY_MS, startedAt + againGapMs - ctx.clock()));
            plan(delay);
          });
        };
        /** After its run, how soon a wake may start the job again (the smallest gap of the wakes since it started). */
        let againGapMs = 0;
        const trigger = (minGapMs: number) => {
          if (busy) {
            againGapMs = again ? Math.min(againGapMs, minGapMs) : minGapMs;
            again = true;
            return;
          }
          if (failures > 0) return; // a failing job keeps its backoff
          const delay = Math.max(MIN_DELAY_MS, startedAt + minGapMs - ctx.clock());
          if (plannedAt === null || ctx.clock() + delay < plannedAt) plan(delay);
        };
        for (const after of entry.after ?? []) {
          const follow = (details: Record<string, unknown>) => {
            if (after.when === undefined || after.when(details)) trigger(after.minGapMs ?? 0);
          };
          followers.set(after.job, [...(followers.get(after.job) ?? []), follow]);
        }
        plan(Math.min(intervalMs, 1000));
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
  };
  let finishing: Promise<void> | null = null;
  return {
    start: planAll,
    drain() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) ctx.timers.clear(timer);
      controller.abort(new Stopped());
    },
    /** The running jobs ended and the hosts closed (after drain). */
    finished() {
      finishing ??= (async () => {
        await Promise.allSettled([...running]);
        await Promise.allSettled(schedule.map((entry) => entry.job.close?.()));
      })();
      return finishing;
    },
  };
}

export { type Job, type JobRuntime, runJob } from "./run";
