// A figure over a time range [from, to) of one program is a merge of units (docs/serving.md#ranges):
// whole days from the day units, the hours of a partial day from the hour units, and the attempt
// rows of a partial hour at either end (edge_rows). Windows end at the refresh's clock, which no
// attempt taken in is after (`to` = null: everything from `from` on). This module cuts ranges into
// those parts, says which hours and days they need loaded (edges.ts), and writes the merge.

import { LEVEL, mergeStatesSql, type Rollup, unitsOfRowsSql, unitTable } from "./rollups";
import type { StateDb } from "./state";
import { DAY_MS, HOUR_MS } from "./window-bounds";

export type Range = { id: number; program: string; from: number; to: number | null };
export type RangePart =
  | { range: number; program: string; kind: "day" | "hour"; unit: number }
  | { range: number; program: string; kind: "edge"; from: number; to: number };

/** The parts of a range; `today` is the clock's day (an open range's last day unit). */
export function rangeParts(range: Range, today: number): RangePart[] {
  const { id, program, from } = range;
  const to = range.to;
  if (to !== null && to <= from) return [];
  const parts: RangePart[] = [];
  const edge = (a: number, b: number) => parts.push({ range: id, program, kind: "edge", from: a, to: b });
  const startHour = Math.floor(from / HOUR_MS);
  let firstHour = startHour;
  if (from % HOUR_MS !== 0) {
    const end = (startHour + 1) * HOUR_MS;
    if (to !== null && to <= end) {
      edge(from, to);
      return parts;
    }
    edge(from, end);
    firstHour = startHour + 1;
  }
  let lastHour: number; // inclusive; for an open range, through today
  if (to === null) lastHour = (today + 1) * 24 - 1;
  else {
    const endHour = Math.floor(to / HOUR_MS);
    if (to % HOUR_MS !== 0) edge(endHour * HOUR_MS, to);
    lastHour = endHour - 1;
  }
  if (lastHour < firstHour) return parts;
  const firstDay = Math.ceil(firstHour / 24);
  const lastDay = Math.floor((lastHour + 1) / 24) - 1;
  const hour = (h: number) => parts.push({ range: id, program, kind: "hour", unit: h });
  const day = (d: number) => parts.push({ range: id, program, kind: "day", unit: d });
  if (firstDay > lastDay) {
    for (let h = firstHour; h <= lastHour; h++) hour(h);
    return parts;
  }
  for (let h = firstHour; h < firstDay * 24; h++) hour(h);
  for (let d = firstDay; d <= lastDay; d++) day(d);
  for (let h = (lastDay + 1) * 24; h <= lastHour; h++) hour(h);
  return parts;
}

/** The (program, day) pairs whose hour units the parts read, and the (program, hour) pairs whose attempt rows. */
export function partNeeds(parts: RangePart[]): { hourDays: Set<string>; edgeHours: Set<string> } {
  const hourDays = new Set<string>();
  const edgeHours = new Set<string>();
  for (const part of parts) {
    if (part.kind === "hour") hourDays.add(`${part.program}\t${Math.floor(part.unit / 24)}`);
    if (part.kind === "edge") edgeHours.add(`${part.program}\t${Math.floor(part.from / HOUR_MS)}`);
  }
  return { hourDays, edgeHours };
}

/** The parts as a temp table `range_parts` (range, program, kind, unit, from_ms, to_ms). */
export async function writeRangeParts(state: StateDb, parts: RangePart[]): Promise<void> {
  await state.run(
    "CREATE OR REPLACE TEMP TABLE range_parts (range INTEGER, program VARCHAR, kind VARCHAR, unit INTEGER, from_ms BIGINT, to_ms BIGINT)",
  );
  await state.insertRows(
    "range_parts",
    ["integer", "varchar", "varchar", "integer", "bigint", "bigint"],
    parts.map((p) =>
      p.kind === "edge"
        ? [p.range, p.program, "edge", null, p.from, p.to]
        : [p.range, p.program, p.kind, p.unit, null, null],
    ),
  );
}

/**
 * A rollup merged over each range of `parts` (a range_parts table), per range, account and the rollup's dims, into
 * `target`.
 */
export function mergeRangesSql(r: Rollup, target: string, parts = "range_parts"): string {
  const dims = r.dims.map((d) => d.name);
  const unitPart = (level: "d" | "h") => {
    const unit = LEVEL[level].column;
    return `SELECT p.range, u.account_id, ${[...dims.map((d) => `u.${d}`), ...r.measures.map((m) => `u.${m.name}`)].join(", ")}
      FROM ${parts} p JOIN ${unitTable(r, level)} u ON u.program = p.program AND u.${unit} = p.unit WHERE p.kind = '${level === "d" ? "day" : "hour"}'`;
  };
  // The edges' attempt rows, as one state per range.
  const edgeRows = `(SELECT p.range, e.* FROM ${parts} p JOIN edge_rows e ON e.program = p.program AND e.received_at >= p.from_ms AND e.received_at < p.to_ms WHERE p.kind = 'edge')`;
  const edges = unitsOfRowsSql(r, null, edgeRows, false, ["range", "account_id"]);
  return `CREATE OR REPLACE TEMP TABLE ${target} AS ${mergeStatesSql(r, ["range", "account_id", ...dims], `(${unitPart("d")} UNION ALL BY NAME ${unitPart("h")} UNION ALL BY NAME ${edges})`)}`;
}

export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
