// The in-process scheduler: each job on its interval, never overlapping itself (also not across
// processes: a lease in the control DB), every run recorded and visible in /v1/status. The context's
// clock and timers are a manualTime(): the test moves time on instead of sleeping.
import { afterEach, expect, test } from "bun:test";
import { lastJobRuns } from "../../src/control";
import { type Job, runJob, startScheduler } from "../../src/jobs/scheduler";
import type { Logger } from "../../src/shared/logger";
import { manualTime } from "../helpers/clock";
import { testContext } from "../helpers/context";

let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

test("runs each job repeatedly, one run at a time, and records every run", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let running = 0;
  let maxConcurrent = 0;
  let runs = 0;
  // Real work of 30 ms (its recorded duration is measured on the wall clock), while time stands still.
  let work: Promise<void> = Promise.resolve();
  const slow: Job = {
    name: "slow",
    async run() {
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      work = Bun.sleep(30);
      await work;
      running--;
      runs++;
      return { runs };
    },
  };
  const failing: Job = {
    name: "failing",
    run: async () => {
      throw new Error("rpc down");
    },
  };
  const scheduler = startScheduler(
    ctx,
    [
      { job: slow, intervalMs: 10 },
      { job: failing, intervalMs: 10 },
    ],
    {},
  );
  for (let step = 0; step < 100 && runs < 3; step++) {
    await time.advance(10);
    await work;
  }
  await scheduler.stop();
  expect(runs).toBeGreaterThanOrEqual(3);
  expect(maxConcurrent).toBe(1);
  const status = lastJobRuns(ctx.control);
  expect(status.slow).toMatchObject({ ok: true, error: null });
  expect(status.slow.durationMs).toBeGreaterThanOrEqual(25);
  expect(status.failing).toMatchObject({ ok: false, error: "rpc down" });
  const recorded = ctx.control
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM job_runs WHERE job = ?")
    .get("slow")!.n;
  expect(recorded).toBe(runs);
});

test("a failing job is retried after twice its interval, doubling, and is back on its interval after a success", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  const ranAt: number[] = [];
  const flaky: Job = {
    name: "flaky",
    run: async (c) => {
      ranAt.push(c.clock());
      if (ranAt.length <= 4) throw new Error("rpc down");
      return {};
    },
  };
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  (ctx as { logger: Logger }).logger = {
    debug: () => {},
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
  };
  const scheduler = startScheduler(ctx, [{ job: flaky, intervalMs: 1_000 }], {});
  await time.advance(40_000);
  await scheduler.stop();
  const waits = ranAt.slice(1).map((at, i) => at - ranAt[i]);
  expect(waits.slice(0, 6)).toEqual([2_000, 4_000, 8_000, 16_000, 1_000, 1_000]);
  // Each failure says when it retries; the first success after them says the job recovered, once.
  expect(lines.filter((l) => l.message === "job failed; retrying with backoff")).toHaveLength(4);
  const recovered = lines.filter((l) => l.message === "job recovered");
  expect(recovered).toEqual([
    {
      level: "info",
      message: "job recovered",
      fields: { job: "flaky", failedRuns: 4, failingSince: new Date(ranAt[0]).toISOString() },
    },
  ]);
});

test("a run is skipped while another one of the same job holds its lease", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const job: Job = {
    name: "exclusive",
    run: async () => {
      await gate;
      return {};
    },
  };
  const first = runJob(ctx, job); // takes the lease before its first await
  const second = await runJob(ctx, job);
  expect(second).toMatchObject({ ok: true, skipped: true });
  release();
  expect((await first).skipped).toBeUndefined();
});

test("a run that reports a backlog is followed by the next within a second, not after its interval", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let runs = 0;
  // Two runs that leave work behind (like the resolver at its per-run cap), then one that does not.
  const busy: Job = { name: "busy", run: async () => ({ backlog: ++runs < 3 }) };
  const scheduler = startScheduler(ctx, [{ job: busy, intervalMs: 60_000 }], {});
  await time.advance(5_000);
  await scheduler.stop();
  // First run after a second, two more 200 ms apart each; the fourth would wait the minute.
  expect(runs).toBe(3);
});

test("a job scheduled `after` another runs right after each of its successful runs, never after a failed one, one run at a time", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  const order: string[] = [];
  let producerRuns = 0;
  // The producer fails every third run; a failed run starts nothing.
  const producer: Job = {
    name: "producer",
    async run() {
      const failing = ++producerRuns % 3 === 0;
      order.push(failing ? "P-" : "P+");
      if (failing) throw new Error("no data");
      return {};
    },
  };
  let running = 0;
  let overlapped = false;
  const follower: Job = {
    name: "follower",
    async run() {
      overlapped ||= running > 0;
      running++;
      order.push("F");
      await time.timers.sleep(10);
      running--;
      return {};
    },
  };
  // The follower's own interval is a minute: apart from its first tick (at 1 s), every run was started by the producer.
  const scheduler = startScheduler(
    ctx,
    [
      { job: producer, intervalMs: 300 },
      { job: follower, intervalMs: 60_000, after: [{ job: "producer" }] },
    ],
    {},
  );
  await time.advance(3_500);
  await scheduler.stop();
  expect(overlapped).toBe(false);
  expect(producerRuns).toBeGreaterThanOrEqual(6);
  const successes = order.filter((name) => name === "P+").length;
  const followerRuns = order.filter((name) => name === "F").length;
  // One follower run per successful producer run (the last may have been cut by stop), plus the first tick.
  expect(followerRuns).toBeGreaterThanOrEqual(successes - 1);
  expect(followerRuns).toBeLessThanOrEqual(successes + 1);
  // Each successful producer run (but the last) is directly followed by the follower; failed ones are not, but for the single interval tick.
  const afterSuccess = order
    .slice(0, -2)
    .map((name, i) => (name === "P+" ? order[i + 1] : null))
    .filter((next) => next !== null);
  expect(afterSuccess.every((next) => next === "F")).toBe(true);
  const afterFailure = order.map((name, i) => (name === "P-" ? order[i + 1] : null)).filter((next) => next === "F");
  expect(afterFailure.length).toBeLessThanOrEqual(1);
});

test("the registry runs the alerts job after every tables build and on its own interval", async () => {
  const { schedule } = await import("../../src/jobs/registry");
  const { loadConfig } = await import("../../src/config");
  const entry = schedule(loadConfig({ ALERTS_INTERVAL_MS: "7000" })).find((e) => e.job.name === "alerts") as {
    intervalMs: number;
    after?: { job: string }[];
  };
  expect(entry).toMatchObject({ intervalMs: 7000, after: [{ job: "tables" }] });
});

test("the registry wakes the tables job after a resolve run that saw a new issue and after a recorded deploy", async () => {
  const { schedule } = await import("../../src/jobs/registry");
  const { loadConfig } = await import("../../src/config");
  const entry = schedule(loadConfig({})).find((e) => e.job.name === "tables") as {
    after?: { job: string; when?: (details: Record<string, unknown>) => boolean }[];
  };
  const wakes = (job: string, details: Record<string, unknown>) =>
    (entry.after ?? []).some((after) => after.job === job && (after.when?.(details) ?? true));
  const failures = { landed: 40, failed_onchain: 1, dropped: 3, preflight: 2 };
  expect(wakes("resolve", { resolved: failures, newIssues: 1 })).toBe(true);
  // Failures of issues already known wait for the interval: a program failing all the time does not
  // keep the tables job refreshing back to back.
  expect(wakes("resolve", { resolved: failures, newIssues: 0 })).toBe(false);
  expect(wakes("resolve", { resolved: { landed: 40, failed_onchain: 0, dropped: 0, preflight: 0 } })).toBe(false);
  expect(wakes("deploys", { recorded: 1 })).toBe(true);
  expect(wakes("deploys", { recorded: 0 })).toBe(false);
});

test("a run that reports new data wakes the job it feeds, whatever that job's interval", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let consumerRuns = 0;
  // The producer (like flush) reports new rows at every run; the consumer (like resolve) has an hour-long interval.
  const producer: Job = { name: "producer", run: async () => ({ rows: 10 }) };
  const consumer: Job = {
    name: "consumer",
    run: async () => {
      consumerRuns++;
      return {};
    },
  };
  const scheduler = startScheduler(
    ctx,
    [
      { job: producer, intervalMs: 200 },
      {
        job: consumer,
        intervalMs: 3_600_000,
        after: [{ job: "producer", when: (details) => Number(details.rows) > 0 }],
      },
    ],
    {},
  );
  await time.advance(1_500);
  await scheduler.stop();
  expect(consumerRuns).toBeGreaterThanOrEqual(3); // only wakes run it more than once within its hour
});

test("a wake with minGapMs starts the job at most that often, however often it comes", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  const starts: number[] = [];
  // The producer (like resolve seeing new issues) wakes its consumer every 100 ms; the consumer (like
  // tables) may be woken at most every second, and has an hour-long interval.
  const producer: Job = { name: "producer", run: async () => ({ newIssues: 1 }) };
  const consumer: Job = {
    name: "consumer",
    run: async () => {
      starts.push(ctx.clock());
      return {};
    },
  };
  const scheduler = startScheduler(
    ctx,
    [
      { job: producer, intervalMs: 100 },
      { job: consumer, intervalMs: 3_600_000, after: [{ job: "producer", minGapMs: 1_000 }] },
    ],
    {},
  );
  await time.advance(5_500);
  await scheduler.stop();
  const gaps = starts.slice(1).map((at, i) => at - starts[i]);
  expect(starts.length).toBeGreaterThanOrEqual(4); // woken, not waiting for its hour
  expect(starts.length).toBeLessThanOrEqual(6);
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1_000);
});

test("a run's nextRunInMs brings the job's next run forward", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let runs = 0;
  // Like the resolver with attempts due soon: four runs ask to run again in 50 ms, then none.
  const job: Job = { name: "due-soon", run: async () => ({ nextRunInMs: ++runs <= 4 ? 50 : null }) };
  const scheduler = startScheduler(ctx, [{ job, intervalMs: 3_600_000 }], {});
  await time.advance(1_800);
  await scheduler.stop();
  expect(runs).toBe(5);
});
