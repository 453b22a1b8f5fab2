// The bot score's units (sql/payer_scores.sql has the score itself). Per payer and hour, and per
// payer and day: attempts, scripted-adapter attempts, failures, resolved, active hours, and the
// send-time sequence's first and last send and its gaps (a count, and their sketch: serving/sketch.ts,
// from which the quartiles of bot-v2's regularity are read). Units merge in time order: the gap
// between two units is the later one's first send time minus the earlier one's last, so a
// window's gaps are the units' own plus those between them — the same gaps as the sorted send
// times' whenever they do not cross an hour boundary out of order (a few hundred milliseconds of
// client clock; docs/api.md#payerbotscore--version-bot-v2). A refresh's arrivals are one unit per
// (payer, hour), merged into the hour's unit the same way. Only payers whose window changed are
// scored again.

import { sqlLiteral } from "../sql";
import { sqlFile } from "../sql";
import type { WindowBounds } from "./window-bounds";
import { DAY_MS, HOUR_MS } from "./window-bounds";

/** Wallet adapters that indicate a script rather than a person (lower-cased). */
export const SCRIPTED_ADAPTERS = ["", "unknown", "none", "keypair", "keypair-wallet", "local-keypair", "node", "cli", "server", "script", "bot"];
const SCRIPTED = `list_contains(${sqlLiteral(SCRIPTED_ADAPTERS)}, lower(coalesce(wallet_adapter, '')))`;
const FAILURE = "outcome IN ('failed_onchain', 'preflight')";

const UNIT = "n, scripted, failures, resolved, hours, first_sent, last_sent, gaps, gap_sketch";
/** What the payers' units read of a change (apply.ts gathers these over a refresh). */
export const PAYER_CHANGE_COLUMNS = "sign, arrived, payer, program, received_at, sent_at, attempt_key, wallet_adapter, outcome";

/** A sketch (list of {k: bucket, n: count}) of the values of `source`'s `value` column, per `by`. */
function sketchOfSql(source: string, by: string): string {
  return `SELECT ${by}, list({'k': k, 'n': n} ORDER BY k) AS gap_sketch FROM (
      SELECT ${by}, sketch_key(value) AS k, count(*)::BIGINT AS n FROM ${source} WHERE value IS NOT NULL GROUP BY ALL) GROUP BY ${by}`;
}

/** Sketches (of `source`'s `gap_sketch` column) summed per `by`, plus extra single values (`extra`: by columns and `value`). */
function mergeSketchesSql(source: string, extra: string, by: string): string {
  return `SELECT ${by}, list({'k': k, 'n': n} ORDER BY k) AS gap_sketch FROM (
      SELECT ${by}, k, sum(n)::BIGINT AS n FROM (
        SELECT ${by}, e.k AS k, e.n AS n FROM (SELECT ${by}, unnest(gap_sketch) AS e FROM ${source})
        UNION ALL SELECT ${by}, sketch_key(value) AS k, 1::BIGINT AS n FROM ${extra} WHERE value IS NOT NULL
      ) GROUP BY ALL) GROUP BY ${by}`;
}

/** One unit per (payer, group) from attempt rows of `source` matching `where`, gaps in send-time order. */
function unitsOfAttemptsSql(source: string, where: string, group: string): string {
  return `WITH a AS (
      SELECT payer, ${group} AS t, received_at, sent_at, outcome, ${SCRIPTED} AS scripted,
        sent_at - lag(sent_at) OVER (PARTITION BY payer, ${group} ORDER BY sent_at, attempt_key) AS value
      FROM ${source} WHERE ${where}
    ), stats AS (
      SELECT payer, t, count(*)::BIGINT AS n, count(*) FILTER (WHERE scripted)::BIGINT AS scripted,
        count(*) FILTER (WHERE ${FAILURE})::BIGINT AS failures, count(outcome)::BIGINT AS resolved, count(DISTINCT received_at // ${HOUR_MS})::BIGINT AS hours,
        min(sent_at) AS first_sent, max(sent_at) AS last_sent, count(value)::BIGINT AS gaps
      FROM a GROUP BY payer, t
    )
    SELECT s.*, coalesce(g.gap_sketch, []) AS gap_sketch FROM stats s LEFT JOIN (${sketchOfSql("a", "payer, t")}) g USING (payer, t)`;
}

/**
 * Units merged in time order (`source`: payer, group columns, t, and the unit columns): the gap
 * between consecutive units joins the gaps.
 */
function foldUnitsSql(source: string, group: string[]): string {
  const by = ["payer", ...group].join(", ");
  return `WITH u AS (
      SELECT *, first_sent - lag(last_sent) OVER (PARTITION BY ${by} ORDER BY t) AS value FROM ${source} WHERE n > 0
    ), stats AS (
      SELECT ${by}, sum(n)::BIGINT AS n, sum(scripted)::BIGINT AS scripted, sum(failures)::BIGINT AS failures, sum(resolved)::BIGINT AS resolved,
        sum(hours)::BIGINT AS hours, arg_min(first_sent, t) AS first_sent, arg_max(last_sent, t) AS last_sent, (sum(gaps) + count(*) - 1)::BIGINT AS gaps
      FROM u GROUP BY ${by}
    )
    SELECT s.*, coalesce(g.gap_sketch, []) AS gap_sketch FROM stats s LEFT JOIN (${mergeSketchesSql("u", "u", by)}) g USING (${by})`;
}

/**
 * Brings the payers' units up to date with `changes`: the arrivals of each (payer, hour) as a unit
 * merged into the hour's unit in send-time order (exact unless a batch's send times interleave
 * with the ones already taken in: then the gap between them is approximated), the resolutions'
 * failures added; day units follow (merged again from the day's hours when it has them).
 */
export function refreshPayerUnitsSql(changes: string): string {
  const keep = `hour // 24 IN (SELECT day FROM payer_hour_days)`;
  const resolutionDelta = (unit: string) =>
    `SELECT payer, ${unit}, sum(sign * (${FAILURE})::INT)::BIGINT AS failures, sum(sign * (outcome IS NOT NULL)::INT)::BIGINT AS resolved FROM ${changes} WHERE NOT arrived GROUP BY ALL`;
  return `
    CREATE OR REPLACE TEMP TABLE payer_batch AS
      SELECT payer, t AS hour, ${UNIT} FROM (${unitsOfAttemptsSql(changes, "arrived AND sign > 0", `received_at // ${HOUR_MS}`)});
    CREATE OR REPLACE TEMP TABLE payer_resolved_h AS ${resolutionDelta(`received_at // ${HOUR_MS} AS hour`)};
    -- Hours kept per hour: existing unit and arrivals merged in send-time order, resolutions added.
    CREATE OR REPLACE TEMP TABLE payer_h_new AS
      SELECT m.payer, m.hour, m.n, m.scripted, m.failures + coalesce(r.failures, 0) AS failures, m.resolved + coalesce(r.resolved, 0) AS resolved,
        1::BIGINT AS hours, m.first_sent, m.last_sent, m.gaps, m.gap_sketch
      FROM (${foldUnitsSql(`(SELECT payer, hour, first_sent AS t, ${UNIT} FROM payer_h p SEMI JOIN payer_batch b USING (payer, hour)
              UNION ALL SELECT payer, hour, first_sent AS t, ${UNIT} FROM payer_batch WHERE ${keep})`, ["hour"])}) m
      LEFT JOIN payer_resolved_h r USING (payer, hour);
    UPDATE payer_h SET failures = payer_h.failures + r.failures, resolved = payer_h.resolved + r.resolved
      FROM payer_resolved_h r WHERE payer_h.payer = r.payer AND payer_h.hour = r.hour
        AND NOT EXISTS (SELECT 1 FROM payer_h_new k WHERE k.payer = r.payer AND k.hour = r.hour);
    DELETE FROM payer_h USING payer_h_new k WHERE payer_h.payer = k.payer AND payer_h.hour = k.hour;
    INSERT INTO payer_h BY NAME SELECT * FROM payer_h_new;
    -- Day units: a day kept per hour is the merge of its hours; another (an old day: late arrivals
    -- are rare there) takes the arrivals merged into it and the resolutions added.
    CREATE OR REPLACE TEMP TABLE payer_touched_days AS
      SELECT DISTINCT payer, hour // 24 AS day FROM payer_batch UNION SELECT DISTINCT payer, hour // 24 FROM payer_resolved_h;
    CREATE OR REPLACE TEMP TABLE payer_d_new AS
      ${foldUnitsSql(`(SELECT payer, hour // 24 AS day, hour AS t, ${UNIT} FROM payer_h p
          SEMI JOIN payer_touched_days k ON k.payer = p.payer AND k.day = p.hour // 24 WHERE ${keep})`, ["day"])}
      UNION ALL BY NAME
      SELECT m.* REPLACE (m.failures + coalesce(r.failures, 0) AS failures, m.resolved + coalesce(r.resolved, 0) AS resolved)
      FROM (${foldUnitsSql(`(SELECT payer, day, first_sent AS t, ${UNIT} FROM payer_d p
              SEMI JOIN payer_touched_days k USING (payer, day) WHERE day NOT IN (SELECT day FROM payer_hour_days)
            UNION ALL SELECT payer, hour // 24 AS day, first_sent AS t, ${UNIT} FROM payer_batch WHERE NOT (${keep}))`, ["day"])}) m
      LEFT JOIN (SELECT payer, hour // 24 AS day, sum(failures) AS failures, sum(resolved) AS resolved FROM payer_resolved_h GROUP BY ALL) r USING (payer, day);
    UPDATE payer_d SET failures = payer_d.failures + r.failures, resolved = payer_d.resolved + r.resolved
      FROM (SELECT payer, hour // 24 AS day, sum(failures) AS failures, sum(resolved) AS resolved FROM payer_resolved_h
            WHERE hour // 24 NOT IN (SELECT day FROM payer_hour_days) GROUP BY ALL) r
      WHERE payer_d.payer = r.payer AND payer_d.day = r.day AND NOT EXISTS (SELECT 1 FROM payer_d_new k WHERE k.payer = r.payer AND k.day = r.day);
    DELETE FROM payer_d USING payer_d_new k WHERE payer_d.payer = k.payer AND payer_d.day = k.day;
    INSERT INTO payer_d BY NAME SELECT * FROM payer_d_new;
    -- Programs per payer (breadth): when each was last sent to; a program is in a window when that is in it.
    CREATE OR REPLACE TEMP TABLE payer_programs_delta AS
      SELECT payer, program, max(received_at) AS last_seen FROM ${changes} WHERE arrived AND sign > 0 GROUP BY ALL;
    UPDATE payer_programs SET last_seen = greatest(payer_programs.last_seen, d.last_seen)
      FROM payer_programs_delta d WHERE payer_programs.payer = d.payer AND payer_programs.program = d.program;
    INSERT INTO payer_programs SELECT * FROM payer_programs_delta d
      WHERE NOT EXISTS (SELECT 1 FROM payer_programs p WHERE p.payer = d.payer AND p.program = d.program);
    DROP TABLE payer_batch; DROP TABLE payer_resolved_h; DROP TABLE payer_h_new; DROP TABLE payer_touched_days; DROP TABLE payer_d_new;
    DROP TABLE payer_programs_delta`;
}

/** A day's hour units computed from every attempt of the day in `source` (a day becoming a window's start day). */
export function loadPayerHoursSql(source: string, day: number): string {
  return `
    DELETE FROM payer_h WHERE hour // 24 = ${day};
    INSERT INTO payer_h SELECT payer, t AS hour, ${UNIT} FROM (${unitsOfAttemptsSql(source, `received_at // ${DAY_MS} = ${day}`, `received_at // ${HOUR_MS}`)});
    INSERT INTO payer_hour_days SELECT ${day} WHERE ${day} NOT IN (SELECT day FROM payer_hour_days)`;
}

/**
 * Scores the payers whose 30-day window changed: those in this refresh's changes and those whose
 * attempts its start passed. Their units over [since, clock] are the start hour's attempts from
 * the start onwards (edge_rows), the start day's later hours, then whole days.
 */
export function scorePayersSql(bounds: WindowBounds, everyone: boolean): string {
  const since = bounds.since["30d"];
  const was = bounds.previousSince["30d"];
  const startHour = Math.floor(since / HOUR_MS);
  const startDay = Math.floor(since / DAY_MS);
  const dirty = everyone
    ? "SELECT DISTINCT payer FROM payer_d"
    : `SELECT DISTINCT payer FROM wallet_changes UNION SELECT DISTINCT payer FROM edge_rows WHERE received_at >= ${was} AND received_at < ${since}`;
  return `
    CREATE OR REPLACE TEMP TABLE dirty_payers AS ${dirty};
    CREATE OR REPLACE TEMP TABLE payer_window_units AS
      SELECT payer, 0 AS t, ${UNIT} FROM (${unitsOfAttemptsSql("(SELECT e.* FROM edge_rows e SEMI JOIN dirty_payers USING (payer))", `received_at >= ${since} AND received_at < ${(startHour + 1) * HOUR_MS}`, `received_at // ${HOUR_MS}`)})
      UNION ALL
      SELECT payer, hour - ${startHour} AS t, ${UNIT} FROM payer_h SEMI JOIN dirty_payers USING (payer) WHERE hour > ${startHour} AND hour < ${(startDay + 1) * 24}
      UNION ALL
      SELECT payer, 24 * (day - ${startDay}) AS t, ${UNIT} FROM payer_d SEMI JOIN dirty_payers USING (payer) WHERE day > ${startDay};
    CREATE OR REPLACE TEMP TABLE payer_window_programs AS
      SELECT payer, count(*)::BIGINT AS programs FROM payer_programs SEMI JOIN dirty_payers USING (payer) WHERE last_seen >= ${since} GROUP BY payer;
    CREATE OR REPLACE TEMP TABLE payer_window AS ${foldUnitsSql("payer_window_units", [])};
    -- Quartiles of the gaps as quantile_cont reads them (interpolated between order statistics), each
    -- order statistic the value its sketch bucket stands for.
    CREATE OR REPLACE TEMP TABLE payer_gap_quartiles AS
      SELECT payer, ${["q1", "q3"].map((q) => `${quartileSql(q === "q1" ? 0.25 : 0.75)} AS gap_${q}`).join(", ")}
      FROM (SELECT payer, e.k AS k, sum(e.n) OVER (PARTITION BY payer ORDER BY e.k ROWS UNBOUNDED PRECEDING) AS cum, sum(e.n) OVER (PARTITION BY payer) AS total
            FROM (SELECT payer, unnest(gap_sketch) AS e FROM payer_window))
      GROUP BY payer;
    CREATE OR REPLACE TEMP TABLE payer_features AS
      SELECT f.payer, f.n AS attempts, f.hours AS active_hours, coalesce(p.programs, 0) AS programs, f.scripted, f.failures, f.resolved, f.gaps, q.gap_q1, q.gap_q3
      FROM payer_window f LEFT JOIN payer_window_programs p USING (payer) LEFT JOIN payer_gap_quartiles q USING (payer);
    ${sqlFile("payer_scores")};
    DELETE FROM payer_scores USING dirty_payers d WHERE payer_scores.payer = d.payer;
    INSERT INTO payer_scores BY NAME SELECT * FROM payer_scores_new;
    DROP TABLE dirty_payers; DROP TABLE payer_window_units; DROP TABLE payer_window; DROP TABLE payer_gap_quartiles; DROP TABLE payer_window_programs;
    DROP TABLE payer_features; DROP TABLE payer_scores_new`;
}

/** quantile_cont's interpolation at q over the sketch's order statistics (columns k, cum, total of one payer). */
function quartileSql(q: number): string {
  // `total` is the same on every row of a payer: per row inside a FILTER, any_value outside.
  const stat = (round: "floor" | "ceil") => `sketch_value(min(k) FILTER (WHERE cum > ${round}(${q} * (total - 1))))`;
  const at = `${q} * (any_value(total) - 1)`;
  return `${stat("floor")} + (${at} - floor(${at})) * (${stat("ceil")} - ${stat("floor")})`;
}
