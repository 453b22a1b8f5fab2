// The Landing Score's numbers against an independent reading of a generated lake: the window, the
// deterministic sample and its honest rate, counts, rates, Wilson intervals, provider mix and
// ranks, the listing minimum. Everything expected here is recomputed in the test from the lake's
// rows (support.ts joins them in TypeScript) and the documented rules, not taken from the job.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateLake } from "../../devkit/generate";
import { MINIMUM_SENDS, runLandingScore, type Snapshot } from "../../src/analytics/landing-score";
import { inSample, readJson, type ScoreContext, scoreContext, wilsonReference } from "./landing-score-support";
import { END_MS, type Row, readLakeRows } from "./support";

// END_MS is 2025-11-21 04:40 UTC: the last complete day is 2025-11-20, its window 11-14 … 11-20.
const DATE = "2025-11-20";
const SINCE = Date.UTC(2025, 10, 14);
const UNTIL = Date.UTC(2025, 10, 21);
const RESOLVED_BEFORE = UNTIL + 15 * 60_000;

let ctx: ScoreContext;
let rows: Row[];
let programs: string[];
beforeAll(async () => {
  ctx = await scoreContext(END_MS);
  const generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 24_000,
    programs: 4,
    days: 30,
    seed: 11,
    endMs: END_MS,
    threads: 2,
  });
  programs = generated.programs;
  rows = await readLakeRows(ctx);
}, 60_000);
afterAll(() => ctx.dispose());

/** The window's send attempts of a program (preflight excluded). */
const windowSends = (program: string) =>
  rows.filter((r) => r.program === program && r.kind === "send" && r.received_at >= SINCE && r.received_at < UNTIL);
const counted = (r: Row) =>
  r.resolved_at !== null &&
  r.resolved_at < RESOLVED_BEFORE &&
  ["landed", "failed_onchain", "dropped"].includes(r.outcome ?? "");

type Expected = {
  program: string;
  sends: number;
  landed: number;
  failedOnchain: number;
  dropped: number;
  providers: Map<string, number>;
};

function expectedRow(program: string, rate: number): Expected {
  const sample = windowSends(program).filter((r) => inSample(r.attempt_id, rate) && counted(r));
  const providers = new Map<string, number>();
  for (const r of sample) providers.set(r.rpc_label ?? "unknown", (providers.get(r.rpc_label ?? "unknown") ?? 0) + 1);
  return {
    program,
    sends: sample.length,
    landed: sample.filter((r) => r.outcome === "landed").length,
    failedOnchain: sample.filter((r) => r.outcome === "failed_onchain").length,
    dropped: sample.filter((r) => r.outcome === "dropped").length,
    providers,
  };
}

function expectRowMatches(row: Snapshot["programs"][number], e: Expected) {
  expect(row).toMatchObject({
    program: e.program,
    sends: e.sends,
    landed: e.landed,
    failedOnchain: e.failedOnchain,
    dropped: e.dropped,
  });
  expect(row.landingRate).toBeCloseTo(e.landed / e.sends, 12);
  expect(row.dropRate).toBeCloseTo(e.dropped / e.sends, 12);
  const [lo, hi] = wilsonReference(e.landed, e.sends);
  expect(row.ci95[0]).toBeCloseTo(lo, 12);
  expect(row.ci95[1]).toBeCloseTo(hi, 12);
  expect(row.ci95[0]).toBeLessThan(row.landingRate);
  expect(row.ci95[1]).toBeGreaterThan(row.landingRate);
  expect(Object.fromEntries(row.providers.map((p) => [p.rpcLabel, p.sends]))).toEqual(Object.fromEntries(e.providers));
  for (const p of row.providers) expect(p.share).toBeCloseTo(p.sends / e.sends, 12);
  // Largest share first.
  expect(row.providers.map((p) => p.sends)).toEqual([...row.providers.map((p) => p.sends)].sort((a, b) => b - a));
}

describe("every send counted (sampleRate 1)", () => {
  let snapshot: Snapshot;
  beforeAll(async () => {
    const result = await runLandingScore(ctx);
    expect(result.date).toBe(DATE);
    snapshot = readJson(`${ctx.dir}/${DATE}.json`);
  }, 30_000);

  test("the header: sample, date, the window from the date alone, the minimum and the methodology", () => {
    expect(snapshot).toMatchObject({
      schemaVersion: 1,
      sample: true,
      date: DATE,
      window: { since: SINCE, until: UNTIL, resolvedBefore: RESOLVED_BEFORE },
    });
    expect(snapshot.minimumSends).toBe(MINIMUM_SENDS);
    expect(MINIMUM_SENDS).toBe(100);
    expect(snapshot.methodology).toContain("md5(attempt_id)");
    expect(snapshot.methodology).toContain("Wilson");
    expect(snapshot.methodology).toContain(`fewer than ${MINIMUM_SENDS} counted sends`);
  });

  test("counts, rates, Wilson intervals and provider mix equal the lake's, per program", () => {
    expect(snapshot.programs.length).toBe(programs.length);
    for (const row of snapshot.programs) {
      expect(row.sampleRate).toBe(1);
      expectRowMatches(row, expectedRow(row.program, 1));
      expect(row.accounts).toBe(2); // the generator reports each program through two accounts
    }
    // Attempts outside the window, preflight and pending attempts really existed and were left out.
    const all = rows.filter((r) => r.program === programs[0]);
    expect(all.some((r) => r.received_at < SINCE)).toBe(true);
    expect(all.some((r) => r.kind === "preflight" && r.received_at >= SINCE && r.received_at < UNTIL)).toBe(true);
  });

  test("ranked by the interval's lower bound, highest first", () => {
    const expected = programs
      .map((program) => ({
        program,
        lo: wilsonReference(expectedRow(program, 1).landed, expectedRow(program, 1).sends)[0],
      }))
      .sort((a, b) => b.lo - a.lo)
      .map((x) => x.program);
    expect(snapshot.programs.map((r) => r.program)).toEqual(expected);
    expect(snapshot.programs.map((r) => r.rank)).toEqual(programs.map((_, k) => k + 1));
  });

  test("a date with a partial window and a date before the lake: the window moves with the date only", async () => {
    const result = await runLandingScore(ctx, { date: "2025-11-21" }); // today at END_MS: allowed
    expect(result.latest).toBe(true);
    const today: Snapshot = readJson(`${ctx.dir}/2025-11-21.json`);
    expect(today.window.since).toBe(Date.UTC(2025, 10, 15));
    const expected = expectedRowFor(today.programs[0].program, Date.UTC(2025, 10, 15), Date.UTC(2025, 10, 22));
    expect(today.programs[0].sends).toBe(expected);
    await runLandingScore(ctx, { date: "2024-01-01" });
    expect(readJson(`${ctx.dir}/2024-01-01.json`).programs).toEqual([]);
    // An older date never replaces latest.json.
    expect(readJson(`${ctx.dir}/latest.json`).date).toBe("2025-11-21");
    await expect(runLandingScore(ctx, { date: "2025-11-22" })).rejects.toThrow("in the future");
    await expect(runLandingScore(ctx, { date: "2025-02-30" })).rejects.toThrow("calendar date");
  });
});

function expectedRowFor(program: string, since: number, until: number): number {
  return rows.filter(
    (r) =>
      r.program === program &&
      r.kind === "send" &&
      r.received_at >= since &&
      r.received_at < until &&
      r.resolved_at !== null &&
      r.resolved_at < until + 15 * 60_000 &&
      r.outcome !== "preflight",
  ).length;
}

describe("sampled (cap of 400 sampled sends per program)", () => {
  let snapshot: Snapshot;
  beforeAll(async () => {
    await runLandingScore(ctx, { date: DATE, maxSampledSends: 400 });
    snapshot = readJson(`${ctx.dir}/${DATE}.json`);
  }, 30_000);

  test("each program's rate caps its sample and is the rate actually used", () => {
    expect(snapshot.sampling).toEqual({ method: "md5(attempt_id) < sampleRate * 2^64", maxSampledSends: 400 });
    for (const row of snapshot.programs) {
      const population = windowSends(row.program).length;
      expect(population).toBeGreaterThan(400);
      expect(row.sampleRate).toBe(Number((400 / population).toPrecision(4)));
      expectRowMatches(row, expectedRow(row.program, row.sampleRate));
    }
  });

  test("honest rate: sampled attempts ≈ rate × sends, within 4 binomial standard deviations", () => {
    let sampled = 0;
    let expected = 0;
    let variance = 0;
    for (const row of snapshot.programs) {
      const population = windowSends(row.program);
      const n = population.filter((r) => inSample(r.attempt_id, row.sampleRate)).length;
      const mean = row.sampleRate * population.length;
      const sd = Math.sqrt(population.length * row.sampleRate * (1 - row.sampleRate));
      expect(Math.abs(n - mean)).toBeLessThan(4 * sd);
      sampled += n;
      expected += mean;
      variance += sd * sd;
      // The counted sends are the sampled ones that were resolved in time.
      expect(row.sends).toBe(population.filter((r) => inSample(r.attempt_id, row.sampleRate) && counted(r)).length);
    }
    expect(Math.abs(sampled - expected)).toBeLessThan(4 * Math.sqrt(variance));
  });

  test("deterministic: the same attempts are sampled on every run", async () => {
    const first = readJson(`${ctx.dir}/${DATE}.json`);
    await runLandingScore(ctx, { date: DATE, maxSampledSends: 400 });
    expect(readJson(`${ctx.dir}/${DATE}.json`)).toEqual(first);
  });

  test("programs under the minimum are left out, the rest keep their order", async () => {
    const bySends = [...snapshot.programs].sort((a, b) => a.sends - b.sends);
    const minimum = bySends[1].sends; // the smallest program falls below, the others reach it
    await runLandingScore(ctx, { date: DATE, maxSampledSends: 400, minimumSends: minimum });
    const pruned: Snapshot = readJson(`${ctx.dir}/${DATE}.json`);
    expect(pruned.minimumSends).toBe(minimum);
    expect(pruned.programs.map((r) => r.program)).toEqual(
      snapshot.programs.filter((r) => r.sends >= minimum).map((r) => r.program),
    );
    expect(pruned.programs.map((r) => r.program)).not.toContain(bySends[0].program);
    expect(pruned.programs.map((r) => r.rank)).toEqual(pruned.programs.map((_, k) => k + 1));
  });
});
