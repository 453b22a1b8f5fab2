// Running a job: one place that records each run (for /v1/status), prevents overlapping runs of the
// same job across processes (a lease in the control database) and never lets a failure escape.
// The scheduler and the CLI (`txray jobs run`) both go through runJob.

import type { Context, OwnedPart } from "../context";
import { ifLeaseFree, recordJobEnd, recordJobStart } from "../control";
import { describeError } from "../shared/logger";
import { Stopped } from "../shared/stop";
import type { Spool } from "../spool";

/**
 * What a job may use besides the context: the spool when it runs inside the server, and the signal
 * a graceful shutdown aborts (the job then ends at its next safe point).
 */
export type JobRuntime = {
  spool?: Spool;
  signal?: AbortSignal;
  /**
   * Run from outside the server (`txray jobs run`): do all that can be done now (resolve: until nothing is due within
   * seconds), not one scheduler step.
   */
  untilCaughtUp?: boolean;
};
/**
 * What a run started outside the server must do first (src/jobs/cli-runs.ts): `sealed-spool`, ask live
 * ingest nodes to seal so everything acknowledged is flushable; `fresh-lake`, flush first (implies the
 * seal); `chain`, warn when a live server resolves against another SOLANA_RPC_URL.
 */
export type JobNeed = "sealed-spool" | "fresh-lake" | "chain";
export type Job = {
  name: string;
  needs?: readonly JobNeed[];
  run(ctx: Context, runtime: JobRuntime): Promise<Record<string, unknown>>;
  /**
   * Releases what the job keeps between runs (a job on a thread of its own: the thread); the scheduler calls it when it
   * stops.
   */
  close?(): Promise<void>;
};
export type JobOutcome = {
  job: string;
  ok: boolean;
  skipped?: boolean;
  stopped?: boolean;
  durationMs: number;
  error?: string;
  details?: Record<string, unknown>;
};

type UnrecordedFailure = { at: number; error: string; consecutive: number };

/**
 * Failures this context's runs could not write to the control database (a full or read-only disk
 * stops SQLite too), by job; /v1/status shows them until a later run of the job is recorded.
 */
const UNRECORDED_FAILURES: OwnedPart<Map<string, UnrecordedFailure>> = {
  name: "unrecorded job failures",
  make: () => new Map(),
};
export const unrecordedFailures = (ctx: Context): ReadonlyMap<string, UnrecordedFailure> =>
  ctx.own(UNRECORDED_FAILURES);

/**
 * Runs `job` unless another process is running it (then `skipped`). With `waitForLeaseMs` (a job run
 * from outside the server) it waits for that run to end and then runs, so its answer includes
 * everything that was there when it was asked.
 */
export async function runJob(
  ctx: Context,
  job: Job,
  runtime: JobRuntime = {},
  options: { waitForLeaseMs?: number } = {},
): Promise<JobOutcome> {
  const unrecorded = ctx.own(UNRECORDED_FAILURES);
  try {
    const outcome = await runWhenFree(ctx, job, runtime, options);
    if (!outcome.skipped) unrecorded.delete(job.name);
    return outcome;
  } catch (error) {
    // The control database itself failed: the run cannot be recorded there, but it is still a
    // failure that status shows and the scheduler retries, never an exception that escapes.
    const message = describeError(error);
    ctx.logger.error("job failed and could not be recorded", { job: job.name, error: message });
    unrecorded.set(job.name, {
      at: ctx.clock(),
      error: message,
      consecutive: (unrecorded.get(job.name)?.consecutive ?? 0) + 1,
    });
    return { job: job.name, ok: false, durationMs: 0, error: message };
  }
}

async function runWhenFree(
  ctx: Context,
  job: Job,
  runtime: JobRuntime,
  options: { waitForLeaseMs?: number },
): Promise<JobOutcome> {
  const started = performance.now();
  const deadline = Date.now() + (options.waitForLeaseMs ?? 0);
  for (;;) {
    const outcome = await runJobIfFree(ctx, job, runtime, started);
    if (!outcome.skipped || Date.now() >= deadline || runtime.signal?.aborted) return outcome;
    await Bun.sleep(100);
  }
}

async function runJobIfFree(ctx: Context, job: Job, runtime: JobRuntime, started: number): Promise<JobOutcome> {
  const attempt = await ifLeaseFree(ctx.control, `job:${job.name}`, async () => {
    const runId = recordJobStart(ctx.control, job.name, ctx.clock());
    try {
      const details = await job.run(ctx, runtime);
      const durationMs = Math.round(performance.now() - started);
      recordJobEnd(ctx.control, runId, { ok: true, durationMs, details }, ctx.clock());
      return { job: job.name, ok: true, durationMs, details } satisfies JobOutcome;
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      const message = describeError(error);
      recordJobEnd(ctx.control, runId, { ok: false, durationMs, error: message }, ctx.clock());
      // A shutdown's abort surfaces as whatever the job was awaiting threw (an aborted fetch, an
      // interrupted query), not always as Stopped: an aborted run is stopped, never a failure to alarm on.
      if (error instanceof Stopped || runtime.signal?.aborted) {
        ctx.logger.info("job stopped at a safe point", { job: job.name });
        return { job: job.name, ok: false, stopped: true, durationMs, error: message } satisfies JobOutcome;
      }
      ctx.logger.error("job failed", { job: job.name, error: message });
      return { job: job.name, ok: false, durationMs, error: message } satisfies JobOutcome;
    }
  });
  if (!attempt.ran) return { job: job.name, ok: true, skipped: true, durationMs: 0 };
  return attempt.value;
}
