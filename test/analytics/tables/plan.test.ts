// The refresh plan alone (plan.ts): plain facts in, plain data out, no lake or DuckDB. Rebuild or
// continue and why, what is read, deferred and forgotten, how the state is committed, and the ranges
// and units a version needs at its clock.

import { describe, expect, test } from "bun:test";
import type { LakePart, TakenPart } from "../../../src/analytics/tables/intake";
import {
  forgettableDays,
  planRanges,
  planRefresh,
  programsOf,
  RETENTION_DAYS,
  type RefreshFacts,
  refreshClock,
} from "../../../src/analytics/tables/plan";
import { STATE_SCHEMA } from "../../../src/analytics/tables/versions";

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** 2025-11-21T04:40:00Z. */
const NOW = 1_763_700_000_000;
const TODAY = Math.floor(NOW / DAY);
const isoDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

const part = (
  dataset: "envelopes" | "resolutions",
  program: string,
  day: number,
  name: string,
  publishedMs = 1,
  bytes = 100,
): LakePart => ({
  dataset,
  program,
  day: isoDay(day),
  name,
  path: `/lake/${dataset}/program=${program}/day=${isoDay(day)}/${name}`,
  bytes,
  publishedMs,
});
const taken = (p: LakePart, rows = 10): TakenPart => ({ ...p, rows, segments: [] });

/** A state that can be continued, its clock a minute before now, holding `held` and seeing `listed`. */
function facts(listed: LakePart[], held: LakePart[], overrides: Partial<RefreshFacts> = {}): RefreshFacts {
  const heldNames = new Set(held.map((p) => p.path));
  return {
    full: false,
    state: { upgraded: true, schema: STATE_SCHEMA, clock: NOW - 60_000 },
    listed,
    taken: held.map((p) => taken(p)),
    rows: new Map(listed.filter((p) => !heldNames.has(p.path)).map((p) => [p.path, 10])),
    now: NOW,
    chunkRows: 1_000,
    maxRows: 1_000,
    ...overrides,
  };
}

const old = [
  part("envelopes", "A", TODAY - 1, "part-a-0.parquet"),
  part("resolutions", "A", TODAY - 1, "part-r-0.parquet"),
];
const arrived = part("envelopes", "A", TODAY, "part-b-0.parquet", 5);

describe("rebuild or continue", () => {
  test("`full` rebuilds from every listed part, whatever the state holds", () => {
    const plan = planRefresh(
      facts([...old, arrived], old, { full: true, rows: new Map([...old, arrived].map((p) => [p.path, 10])) }),
    );
    expect(plan).toMatchObject({
      rebuild: "asked",
      full: true,
      intakeStep: "rebuild",
      departures: false,
      rescore: "all",
      previousClock: null,
      oneTransaction: false,
      deferredRows: 0,
      forgetDays: [],
    });
    expect(plan.clockFiles.sort()).toEqual([old[0].path, arrived.path].sort());
    expect(plan.intake.parts).toEqual([...old, arrived]);
  });

  test("a state without a clock (a first run, or one that never finished) is rebuilt", () => {
    const plan = planRefresh(facts(old, [], { taken: null, state: { upgraded: true, schema: null, clock: null } }));
    expect(plan.rebuild).toBe("no-state");
    expect(plan.full).toBe(true);
  });

  test("a state of another schema is rebuilt; one of this schema continues", () => {
    const other = { upgraded: true, schema: STATE_SCHEMA - 1, clock: NOW - 60_000 };
    expect(planRefresh(facts(old, old, { state: other })).rebuild).toBe("schema");
    expect(planRefresh(facts(old, old, { state: { ...other, schema: STATE_SCHEMA + 1 } })).rebuild).toBe("schema");
    expect(planRefresh(facts(old, old)).rebuild).toBeNull();
  });

  test("a failed upgrade rebuilds", () => {
    const state = { upgraded: false, schema: STATE_SCHEMA, clock: NOW - 60_000 };
    expect(planRefresh(facts(old, old, { state })).rebuild).toBe("upgrade-failed");
  });

  test("a rebuild never leaves rows for later, however many arrived", () => {
    const plan = planRefresh(facts([...old, arrived], [], { full: true, maxRows: 1 }));
    expect(plan.deferredRows).toBe(0);
    expect(plan.intake.parts).toHaveLength(3);
  });
});

describe("an incremental refresh", () => {
  test("nothing new: nothing is read, one transaction, the windows continue from the state's clock", () => {
    const plan = planRefresh(facts(old, old));
    expect(plan).toMatchObject({
      rebuild: null,
      full: false,
      intakeStep: "arrivals",
      departures: true,
      rescore: "changed",
      previousClock: NOW - 60_000,
      oneTransaction: true,
      deferredRows: 0,
      forgetDays: [],
      clockFiles: [],
    });
    expect(plan.intake.reads).toEqual([]);
  });

  test("what arrived is read alone, and its envelopes may move the clock", () => {
    const resolved = part("resolutions", "A", TODAY, "part-c-0.parquet", 6);
    const plan = planRefresh(facts([...old, arrived, resolved], old));
    expect(plan.intake.reads.map((r) => [r.dataset, r.files])).toEqual([
      ["resolutions", [resolved.path]],
      ["envelopes", [arrived.path]],
    ]);
    expect(plan.clockFiles).toEqual([arrived.path]);
  });

  test("a quarter chunk or less runs in one transaction; more in one per step", () => {
    const rows = (n: number) => new Map([[arrived.path, n]]);
    expect(planRefresh(facts([...old, arrived], old, { rows: rows(250) })).oneTransaction).toBe(true);
    expect(planRefresh(facts([...old, arrived], old, { rows: rows(251) })).oneTransaction).toBe(false);
  });

  test("more than a refresh holds: the oldest published parts are read, the rest deferred", () => {
    const later = part("envelopes", "B", TODAY, "part-d-0.parquet", 9);
    const rows = new Map([
      [arrived.path, 60],
      [later.path, 70],
    ]);
    const plan = planRefresh(facts([...old, arrived, later], old, { rows, maxRows: 100 }));
    expect(plan.intake.reads.flatMap((r) => r.files)).toEqual([arrived.path]);
    expect(plan).toMatchObject({ deferredRows: 70, deferredFrom: 9 });
    expect(plan.intake.parts.map((p) => p.path)).not.toContain(later.path);
  });
});

describe("retention", () => {
  // The 30-day window starts on day TODAY - 30; the day before it is still read (edges, bot scores).
  const firstNeeded = TODAY - 31;
  const keptPart = part("envelopes", "A", TODAY - 2, "part-k-0.parquet");

  test("a whole day removed before the window's first day and the day before it is forgotten, not rebuilt", () => {
    const removed = part("envelopes", "A", firstNeeded - 1, "part-o-0.parquet");
    const plan = planRefresh(facts([keptPart], [keptPart, removed]));
    expect(plan.rebuild).toBeNull();
    expect(plan.forgetDays).toEqual([firstNeeded - 1]);
  });

  test("a removed day the windows still read (the boundary day) rebuilds", () => {
    const removed = part("envelopes", "A", firstNeeded, "part-o-0.parquet");
    const plan = planRefresh(facts([keptPart], [keptPart, removed]));
    expect(plan.rebuild).toBe("lake-removed");
    expect(plan.full).toBe(true);
    expect(plan.forgetDays).toEqual([]);
  });

  test("part of a day removed (another partition of it still listed) rebuilds", () => {
    const day = firstNeeded - 5;
    const stays = part("envelopes", "B", day, "part-s-0.parquet");
    const removed = part("envelopes", "A", day, "part-o-0.parquet");
    expect(planRefresh(facts([keptPart, stays], [keptPart, stays, removed])).rebuild).toBe("lake-removed");
  });

  test("the boundary follows the later of now and the state's clock", () => {
    const removed = part("envelopes", "A", firstNeeded, "part-o-0.parquet");
    const ahead = { upgraded: true, schema: STATE_SCHEMA, clock: NOW + DAY };
    const plan = planRefresh(facts([keptPart], [keptPart, removed], { state: ahead }));
    expect(plan.rebuild).toBeNull();
    expect(plan.forgetDays).toEqual([firstNeeded]);
  });

  test("forgettableDays: empty when nothing is gone, null when any gone day is needed", () => {
    expect(forgettableDays([], [], NOW)).toEqual([]);
    expect(forgettableDays([{ day: isoDay(firstNeeded - 1) }, { day: isoDay(firstNeeded) }], [], NOW)).toBeNull();
  });
});

describe("clock and ranges", () => {
  test("the clock is the latest of now, the newest envelope and the previous clock: it never moves back", () => {
    expect(refreshClock(NOW, null, null)).toBe(NOW);
    expect(refreshClock(NOW, NOW + 5, null)).toBe(NOW + 5);
    expect(refreshClock(NOW, NOW - 5, NOW + 9)).toBe(NOW + 9);
  });

  test("programs: those with envelopes in the kept days and those with deploys, once each, sorted", () => {
    const listed = [
      part("envelopes", "C", TODAY, "a"),
      part("envelopes", "A", TODAY - RETENTION_DAYS, "b"),
      part("envelopes", "Z", TODAY - RETENTION_DAYS - 1, "c"),
      part("resolutions", "R", TODAY, "d"),
      part("envelopes", "C", TODAY - 1, "e"),
    ];
    expect(programsOf(listed, ["D", "A"], TODAY)).toEqual(["A", "C", "D"]);
  });

  test("each program has its windows, trend days and kept days; a release period still running is open", () => {
    const plan = planRanges({
      clock: NOW,
      previousClock: NOW - 60_000,
      programs: ["A"],
      periods: [
        { program: "A", slot: 1, win: "1d", period: "before", starts: NOW - DAY, ends: NOW - HOUR },
        { program: "A", slot: 1, win: "1d", period: "after", starts: NOW - HOUR, ends: NOW + DAY },
      ],
    });
    const kinds = plan.rows.map((row) => row[2]);
    expect(kinds.filter((k) => k === "window")).toHaveLength(3);
    expect(kinds.filter((k) => k === "trend")).toHaveLength(31);
    expect(kinds.filter((k) => k === "all")).toHaveLength(1);
    const releases = plan.ranges.filter((_, i) => kinds[i] === "release");
    expect(releases.map((r) => r.to)).toEqual([NOW - HOUR, null]);
    expect(plan.today).toBe(TODAY);
    expect(plan.bounds.previousSince["1d"]).toBe(NOW - 60_000 - DAY);
  });

  test("needs: today's and yesterday's hours for all programs, the windows' start hours, the bot score's days", () => {
    const { needs, bounds } = planRanges({ clock: NOW, previousClock: NOW - 2 * HOUR, programs: ["A"], periods: [] });
    expect(needs.hourDays.has(`*\t${TODAY}`)).toBe(true);
    expect(needs.hourDays.has(`*\t${TODAY - 1}`)).toBe(true);
    // The hours the 1d window's start passed since the previous refresh, for the departures.
    for (let hour = Math.floor((NOW - 2 * HOUR - DAY) / HOUR); hour <= Math.floor(bounds.since["1d"] / HOUR); hour++)
      expect(needs.edgeHours.has(`*\t${hour}`)).toBe(true);
    // Covered by '*': no program-specific copy.
    expect([...needs.hourDays].filter((key) => key.startsWith("A\t"))).toEqual([]);
    const startDay = Math.floor(bounds.since["30d"] / DAY);
    expect([...needs.payerDays].sort()).toEqual([TODAY, TODAY - 1, startDay, startDay + 1].sort());
  });

  test("a rebuild's windows have no previous starts: nothing departs", () => {
    const { bounds } = planRanges({ clock: NOW, previousClock: null, programs: [], periods: [] });
    expect(bounds.previousSince).toEqual(bounds.since);
  });
});
