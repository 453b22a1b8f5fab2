// Compaction every few hundred milliseconds beside tables refreshes, while new parts keep being
// published, a deploy is recorded mid-way, the injected clock crosses UTC midnight and retention
// removes the oldest days: no tables run fails, and the serving answers at the end equal those of a
// full rebuild at the same clock. Real DuckDB and Parquet in a temp directory, bounded in time.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { baseline, cuHeadroom, providerReport, releaseDiff, topIssues } from "../../src/analytics/queries";
import { buildServingTables } from "../../src/analytics/tables/build";
import { WINDOW_NAMES } from "../../src/analytics/windows";
import { recordDeploy } from "../../src/chain/deploys";
import { recordSegment, withLease } from "../../src/control";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { compactLake } from "../../src/lake/compact";
import { batchOfPart } from "../../src/lake/publish";
import { applyRetention } from "../../src/ops/retention";
import { END_MS, untilVersion } from "../analytics/support";
import { testContext } from "../helpers/context";

const DAY = 86_400_000;
const MINUTE = 60_000;
/**
 * Wall time the publishing, compaction and refreshes go on for; TXRAY_CHAOS_MS runs it longer by hand
 * (`TXRAY_CHAOS_MS=300000 bun test test/reliability/compaction-chaos.test.ts`).
 */
const CHAOS_MS = Number(process.env.TXRAY_CHAOS_MS ?? 25_000);
/** Rounds take about a second: a bound that only a loop that never ends reaches. */
const MAX_ROUNDS = Math.max(200, CHAOS_MS / 100);
/** The chaos, then the comparison with a full rebuild. */
const TEST_TIMEOUT_MS = Math.max(120_000, 2 * CHAOS_MS + 60_000);

let ctx: Awaited<ReturnType<typeof testContext>>;
let clock = 0;
const scratch: string[] = [];
const committed = new Set<string>();

beforeAll(async () => {
  ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => clock;
}, 60_000);
afterAll(() => {
  ctx.dispose();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Every part's batch recorded as a committed spool segment, as flush does (compaction merges only those). */
function markCommitted() {
  for (const dataset of ["envelopes", "resolutions"] as const) {
    const root = ctx.paths.dataset(dataset);
    for (const name of readdirSync(root, { recursive: true, encoding: "utf8" })) {
      if (!name.endsWith(".parquet")) continue;
      const batch = batchOfPart(name.split("/").pop()!);
      if (batch === null || batch.startsWith("c-") || committed.has(batch)) continue;
      recordSegment(ctx.control, batch, 0, [], Date.now());
      committed.add(batch);
    }
  }
}

/**
 * New envelopes and their resolutions up to `endMs`, written aside and published as flush and the
 * resolver do: renamed into the lake under the lake lease, a whole batch at once.
 */
async function publish(variant: number, endMs: number) {
  const dir = mkdtempSync(join(tmpdir(), "txray-chaos-"));
  scratch.push(dir);
  await generateLake({
    dataDir: dir,
    envelopes: 240,
    programs: 2,
    days: 0.25,
    seed: 11,
    endMs,
    threads: 1,
    append: { variant },
  });
  await withLease(ctx.control, "lake", () => {
    for (const dataset of ["envelopes", "resolutions"] as const) {
      const from = join(dir, "lake", dataset);
      for (const name of readdirSync(from, { recursive: true, encoding: "utf8" })) {
        if (!name.endsWith(".parquet")) continue;
        const target = join(ctx.paths.dataset(dataset), name);
        mkdirSync(dirname(target), { recursive: true });
        renameSync(join(from, name), target);
      }
    }
  });
  markCommitted();
}

/** The answers the refreshes keep (issues summed over payer segments: see the report of this change). */
async function answers(programs: string[], slots: number[]) {
  const out: Record<string, unknown> = {};
  for (const program of programs)
    for (const window of WINDOW_NAMES) {
      const at = `${program}/${window}`;
      out[`baseline/${at}`] = await baseline(ctx, { program, window, accountId: null });
      out[`cu/${at}`] = await cuHeadroom(ctx, { program, window, accountId: null });
      out[`providers/${at}`] = await providerReport(ctx, { program, window, accountId: null });
      const top = (await topIssues(ctx, { program, window, accountId: null, limit: 500 })) as {
        segments?: Record<string, { fingerprint: string; count: number }[]>;
      };
      const counts = new Map<string, number>();
      for (const issues of Object.values(top.segments ?? {}))
        for (const issue of issues) counts.set(issue.fingerprint, (counts.get(issue.fingerprint) ?? 0) + issue.count);
      out[`issues/${at}`] = [...counts].sort(([a], [b]) => (a < b ? -1 : 1));
      for (const deploy of slots)
        out[`release/${at}/${deploy}`] = await releaseDiff(ctx, { program, window, accountId: null, deploy }).catch(
          (error) => String(error),
        );
    }
  return out;
}

test(
  "compaction in a loop beside refreshes, a deploy, midnight and retention: no failed run, answers of a rebuild",
  async () => {
    // The clock starts 40 minutes before a UTC midnight and moves 4 minutes per round.
    const midnight = (Math.floor(END_MS / DAY) + 1) * DAY;
    clock = midnight - 40 * MINUTE;
    const world = await generateLake({
      dataDir: ctx.config.dataDir,
      envelopes: 5_000,
      programs: 2,
      days: 34,
      seed: 11,
      endMs: clock - 5 * MINUTE,
      threads: 1,
      chunkRows: 1_700,
    });
    markCommitted();
    const first = await runJob(ctx, tablesJob);
    expect(first).toMatchObject({ ok: true });

    let compacting = true;
    let compactions = 0;
    let partsMerged = 0;
    const compactionErrors: string[] = [];
    const compaction = (async () => {
      while (compacting) {
        try {
          const result = await compactLake(ctx, {
            minParts: 2,
            now: Date.now(),
            swapsWaitFor: { lease: "job:tables", waitMs: 5_000 },
          });
          partsMerged += result.partsMerged;
        } catch (error) {
          compactionErrors.push(String(error));
        }
        compactions++;
        await Bun.sleep(150);
      }
    })();

    const failed: string[] = [];
    const repaired: unknown[] = [];
    let runs = 0;
    const program = world.programs[0];
    const deploySlot = Math.max(...world.deploys.map((d) => d.slot)) + 1_000_000;
    let deployed = false;
    let retained = false;
    const started = Date.now();
    for (let round = 1; Date.now() - started < CHAOS_MS || !deployed || !retained || clock < midnight; round++) {
      clock += 4 * MINUTE;
      await publish(round, clock - 30_000);
      if (!deployed && round >= 3) {
        // A deploy detected 7 s after it happened.
        await recordDeploy(ctx.paths, ctx.duck, {
          program,
          slot: deploySlot,
          deployedAt: clock - 7_000,
          detectedAt: clock,
          authority: null,
        });
        deployed = true;
      }
      if (!retained && clock > midnight) {
        // Retention removes the days before the 30-day window's first day and the day before it.
        const result = await applyRetention(ctx, { days: 32, leaseWaitMs: 60_000 });
        expect(result).not.toHaveProperty("skipped");
        retained = true;
      }
      const outcome = await runJob(ctx, tablesJob, {}, { waitForLeaseMs: 60_000 });
      runs++;
      if (!outcome.ok) failed.push(String(outcome.error));
      repaired.push(...((outcome.details as { repaired?: unknown[] } | undefined)?.repaired ?? []));
      expect(round).toBeLessThan(MAX_ROUNDS);
    }
    compacting = false;
    await compaction;

    // A run by hand says what it went through.
    if (process.env.TXRAY_CHAOS_MS)
      console.log(JSON.stringify({ runs, compactions, partsMerged, failed: failed.length }));
    expect(failed).toEqual([]);
    expect(compactionErrors).toEqual([]);
    expect(runs).toBeGreaterThan(10);
    expect(compactions).toBeGreaterThan(3);
    expect(partsMerged).toBeGreaterThan(0);
    // Compaction merged only parts the job had taken in: nothing to repair.
    expect(repaired).toEqual([]);

    const last = await buildServingTables(ctx);
    await untilVersion(ctx, last.version);
    const slots = [...world.deploys.map((d) => d.slot), deploySlot];
    const incremental = await answers(world.programs, slots);
    const full = await buildServingTables(ctx, { full: true });
    expect(full.clock).toBe(last.clock);
    await untilVersion(ctx, full.version);
    expect(incremental).toEqual(await answers(world.programs, slots));
  },
  TEST_TIMEOUT_MS,
);
