// The in-process scheduler: each job on its interval, never overlapping itself (also not across
// processes: a lease in the control DB), every run recorded and visible in /v1/status.
import { afterEach, expect, test } from "bun:test";
import { runJob, startScheduler, type Job } from "../../src/jobs/scheduler";
import { lastJobRuns } from "../../src/control";
import { testContext } from "../helpers/context";

let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

test("runs each job repeatedly, one run at a time, and records every run", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let running = 0;
  let maxConcurrent = 0;
  let runs = 0;
  const slow: Job = {
    name: "slow",
    async run() {
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      await Bun.sleep(30);
      running--;
      runs++;
      return { runs };
    },
  };
  const failing: Job = { name: "failing", run: async () => { throw new Error("rpc down"); } };
  const scheduler = startScheduler(ctx, [{ job: slow, intervalMs: 10 }, { job: failing, intervalMs: 10 }], {});
  await Bun.sleep(1300);
  await scheduler.stop();
  expect(runs).toBeGreaterThanOrEqual(3);
  expect(maxConcurrent).toBe(1);
  const status = lastJobRuns(ctx.control);
  expect(status.slow).toMatchObject({ ok: true, error: null });
  expect(status.slow.durationMs).toBeGreaterThanOrEqual(25);
  expect(status.failing).toMatchObject({ ok: false, error: "rpc down" });
  const recorded = ctx.control.query<{ n: number }, [string]>("SELECT count(*) AS n FROM job_runs WHERE job = ?").get("slow")!.n;
  expect(recorded).toBe(runs);
});

test("a run is skipped while another one of the same job holds its lease", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const job: Job = { name: "exclusive", run: async () => { await gate; return {}; } };
  const first = runJob(ctx, job);
  await Bun.sleep(20);
  const second = await runJob(ctx, job);
  expect(second).toMatchObject({ ok: true, skipped: true });
  release();
  expect((await first).skipped).toBeUndefined();
});

test("a run that reports a backlog is followed by the next within a second, not after its interval", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let runs = 0;
  // Two runs that leave work behind (like the resolver at its per-run cap), then one that does not.
  const busy: Job = { name: "busy", run: async () => ({ backlog: ++runs < 3 }) };
  const scheduler = startScheduler(ctx, [{ job: busy, intervalMs: 60_000 }], {});
  await Bun.sleep(5_000);
  await scheduler.stop();
  // First run after a second, two more 200 ms apart each; the fourth would wait the minute.
  expect(runs).toBe(3);
}, 15_000);

test("a run that reports new data wakes the job it feeds, whatever that job's interval", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let consumerRuns = 0;
  // The producer (like flush) reports new rows at every run; the consumer (like resolve) has an hour-long interval.
  const producer: Job = { name: "producer", run: async () => ({ rows: 10 }) };
  const consumer: Job = { name: "consumer", run: async () => (consumerRuns++, {}) };
  const scheduler = startScheduler(
    ctx,
    [
      { job: producer, intervalMs: 200, wakes: { job: "consumer", when: (details) => Number(details.rows) > 0 } },
      { job: consumer, intervalMs: 3_600_000 },
    ],
    {},
  );
  await Bun.sleep(1_500);
  await scheduler.stop();
  expect(consumerRuns).toBeGreaterThanOrEqual(3); // only wakes run it more than once within its hour
});

test("a run's nextRunInMs brings the job's next run forward", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let runs = 0;
  // Like the resolver with attempts due soon: four runs ask to run again in 50 ms, then none.
  const job: Job = { name: "due-soon", run: async () => ({ nextRunInMs: ++runs <= 4 ? 50 : null }) };
  const scheduler = startScheduler(ctx, [{ job, intervalMs: 3_600_000 }], {});
  await Bun.sleep(1_800);
  await scheduler.stop();
  expect(runs).toBe(5);
});
