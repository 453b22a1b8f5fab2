// The scheduler's daily entries: a run at a fixed UTC time of day by the context's clock (injected
// here: a manualTime() a few hundred ms before the planned time, which the test advances), once per
// night, caught up at start when the last one was missed; and the Landing Score's nightly entry
// publishing the day that just ended.

import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { NIGHTLY_AT_MS } from "../../src/analytics/landing-score";
import { landingScoreJob } from "../../src/jobs/landing-score";
import { schedule } from "../../src/jobs/registry";
import { type Job, nextDailyRun, startScheduler } from "../../src/jobs/scheduler";
import { scoreContext } from "../analytics/landing-score-support";
import { manualTime } from "../helpers/clock";
import { testContext } from "../helpers/context";

const DAY = 86_400_000;
const MIDNIGHT = Date.UTC(2025, 10, 21); // 2025-11-21 00:00 UTC
let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

/** Waits until `done()` holds (or a generous deadline passes: the machine may be busy). */
async function until(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done() && performance.now() < deadline) await Bun.sleep(25);
}

test("nextDailyRun: the first planned time strictly after now", () => {
  expect(nextDailyRun(MIDNIGHT, NIGHTLY_AT_MS)).toBe(MIDNIGHT + NIGHTLY_AT_MS);
  expect(nextDailyRun(MIDNIGHT + NIGHTLY_AT_MS - 1, NIGHTLY_AT_MS)).toBe(MIDNIGHT + NIGHTLY_AT_MS);
  expect(nextDailyRun(MIDNIGHT + NIGHTLY_AT_MS, NIGHTLY_AT_MS)).toBe(MIDNIGHT + DAY + NIGHTLY_AT_MS);
  expect(nextDailyRun(MIDNIGHT - 1, NIGHTLY_AT_MS)).toBe(MIDNIGHT + NIGHTLY_AT_MS);
  expect(NIGHTLY_AT_MS).toBeGreaterThan(15 * 60_000); // after the resolutions' grace period
  expect(NIGHTLY_AT_MS).toBeLessThan(60 * 60_000); // "shortly after 00:00 UTC"
});

test("a daily job runs once at its time of day, not before, and again a day later", async () => {
  const time = manualTime(MIDNIGHT + NIGHTLY_AT_MS - 400);
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  const runs: number[] = [];
  const job: Job = {
    name: "nightly-test",
    run: async (c) => {
      runs.push(c.clock());
      return {};
    },
  };
  const scheduler = startScheduler(ctx, [{ job, dailyAtMs: NIGHTLY_AT_MS }], {});
  await time.advance(399);
  expect(runs).toEqual([]);
  await time.advance(1);
  expect(runs).toEqual([MIDNIGHT + NIGHTLY_AT_MS]);
  await time.advance(DAY - 1); // the next run is planned a day later
  expect(runs.length).toBe(1);
  await time.advance(1);
  await scheduler.stop();
  expect(runs).toEqual([MIDNIGHT + NIGHTLY_AT_MS, MIDNIGHT + DAY + NIGHTLY_AT_MS]);
});

test("a missed night is caught up soon after start, then the plan goes on", async () => {
  const time = manualTime(MIDNIGHT + 10 * 3_600_000);
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let runs = 0;
  const job: Job = {
    name: "nightly-test",
    run: async () => {
      runs++;
      return {};
    },
  };
  const scheduler = startScheduler(ctx, [{ job, dailyAtMs: NIGHTLY_AT_MS, missed: () => runs === 0 }], {});
  await time.advance(1_000);
  expect(runs).toBe(1);
  await time.advance(300);
  await scheduler.stop();
  expect(runs).toBe(1);
  const notMissed = startScheduler(ctx, [{ job, dailyAtMs: NIGHTLY_AT_MS, missed: () => false }], {});
  await time.advance(1_300);
  await notMissed.stop();
  expect(runs).toBe(1);
});

test("the nightly entry publishes the Landing Score of the day that just ended", async () => {
  const ctx = await scoreContext(0);
  dispose = ctx.dispose;
  const time = manualTime(MIDNIGHT + NIGHTLY_AT_MS - 300);
  Object.assign(ctx, { clock: time.clock, timers: time.timers });
  const entry = schedule(ctx.config).find((e) => e.job.name === "landing-score")!;
  expect(entry).toMatchObject({ job: landingScoreJob, dailyAtMs: NIGHTLY_AT_MS });
  // A fresh data directory: last night's snapshot is missing, so it is also caught up at start.
  expect("missed" in entry && entry.missed?.(ctx)).toBe(true);
  const scheduler = startScheduler(ctx, [{ job: entry.job, dailyAtMs: NIGHTLY_AT_MS }], {});
  await time.advance(300);
  // The run reads and writes real files: wait for its snapshot.
  await until(() => existsSync(join(ctx.dir, "2025-11-20.json")));
  await scheduler.stop();
  expect(existsSync(join(ctx.dir, "2025-11-20.json"))).toBe(true);
  expect(existsSync(join(ctx.dir, "2025-11-21.json"))).toBe(false);
  expect("missed" in entry && entry.missed?.(ctx)).toBe(false);
});
