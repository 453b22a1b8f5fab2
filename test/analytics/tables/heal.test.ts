// A refresh whose state names parts that compaction has since merged: a day read back for hour
// units or edge rows (a deploy's periods, a window's start reaching a new day) reads the lake's
// current parts holding what the state took in, never the retired names, and a state that disagrees
// with the lake (compaction merged parts the state had not taken in) has the days it reads repaired
// from the lake as it is now, and says so. Real DuckDB and Parquet in a temp directory.

import { afterEach, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { generateLake } from "../../../devkit/generate";
import { baseline, releaseDiff, topIssues } from "../../../src/analytics/queries";
import { type BuildResult, buildServingTables } from "../../../src/analytics/tables/build";
import { type LakePart, type TakenPart, takenInLake } from "../../../src/analytics/tables/intake";
import { WINDOW_NAMES } from "../../../src/analytics/windows";
import { recordDeploy } from "../../../src/chain/deploys";
import { recordLakeTakenBefore, recordSegment } from "../../../src/control";
import { compactLake } from "../../../src/lake/compact";
import { batchOfPart } from "../../../src/lake/publish";
import { testContext } from "../../helpers/context";
import { END_MS, untilVersion } from "../support";

const DAY = 86_400_000;
const HEAVY_MS = 120_000;

let ctx: Awaited<ReturnType<typeof testContext>> | null = null;
afterEach(() => {
  ctx?.dispose();
  ctx = null;
});

/** A generated lake of several parts per partition, each marked committed so that compaction may merge it. */
async function lakeWithParts(envelopes: number, days: number) {
  const c = await testContext();
  ctx = c;
  let clock = END_MS;
  (c as { clock: () => number }).clock = () => clock;
  const world = await generateLake({
    dataDir: c.config.dataDir,
    envelopes,
    programs: 2,
    days,
    seed: 7,
    endMs: END_MS,
    threads: 1,
    chunkRows: Math.ceil(envelopes / 3),
  });
  markCommitted(c);
  return {
    ctx: c,
    world,
    setClock: (at: number) => {
      clock = at;
    },
  };
}

/** Every generated part's batch recorded as a committed spool segment (compaction merges only those). */
function markCommitted(c: NonNullable<typeof ctx>) {
  const batches = new Set<string>();
  for (const dataset of ["envelopes", "resolutions"] as const)
    for (const name of readdirSync(c.paths.dataset(dataset), { recursive: true, encoding: "utf8" }))
      if (name.endsWith(".parquet")) batches.add(batchOfPart(name.split("/").pop()!)!);
  for (const batch of batches) {
    try {
      recordSegment(c.control, batch, 0, [], Date.now());
    } catch {
      // recorded by an earlier call
    }
  }
}

async function refresh(c: NonNullable<typeof ctx>, options: { full?: boolean } = {}): Promise<BuildResult> {
  const result = await buildServingTables(c, options);
  await untilVersion(c, result.version);
  return result;
}

/** The answers the day loads feed (windows' partial days and hours, release periods), per program. */
async function answers(c: NonNullable<typeof ctx>, programs: string[], deploySlots: number[]) {
  const out: Record<string, unknown> = {};
  for (const program of programs)
    for (const window of WINDOW_NAMES) {
      out[`baseline/${program}/${window}`] = await baseline(c, { program, window, accountId: null });
      out[`top/${program}/${window}`] = await topIssues(c, { program, window, accountId: null, limit: 500 });
      for (const deploy of deploySlots)
        out[`release/${program}/${window}/${deploy}`] = await releaseDiff(c, {
          program,
          window,
          accountId: null,
          deploy,
        }).catch((error) => String(error));
    }
  return out;
}

/** The next UTC midnight after `at`. */
const nextMidnight = (at: number) => (Math.floor(at / DAY) + 1) * DAY;

test(
  "parts merged after the state took them in are read by their current names: a deploy and a midnight later",
  async () => {
    const { ctx: c, world, setClock } = await lakeWithParts(6_000, 3);
    expect((await refresh(c)).full).toBe(true);
    // Compaction merges what the tables job took in (the mark its refresh recorded).
    const compacted = await compactLake(c, { minParts: 2, now: Date.now() });
    expect(compacted.partsMerged).toBeGreaterThan(0);

    // A deploy detected 7 s after it happened: its periods read back the hours around it.
    const program = world.programs[0];
    setClock(END_MS + 60_000);
    await recordDeploy(c.paths, c.duck, {
      program,
      slot: 999_999_999,
      deployedAt: END_MS - 3 * 3_600_000 - 7_000,
      detectedAt: END_MS + 53_000,
      authority: null,
    });
    const afterDeploy = await refresh(c);
    expect(afterDeploy.full).toBe(false);
    expect(afterDeploy.repaired).toEqual([]);

    // Compacted again (the new part tiers), then UTC midnight: the windows' starts reach new days and hours.
    await compactLake(c, { minParts: 2, now: Date.now() });
    setClock(nextMidnight(END_MS) + 31_000);
    const afterMidnight = await refresh(c);
    expect(afterMidnight.full).toBe(false);
    expect(afterMidnight.daysLoaded).toBeGreaterThan(0);
    expect(afterMidnight.repaired).toEqual([]);

    const slots = [...world.deploys.filter((d) => d.program === program).map((d) => d.slot), 999_999_999];
    const incremental = await answers(c, world.programs, slots);
    await refresh(c, { full: true });
    expect(incremental).toEqual(await answers(c, world.programs, slots));
  },
  HEAVY_MS,
);

test(
  "a state that disagrees with the lake (parts not taken in merged with parts taken in) has the days it reads repaired",
  async () => {
    const { ctx: c, world, setClock } = await lakeWithParts(6_000, 14);
    expect((await refresh(c)).full).toBe(true);
    // Late data for days well past arrives and is published, but before the tables job takes it in,
    // compaction (the job's mark over an hour old: the job was down) merges it with the parts taken in.
    await generateLake({
      dataDir: c.config.dataDir,
      envelopes: 900,
      programs: 2,
      days: 3,
      seed: 7,
      endMs: END_MS - 9 * DAY,
      threads: 1,
      append: { variant: 1 },
    });
    markCommitted(c);
    recordLakeTakenBefore(c.control, Date.now() - 2 * 3_600_000);
    expect((await compactLake(c, { minParts: 2, now: Date.now() })).partsMerged).toBeGreaterThan(0);

    // A deploy detected late, eleven days ago: its periods read back that day's hours, from
    // partitions compaction merged.
    const program = world.programs[0];
    const firstSlot = Math.min(...world.deploys.filter((d) => d.program === program).map((d) => d.slot));
    const slot = firstSlot - 1_000_000;
    setClock(END_MS + 60_000);
    await recordDeploy(c.paths, c.duck, {
      program,
      slot,
      deployedAt: END_MS - 11 * DAY + 8 * 3_600_000 - 7_000,
      detectedAt: END_MS + 53_000,
      authority: null,
    });
    const run = await refresh(c);
    expect(run.full).toBe(false);
    expect(run.attempts).toBe(900);
    expect(run.repaired.length).toBeGreaterThan(0);
    for (const repair of run.repaired) {
      expect(world.programs).toContain(repair.program);
      expect(repair.reason).toBe("merged-with-parts-not-taken-in");
    }
    // The state's record now names the lake's parts: nothing disagrees at the next refresh.
    expect((await refresh(c)).repaired).toEqual([]);

    const slots = [...world.deploys.map((d) => d.slot), slot];
    const incremental = await answers(c, world.programs, slots);
    await refresh(c, { full: true });
    expect(incremental).toEqual(await answers(c, world.programs, slots));
  },
  HEAVY_MS,
);

const part = (dataset: "envelopes" | "resolutions", day: string, name: string, bytes = 100): LakePart => ({
  dataset,
  program: "A",
  day,
  name,
  path: `/lake/${dataset}/program=A/day=${day}/${name}`,
  bytes,
  publishedMs: 1,
});
const held = (p: LakePart, rows: number, segments: string[] = []): TakenPart => ({ ...p, rows, segments });

test("takenInLake maps the state's record onto the listing: kept parts, the compacted parts that replaced the others", () => {
  const day = "2025-11-20";
  const e1 = part("envelopes", day, "part-s1-0.parquet");
  const e2 = part("envelopes", day, "part-s2-0.parquet");
  const merged = part("envelopes", day, "part-c-m-0.parquet", 150);
  const arrived = part("envelopes", day, "part-s3-0.parquet");
  const state = [held(e1, 10, ["s1"]), held(e2, 20, ["s2"])];

  // Nothing compacted: the parts taken in, not the new arrival.
  expect(takenInLake([e1, e2, arrived], state, new Map())).toEqual([
    { dataset: "envelopes", program: "A", day, files: [e1.path, e2.path], disagreement: null, segments: ["s1", "s2"] },
  ]);
  // Compaction merged exactly what was taken in: the compacted part holds it.
  const exact = takenInLake([merged, arrived], state, new Map([[merged.path, 30]]));
  expect(exact.map((p) => [p.files, p.disagreement])).toEqual([[[merged.path], null]]);
  // It merged a part not taken in too (its mark was ignored): read for what the state holds.
  const more = takenInLake([merged], state, new Map([[merged.path, 45]]));
  expect(more.map((p) => [p.files, p.disagreement])).toEqual([[[merged.path], "merged-with-parts-not-taken-in"]]);
  // A part taken in is gone and nothing holds its rows.
  const fewer = takenInLake([e1, arrived], state, new Map());
  expect(fewer.map((p) => [p.files, p.disagreement])).toEqual([[[e1.path], "parts-missing"]]);
  // A partition gone from the lake (retention) is left to the plan.
  expect(takenInLake([part("envelopes", "2025-11-21", "part-s9-0.parquet")], state, new Map())).toEqual([]);
});
