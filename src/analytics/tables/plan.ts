// The plan of one refresh (docs/serving.md#a-refresh-step-by-step), as plain data and without I/O:
// build.ts gathers what is known (the state's schema and clock, the lake's listing, the parts the
// state took in and the rows of the new ones, the options, the clock's now), asks for the plan, and
// runs the steps (steps.ts) it describes. Two parts, because the second needs the refresh's clock,
// which the newest envelope to be read moves:
// - planRefresh: rebuild or continue (and why), what to read, what is left for the next refresh,
//   which removed days to forget, how to commit, which variant of each step runs;
// - planRanges: the ranges every figure merges and the units (hour days, edge hours, payer days)
//   they need at hand.

import { WINDOW_NAMES, WINDOWS } from "../windows";
import type { Needs } from "./edges";
import { gonePartitions, type IntakePlan, intakePlanOf, type LakePart, limitIntake, type TakenPart } from "./intake";
import { dayOf, partNeeds, type Range, type RangePart, rangeParts } from "./ranges";
import type { RangeKind } from "./serving-tables";
import { STATE_SCHEMA } from "./versions";
import { DAY_MS, HOUR_MS, type WindowBounds, windowBounds } from "./window-bounds";

/** Days of units kept: the 30-day window plus room for release diffs. */
export const RETENTION_DAYS = 45;

/** The state as opened, after upgrade.ts's upgrades (`upgraded`: none failed). */
export type StateFacts = { upgraded: boolean; schema: number | null; clock: number | null };

/** Why a refresh rebuilds the state from the whole lake instead of continuing it. */
export type RebuildReason =
  | "asked" // `full`
  | "upgrade-failed"
  | "no-state" // a first run, or a state that never finished one
  | "schema" // a state of a schema this code cannot upgrade from
  | "lake-removed"; // partitions gone from the lake that a window, an edge or a bot score still reads

export type RefreshFacts = {
  /** `txray jobs run tables --full`. */
  full: boolean;
  state: StateFacts;
  listed: LakePart[];
  /** The parts the state took in; null when it is not read (the state is rebuilt whatever the lake holds). */
  taken: TakenPart[] | null;
  /** Footer rows of the listed parts the plan reads: partsToCount(listed, taken), every listed part on a rebuild. */
  rows: Map<string, number>;
  /** The clock's now. */
  now: number;
  /** Rows read per intake step. */
  chunkRows: number;
  /** Rows one refresh takes in at most (a rebuild takes everything). */
  maxRows: number;
};

export type RefreshPlan = {
  /** Null: the refresh continues the state with what arrived. */
  rebuild: RebuildReason | null;
  full: boolean;
  /** What is read (incremental: in chunks; a rebuild reads every listed part day by day) and recorded as taken. */
  intake: IntakePlan;
  /** How the arrivals are taken in: the new parts' rows as deltas, or the whole lake day by day. */
  intakeStep: "arrivals" | "rebuild";
  /** New rows left for the next refresh, and the earliest publish time among their parts. */
  deferredRows: number;
  deferredFrom?: number;
  /** Whole days removed from the lake (retention) that the state forgets with its own old days. */
  forgetDays: number[];
  /** A small refresh changes the state in one transaction; a large one in one per step. */
  oneTransaction: boolean;
  /** The state's clock (null on a rebuild): where the windows started at the previous refresh. */
  previousClock: number | null;
  /** Envelope files whose newest receipt can move the clock. */
  clockFiles: string[];
  /** Subtract the failures the windows' starts passed since the previous refresh (a rebuild has none). */
  departures: boolean;
  /** Score again the payers whose attempts changed, or (a rebuild) every payer. */
  rescore: "changed" | "all";
};

/** Why the state cannot be continued, known before the lake is compared with it (null: it can be). */
export function stateRebuildReason(full: boolean, state: StateFacts): RebuildReason | null {
  if (full) return "asked";
  if (!state.upgraded) return "upgrade-failed";
  if (state.clock === null) return "no-state";
  if (state.schema !== STATE_SCHEMA) return "schema";
  return null;
}

/** Why the refresh rebuilds, the lake's listing included (null: it continues the state). */
export function rebuildReason(
  facts: Pick<RefreshFacts, "full" | "state" | "listed" | "taken" | "now">,
): RebuildReason | null {
  const fromState = stateRebuildReason(facts.full, facts.state);
  if (fromState !== null) return fromState;
  const gone = gonePartitions(facts.listed, facts.taken ?? []);
  const clockAtLeast = Math.max(facts.now, facts.state.clock ?? 0);
  return forgettableDays(gone, facts.listed, clockAtLeast) === null ? "lake-removed" : null;
}

/** The plan of a refresh from what is known before it reads anything. */
export function planRefresh(facts: RefreshFacts): RefreshPlan {
  const rebuild = rebuildReason(facts);
  const full = rebuild !== null;
  const taken = full ? [] : (facts.taken ?? []);
  let intake = intakePlanOf(facts.listed, taken, facts.rows, Math.min(facts.chunkRows, facts.maxRows));
  let deferredRows = 0;
  let deferredFrom: number | undefined;
  let forgetDays: number[] = [];
  if (!full) {
    forgetDays = forgettableDays(intake.gone, facts.listed, Math.max(facts.now, facts.state.clock ?? 0)) ?? [];
    ({ plan: intake, deferredRows, deferredFrom } = limitIntake(intake, facts.maxRows));
  }
  const readRows = intake.reads.reduce((sum, read) => sum + read.rows, 0);
  return {
    rebuild,
    full,
    intake,
    intakeStep: full ? "rebuild" : "arrivals",
    deferredRows,
    deferredFrom,
    forgetDays,
    // What a small refresh's steps gather for its end (payer changes) then never reaches the write-ahead log.
    oneTransaction: !full && readRows <= facts.chunkRows / 4,
    previousClock: full ? null : facts.state.clock,
    clockFiles: full
      ? facts.listed.filter((p) => p.dataset === "envelopes").map((p) => p.path)
      : intake.reads.filter((r) => r.dataset === "envelopes").flatMap((r) => r.files),
    departures: !full,
    rescore: full ? "all" : "changed",
  };
}

/**
 * Days removed from the lake that can be forgotten as the state forgets its own old days: whole days
 * (no part of the day left in the lake) before the 30-day window's first day and the day before it
 * (no window, edge or bot score reads them). Empty when nothing is gone; null when any gone
 * partition is not such a day (the state then starts over).
 */
export function forgettableDays(gone: { day: string }[], listed: LakePart[], clockAtLeast: number): number[] | null {
  const firstNeeded = dayOf(clockAtLeast - WINDOWS["30d"]) - 1;
  const listedDays = new Set(listed.map((p) => p.day));
  const days = [...new Set(gone.map((g) => g.day))];
  if (days.some((day) => listedDays.has(day) || dayNumber(day) >= firstNeeded)) return null;
  return days.map(dayNumber);
}

export const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;

/** Windows end at the clock: no attempt taken in is after it, and it never moves back. */
export function refreshClock(now: number, newestReceived: number | null, previousClock: number | null): number {
  return Math.max(now, newestReceived ?? 0, previousClock ?? 0);
}

/** The programs a version has figures for: those with envelopes in the kept days, and those with deploys. */
export function programsOf(listed: LakePart[], deployPrograms: string[], today: number): string[] {
  const keptFrom = (today - RETENTION_DAYS) * DAY_MS;
  const withEnvelopes = listed
    .filter((p) => p.dataset === "envelopes" && Date.parse(`${p.day}T00:00:00Z`) >= keptFrom)
    .map((p) => p.program);
  return [...new Set([...withEnvelopes, ...deployPrograms])].sort();
}

/** A release period of a program's deploy (serving-tables.ts `release_periods`). */
export type ReleasePeriod = {
  program: string;
  slot: number;
  win: string;
  period: string;
  starts: number;
  ends: number;
};

/** A row of the `ranges` table: range, program, kind, win, day, slot, period. */
export type RangeRow = [number, string, RangeKind, string | null, string | null, number | null, string | null];

export type RangePlan = {
  clock: number;
  today: number;
  bounds: WindowBounds;
  ranges: Range[];
  rows: RangeRow[];
  parts: RangePart[];
  needs: Needs;
};

/** The ranges every figure of a version merges and what they need at hand, at the refresh's clock. */
export function planRanges(input: {
  clock: number;
  previousClock: number | null;
  programs: string[];
  periods: ReleasePeriod[];
}): RangePlan {
  const { clock } = input;
  const bounds = windowBounds(clock, input.previousClock);
  const today = dayOf(clock);
  const { ranges, rows } = rangesOf(input.programs, input.periods, bounds.since, clock);
  const parts = ranges.flatMap((range) => rangeParts(range, today));
  return { clock, today, bounds, ranges, rows, parts, needs: needsOf(parts, bounds, today) };
}

/**
 * Every range a version's figures merge (windows, trend days, all kept days, deploy periods), and each one's row of
 * `ranges`.
 */
function rangesOf(
  programs: string[],
  periods: ReleasePeriod[],
  since: Record<string, number>,
  clock: number,
): { ranges: Range[]; rows: RangeRow[] } {
  const ranges: Range[] = [];
  const rows: RangeRow[] = [];
  const add = (
    program: string,
    from: number,
    to: number | null,
    kind: RangeKind,
    extra: { win?: string; day?: string; slot?: number; period?: string },
  ) => {
    const id = ranges.length;
    ranges.push({ id, program, from, to });
    rows.push([id, program, kind, extra.win ?? null, extra.day ?? null, extra.slot ?? null, extra.period ?? null]);
  };
  const today = dayOf(clock);
  const trendFrom = since["30d"];
  for (const program of programs) {
    for (const win of WINDOW_NAMES) add(program, since[win], null, "window", { win });
    for (let day = dayOf(trendFrom); day <= today; day++) {
      const from = Math.max(day * DAY_MS, trendFrom);
      add(program, from, day === today ? null : (day + 1) * DAY_MS, "trend", {
        day: new Date(day * DAY_MS).toISOString().slice(0, 10),
      });
    }
    add(program, (today - RETENTION_DAYS) * DAY_MS, null, "all", {});
  }
  for (const p of periods)
    add(p.program, p.starts, p.ends > clock ? null : p.ends, "release", {
      win: p.win,
      slot: p.slot,
      period: p.period,
    });
  return { ranges, rows };
}

/**
 * What must be at hand: the ranges' hours and edges, today's and yesterday's hours, the departures' edges, the bot
 * score's days.
 */
function needsOf(parts: RangePart[], bounds: WindowBounds, today: number): Needs {
  const { hourDays, edgeHours } = partNeeds(parts);
  // Ranges name programs; what every program needs is kept once, for all ('*').
  const all = (set: Set<string>, unit: number) => set.add(`*\t${unit}`);
  all(hourDays, today);
  all(hourDays, today - 1);
  for (const w of WINDOW_NAMES) {
    all(hourDays, dayOf(bounds.since[w]));
    all(hourDays, dayOf(bounds.since[w]) + 1); // the next start day, at hand before the window reaches it
    all(edgeHours, Math.floor(bounds.since[w] / HOUR_MS));
    for (
      let hour = Math.floor(bounds.previousSince[w] / HOUR_MS);
      hour <= Math.floor(bounds.since[w] / HOUR_MS);
      hour++
    )
      all(edgeHours, hour);
  }
  // Program-specific needs covered by '*' need nothing more.
  for (const set of [hourDays, edgeHours])
    for (const key of [...set]) if (!key.startsWith("*\t") && set.has(`*\t${key.split("\t")[1]}`)) set.delete(key);
  const startDay = dayOf(bounds.since["30d"]);
  return { hourDays, edgeHours, payerDays: new Set([today, today - 1, startDay, startDay + 1]) };
}
