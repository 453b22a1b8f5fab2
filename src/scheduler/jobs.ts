// Running a job: one place that records each run (for /v1/status), prevents overlapping runs of the
// same job across processes (a lease in the control database) and never lets a failure escape.
// The scheduler, the CLI (`txray jobs run`) and `bun run jobs/<name>.ts` all go through runJob.

import { ifLeaseFree, recordJobEnd, recordJobStart } from "../control";
import type { Context } from "../context";
import type { Spool } from "../ingest/spool";
import { describeError } from "../shared/logger";

/** What a job may use besides the context: the spool when it runs inside the server. */
export type JobRuntime = { spool?: Spool };
export type Job = { name: string; run(ctx: Context, runtime: JobRuntime): Promise<Record<string, unknown>> };
export type JobOutcome = { job: string; ok: boolean; skipped?: boolean; durationMs: number; error?: string; details?: Record<string, unknown> };

/**
 * Runs `job` unless another process is running it (then `skipped`). With `waitForLeaseMs` (a job run
 * from outside the server) it waits for that run to end and then runs, so its answer includes
 * everything that was there when it was asked.
 */
export async function runJob(ctx: Context, job: Job, runtime: JobRuntime = {}, options: { waitForLeaseMs?: number } = {}): Promise<JobOutcome> {
  const started = performance.now();
  const deadline = Date.now() + (options.waitForLeaseMs ?? 0);
  for (;;) {
    const outcome = await runJobIfFree(ctx, job, runtime, started);
    if (!outcome.skipped || Date.now() >= deadline) return outcome;
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
      ctx.logger.error("job failed", { job: job.name, error: message });
      return { job: job.name, ok: false, durationMs, error: message } satisfies JobOutcome;
    }
  });
  if (!attempt.ran) return { job: job.name, ok: true, skipped: true, durationMs: 0 };
  return attempt.value;
}
