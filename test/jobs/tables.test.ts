// The tables job over a backlog: a refresh takes in at most `maxRows` and says what it left
// (`backlog`, which the scheduler answers by running it again at once); run from outside
// (`txray jobs run tables`: untilCaughtUp) it refreshes until nothing is left, so the command's answer
// includes everything that was in the lake when it started.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import { baseline } from "../../src/analytics/queries";
import { serviceStatus } from "../../src/contract/status";
import { lakeTakenBefore } from "../../src/control";
import { runJob } from "../../src/jobs/run";
import { tablesJobFor } from "../../src/jobs/tables";
import { END_MS, untilVersion } from "../analytics/support";
import { testContext } from "../helpers/context";

const HEAVY_MS = 120_000;
const MINUTE = 60_000;

let ctx: Awaited<ReturnType<typeof testContext>>;
let world: GenerateResult;
beforeAll(async () => {
  ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => END_MS + 10 * MINUTE;
  world = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 3_000,
    programs: 3,
    days: 3,
    seed: 7,
    endMs: END_MS,
    threads: 2,
  });
}, HEAVY_MS);
afterAll(() => {
  ctx.dispose();
});

async function attemptsToday() {
  let total = 0;
  for (const program of world.programs) {
    const answer = await baseline(ctx, { program, window: "1d", accountId: null });
    total += answer.rates.attempts + answer.pending;
  }
  return total;
}

test(
  "a scheduled run leaves a backlog it reports; a run from outside refreshes until none is left",
  async () => {
    const job = tablesJobFor({ maxRows: 500 });
    const first = await runJob(ctx, job, { untilCaughtUp: true });
    expect(first.ok).toBe(true);
    const before = await attemptsToday();
    const markAtFirst = lakeTakenBefore(ctx.control)!;

    for (const variant of [1, 2, 3]) {
      await generateLake({
        dataDir: ctx.config.dataDir,
        envelopes: 400,
        programs: 3,
        days: 2 / 1440,
        seed: 7,
        endMs: END_MS + (2 + 2 * variant) * MINUTE,
        threads: 2,
        append: { variant },
      });
      await Bun.sleep(5);
    }
    const scheduled = await runJob(ctx, job, {});
    expect(scheduled.ok).toBe(true);
    expect(scheduled.details).toMatchObject({ backlog: true });
    const taken = Number(scheduled.details?.attempts);
    expect(taken).toBeWithin(1, 600);
    expect(Number(scheduled.details?.deferredRows)).toBeGreaterThan(600);
    // What it took in may be compacted: the mark moves to the first part it left, not stays behind
    // (a refresh behind under steady load otherwise let compaction merge nothing).
    const markBehind = lakeTakenBefore(ctx.control)!;
    expect(markBehind).toBeGreaterThan(markAtFirst);
    expect(markBehind).toBeLessThan(Date.now());
    // /v1/status says the answers leave rows out (its clock alone looks recent).
    const behind = serviceStatus(ctx, null).freshness.serving;
    expect(behind).toMatchObject({ stale: true, version: Number(scheduled.details?.version) });
    expect(behind.reason).toContain(`left ${Number(scheduled.details?.deferredRows).toLocaleString("en-US")} new rows`);

    const settled = await runJob(ctx, job, { untilCaughtUp: true });
    expect(settled.ok).toBe(true);
    expect(settled.details).toMatchObject({ backlog: false, deferredRows: 0, attempts: 1_200 - taken });
    expect(Number(settled.details?.refreshes)).toBeGreaterThan(1);
    await untilVersion(ctx, Number(settled.details?.version));
    expect(await attemptsToday()).toBe(before + 1_200);
    expect(serviceStatus(ctx, null).freshness.serving).toMatchObject({ stale: false, reason: null });
    expect(lakeTakenBefore(ctx.control)!).toBeGreaterThan(markBehind);
  },
  HEAVY_MS,
);
