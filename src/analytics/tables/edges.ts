// Hour units and edge rows on demand. Most days only need day units; a day where a range starts or
// ends mid-day needs its hour units, and an hour where one starts or ends mid-hour needs its
// attempt rows (ranges.ts). Today's and yesterday's arrive with the changes; an older day's are
// read back from the lake when a range first needs them (a window's start reaching a new day, a
// deploy's periods) and dropped when no range does: a day's attempts are its envelopes joined with
// the resolutions stored that day and the next, plus the later ones the state recorded
// (`late_resolutions`), read only from what the state took in, so they match its units: from the
// lake's current parts holding it (intake.ts takenInLake), as compaction retires the names the state
// recorded. A partition whose current parts hold more or less than the state took in is read for
// what the state holds of it, and the days so read are reported as repaired.

import { anyFileHasColumn } from "../../lake/column-presence";
import { sqlString } from "../../lake/duckdb";
import { readLakeSql } from "../../lake/schema";
import { envelopesReadSql, type LakeDisagreement, type TakenInLake } from "./intake";
import { loadPayerHoursSql } from "./payers";
import { keptHoursFrom, ROLLUPS, unitsOfRowsSql, unitTable } from "./rollups";
import { ATTEMPT_NAMES, type StateDb } from "./state";
import { DAY_MS, HOUR_MS } from "./window-bounds";

export type Needs = {
  /** "program\tday" (program '*': all): days whose hour units ranges read. */
  hourDays: Set<string>;
  /** "program\thour": hours whose attempt rows ranges (and departures) read. */
  edgeHours: Set<string>;
  /** Days whose payer hour units the bot score reads. */
  payerDays: Set<number>;
};

const HIVE = "hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}";
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const split = (key: string) => {
  const [program, unit] = key.split("\t");
  return { program, unit: Number(unit) };
};

/** A partition read back for what the state holds of it, its current parts disagreeing with the state's record. */
export type Repair = { dataset: string; program: string; day: string; reason: LakeDisagreement };

/**
 * Loads what `needs` asks for and is missing, drops what it no longer asks for. Returns the days
 * read from the lake and the partitions among them read for what the state holds (`repaired`). A
 * fresh state (a full rebuild) has nothing to read: the needs are recorded and the intake fills them.
 */
export async function ensureLoaded(
  state: StateDb,
  needs: Needs,
  taken: TakenInLake[],
  today: number,
  previousToday: number | null,
  fresh = false,
): Promise<{ days: number; repaired: Repair[] }> {
  const haveHourDays = new Set(
    (await state.all<{ program: string; day: number }>("SELECT program, day FROM hour_days")).map(
      (r) => `${r.program}\t${r.day}`,
    ),
  );
  const haveEdges = new Set(
    (await state.all<{ program: string; hour: number }>("SELECT program, hour FROM edge_hours")).map(
      (r) => `${r.program}\t${r.hour}`,
    ),
  );
  const havePayerDays = new Set(
    (await state.all<{ day: number }>("SELECT day FROM payer_hour_days")).map((r) => Number(r.day)),
  );

  // Drop what no range needs any more (the tables are scanned only when something is to go: a
  // refresh within the same needs and day drops nothing).
  await state.run(`CREATE OR REPLACE TEMP TABLE needed_hour_days (program VARCHAR, day INTEGER);
    CREATE OR REPLACE TEMP TABLE needed_edge_hours (program VARCHAR, hour INTEGER)`);
  await insertPairs(state, "needed_hour_days", needs.hourDays);
  await insertPairs(state, "needed_edge_hours", needs.edgeHours);
  const unneeded = (have: Set<string>, need: Set<string>) => [...have].some((key) => !need.has(key));
  if (today !== previousToday || unneeded(haveHourDays, needs.hourDays)) {
    for (const r of ROLLUPS) {
      const kept = keptHoursFrom(r, today);
      await state.run(
        `DELETE FROM ${unitTable(r, "h")} u WHERE NOT EXISTS (SELECT 1 FROM needed_hour_days n WHERE n.day = u.hour // 24 AND (n.program = '*' OR n.program = u.program))${kept === null ? "" : ` AND u.hour < ${kept}`}`,
      );
    }
    await state.run(
      "DELETE FROM hour_days WHERE NOT EXISTS (SELECT 1 FROM needed_hour_days n WHERE n.program = hour_days.program AND n.day = hour_days.day)",
    );
  }
  if (unneeded(haveEdges, needs.edgeHours)) {
    await state.run(`DELETE FROM edge_rows e WHERE NOT EXISTS (SELECT 1 FROM needed_edge_hours n WHERE n.hour = e.received_at // ${HOUR_MS} AND (n.program = '*' OR n.program = e.program));
      DELETE FROM edge_hours WHERE NOT EXISTS (SELECT 1 FROM needed_edge_hours n WHERE n.program = edge_hours.program AND n.hour = edge_hours.hour)`);
  }
  if ([...havePayerDays].some((day) => !needs.payerDays.has(day))) {
    const payerKeep = [...needs.payerDays].join(", ") || "NULL";
    await state.run(`DELETE FROM payer_h WHERE hour // 24 NOT IN (${payerKeep}); DELETE FROM payer_gaps_h WHERE hour // 24 NOT IN (${payerKeep});
      DELETE FROM payer_hour_days WHERE day NOT IN (${payerKeep})`);
  }

  // What is missing, per day: which programs ('*': all) and for what.
  type DayLoad = { programs: Set<string>; hourUnits: Set<string>; edgeHours: Set<string>; payers: boolean };
  const loads = new Map<number, DayLoad>();
  const loadOf = (day: number) => {
    let load = loads.get(day);
    if (!load)
      loads.set(day, (load = { programs: new Set(), hourUnits: new Set(), edgeHours: new Set(), payers: false }));
    return load;
  };
  for (const key of needs.hourDays) {
    if (haveHourDays.has(key)) continue;
    const { program, unit: day } = split(key);
    if (program !== "*" && haveHourDays.has(`*\t${day}`)) continue;
    loadOf(day).programs.add(program);
    loadOf(day).hourUnits.add(program);
  }
  for (const key of needs.edgeHours) {
    if (haveEdges.has(key)) continue;
    const { program, unit: hour } = split(key);
    if (program !== "*" && haveEdges.has(`*\t${hour}`)) continue;
    const load = loadOf(Math.floor(hour / 24));
    load.programs.add(program);
    load.edgeHours.add(key);
  }
  for (const day of needs.payerDays) {
    if (havePayerDays.has(day)) continue;
    loadOf(day).programs.add("*");
    loadOf(day).payers = true;
  }

  const repaired: Repair[] = [];
  for (const [day, load] of fresh ? [] : [...loads].sort(([a], [b]) => a - b)) {
    const programs = load.programs.has("*") ? null : [...load.programs];
    repaired.push(...(await loadDaySql(state, taken, day, programs)));
    for (const program of load.hourUnits) {
      const filter = program === "*" ? "" : ` AND program = ${sqlString(program)}`;
      for (const r of ROLLUPS) {
        await state.run(`DELETE FROM ${unitTable(r, "h")} WHERE hour // 24 = ${day}${filter};
          INSERT INTO ${unitTable(r, "h")} BY NAME ${unitsOfRowsSql(r, "h", `(SELECT * FROM day_rows WHERE true${filter})`, false)}`);
      }
      await state.run(`INSERT INTO hour_days VALUES (${sqlString(program)}, ${day})`);
    }
    for (const key of load.edgeHours) {
      const { program, unit: hour } = split(key);
      const filter = program === "*" ? "" : ` AND program = ${sqlString(program)}`;
      await state.run(`DELETE FROM edge_rows WHERE received_at // ${HOUR_MS} = ${hour}${filter};
        INSERT INTO edge_rows SELECT ${ATTEMPT_NAMES.join(", ")} FROM day_rows WHERE received_at // ${HOUR_MS} = ${hour}${filter};
        INSERT INTO edge_hours VALUES (${sqlString(program)}, ${hour})`);
    }
    if (load.payers) await state.run(loadPayerHoursSql("day_rows", day));
  }
  // Needs that were already met, recorded as such (an edge or day newly covered by '*').
  await state.run(`INSERT INTO hour_days SELECT * FROM needed_hour_days n WHERE NOT EXISTS (SELECT 1 FROM hour_days h WHERE h.program = n.program AND h.day = n.day);
    INSERT INTO edge_hours SELECT * FROM needed_edge_hours n WHERE NOT EXISTS (SELECT 1 FROM edge_hours h WHERE h.program = n.program AND h.hour = n.hour);
    INSERT INTO payer_hour_days SELECT unnest([${[...needs.payerDays].join(", ")}]::INTEGER[]) AS day EXCEPT SELECT day FROM payer_hour_days;
    DROP TABLE IF EXISTS day_rows`);
  const seen = new Set<string>();
  const distinct = repaired.filter((r) => {
    const key = `${r.dataset}/${r.program}/${r.day}`;
    return !seen.has(key) && seen.add(key);
  });
  return { days: fresh ? 0 : loads.size, repaired: distinct };
}

async function insertPairs(state: StateDb, table: string, keys: Set<string>): Promise<void> {
  const rows = [...keys].map(split).map((k) => `(${sqlString(k.program)}, ${k.unit})`);
  for (let at = 0; at < rows.length; at += 5000)
    await state.run(`INSERT INTO ${table} VALUES ${rows.slice(at, at + 5000).join(", ")}`);
}

/**
 * The attempts of one receipt day (of some programs, or all) as the state knows them, into
 * `day_rows`; returns the partitions read whose current parts disagree with the state's record.
 */
async function loadDaySql(
  state: StateDb,
  taken: TakenInLake[],
  day: number,
  programs: string[] | null,
): Promise<Repair[]> {
  const of = (dataset: string, days: number[]) =>
    taken.filter(
      (p) =>
        p.dataset === dataset &&
        days.map(isoDay).includes(p.day) &&
        (programs === null || programs.includes(p.program)) &&
        p.files.length > 0,
    );
  const envelopes = of("envelopes", [day]);
  const resolutions = of("resolutions", [day, day + 1]);
  const repaired = [...envelopes, ...resolutions]
    .filter((p) => p.disagreement !== null)
    .map((p) => ({ dataset: p.dataset, program: p.program, day: p.day, reason: p.disagreement! }));
  if (envelopes.length === 0) {
    await state.run(
      `CREATE OR REPLACE TEMP TABLE day_rows AS SELECT ${ATTEMPT_NAMES.join(", ")} FROM unresolved WHERE false`,
    );
    return [];
  }
  const files = (parts: TakenInLake[]) => parts.flatMap((p) => p.files);
  const resolutionFiles = files(resolutions);
  const weighted = resolutionFiles.length > 0 && (await anyFileHasColumn(state, resolutionFiles, "sample_weight"));
  const weight = `${weighted ? "coalesce(sample_weight, " : "("}CASE WHEN cu_used IS NOT NULL THEN 1.0 END)`;
  // A disagreeing partition's parts hold rows the state has not taken in: its envelopes are kept by
  // the spool segments taken in, its resolutions unless the state still waits for their attempt.
  const agreeing = (parts: TakenInLake[]) => parts.filter((p) => p.disagreement === null);
  const disagreeing = (parts: TakenInLake[]) => parts.filter((p) => p.disagreement !== null);
  const envelopeReads = [
    ...(agreeing(envelopes).length > 0 ? [{ files: files(agreeing(envelopes)), where: "" }] : []),
    ...disagreeing(envelopes).map((p) => ({
      files: p.files,
      // Rows without a segment are never read again by the intake either: taken in with their part.
      where: `WHERE spool_segment IS NULL${p.segments.length > 0 ? ` OR spool_segment IN (${p.segments.map(sqlString).join(", ")})` : ""}`,
    })),
  ];
  const resolutionReads = [
    ...(agreeing(resolutions).length > 0 ? [{ files: files(agreeing(resolutions)), where: "" }] : []),
    ...(disagreeing(resolutions).length > 0
      ? [
          {
            files: files(disagreeing(resolutions)),
            where: "WHERE hash(attempt_id) NOT IN (SELECT attempt_key FROM unresolved)",
          },
        ]
      : []),
  ];
  const stored =
    resolutionReads.length === 0
      ? "SELECT * FROM late_resolutions WHERE false"
      : resolutionReads
          .map(
            (read) => `
    SELECT hash(attempt_id) AS attempt_key, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint, cu_used,
      cu_requested, compute_exceeded, block_time, ${weight}::DOUBLE AS cu_weight, resolved_at, slot
    FROM ${readLakeSql("resolutions", `[${read.files.map(sqlString).join(", ")}]`, `${HIVE}, union_by_name = true`)} ${read.where}`,
          )
          .join(" UNION ALL BY NAME ");
  const late = `SELECT attempt_key, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint, cu_used,
      cu_requested, compute_exceeded, block_time, cu_weight, resolved_at, slot FROM late_resolutions WHERE received_at // ${DAY_MS} = ${day}`;
  const envelopeRows = envelopeReads
    .map(
      (read) => `
      SELECT hash(attempt_id) AS attempt_key, program::VARCHAR AS program, account_id, received_at, sent_at, sig, payer, rpc_label, rpc_hash, wallet_adapter, kind,
        sent_slot
      FROM ${envelopesReadSql(read.files)} ${read.where}`,
    )
    .join(" UNION ALL ");
  await state.run(`CREATE OR REPLACE TEMP TABLE day_rows AS
    WITH e AS (${envelopeRows}
    ), r AS (
      SELECT DISTINCT ON (attempt_key) * FROM (${stored} UNION ALL BY NAME ${late}) WHERE attempt_key IN (SELECT attempt_key FROM e)
    )
    SELECT e.attempt_key, e.program, e.account_id, e.received_at, e.sent_at, e.sig, e.payer, e.rpc_label, e.rpc_hash, e.wallet_adapter, e.kind,
      coalesce(r.outcome, CASE WHEN e.kind = 'preflight' THEN 'preflight' END) AS outcome, r.drop_class, r.instruction, r.err_code, r.err_name,
      r.failing_program, r.fingerprint, r.cu_used, r.cu_requested, r.compute_exceeded, r.block_time, r.cu_weight, r.resolved_at,
      e.sent_slot, r.slot
    FROM e LEFT JOIN r USING (attempt_key)`);
  return repaired;
}
