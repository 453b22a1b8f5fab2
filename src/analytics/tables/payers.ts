// The bot score's units (sql/payer_scores.sql has the score itself). Per payer and hour, and per
// payer and day: attempts, scripted-adapter attempts, failures, resolved, active hours, the
// send-time sequence's first and last send, and its gaps: their count, and their sketch (per bucket
// of serving/sketch.ts, in payer_gaps_h/_d) from which bot-v2's quartiles are read. Units merge in
// time order: the gap between two units is the later one's first send time minus the earlier one's
// last, so a window's gaps are the units' own plus those between them — the same gaps as the sorted
// send times' whenever they do not cross an hour boundary out of order (a few hundred milliseconds
// of client clock; docs/api.md#payerbotscore--version-bot-v2). A refresh's arrivals are one unit per
// (payer, hour), merged into the hour's unit the same way. Only payers whose window changed are
// scored again. Everything is plain rows (no list columns): groups of list aggregates are held in
// memory, and scoring every payer of a rebuild that way ran out of DUCKDB_MEMORY_LIMIT.
//
// A payer's score counts only what counts in public (docs/serving.md#public-figures): anyone with
// an ingest key can send envelopes naming a real payer, and a script's adapter and timing would move
// that payer between top-issues' segments. So units are kept per (payer, account), and the score
// merges the units of the accounts that count for the payer: those with a send of each program they
// name the payer on that the chain confirmed (landed or failed on chain) in the 30-day window, as the
// public weights count an account's drops only next to its confirmed sends (public-weights.ts). A
// deployment whose data holds one account, or with PUBLIC_UNCONFIRMED_PER_CONFIRMED off, counts every
// account. Units of several accounts merge like a refresh's arrivals into an hour (in send-time order,
// the gap between them approximated where they interleave); each unit's active hours are a mask of
// the day's hours, so an hour two accounts share counts once. Payers are scored again when their
// units change, and when an account starts or stops counting for a program they were named on
// (account_program_times: per account and program, its newest send and newest confirmed one; payer_counted:
// the (account, program) pairs that counted at the last scoring).

import { payerKey } from "../serving/payer-key";
import { sqlFile, sqlLiteral } from "../sql";
import type { PublicTrust } from "./public-weights";
import type { StateDb } from "./state";
import type { WindowBounds } from "./window-bounds";
import { DAY_MS, HOUR_MS } from "./window-bounds";

/** Wallet adapters that indicate a script rather than a person (lower-cased). */
export const SCRIPTED_ADAPTERS = [
  "",
  "unknown",
  "none",
  "keypair",
  "keypair-wallet",
  "local-keypair",
  "node",
  "cli",
  "server",
  "script",
  "bot",
];
const SCRIPTED = `list_contains(${sqlLiteral(SCRIPTED_ADAPTERS)}, lower(coalesce(wallet_adapter, '')))`;
const FAILURE = "outcome IN ('failed_onchain', 'preflight')";

const CONFIRMED = "outcome IN ('landed', 'failed_onchain')";

const STATS = "n, scripted, failures, resolved, hours, hour_mask, first_sent, last_sent, gaps";

/** What the payers' units read of a change (apply.ts gathers these over a refresh), the payer as its key. */
export const PAYER_CHANGE_COLUMNS = `sign, arrived, ${payerKey("payer")} AS payer, account_id, program, received_at, sent_at, attempt_key, wallet_adapter, outcome`;
/** Attempt rows (payer as an address) with the payer as its key. */
export const withPayerKey = (attempts: string) => `(SELECT * REPLACE (${payerKey("payer")} AS payer) FROM ${attempts})`;
/** Payers scored per step of a rebuild (each step's merge is held in memory). */
const SCORE_BATCH = 20_000;

/** The bit of an attempt's hour in its day's mask of active hours. */
const HOUR_BIT = `(1::INTEGER << ((received_at // ${HOUR_MS}) % 24)::INTEGER)`;

/**
 * Units of attempt rows (`source` matching `where`), one per (`keys`, `group`): `<out>` (keys, t,
 * stats) and `<out>_gaps` (keys, t, k, n), the gaps in send-time order within the unit. By default
 * one per payer and account.
 */
function unitsOfAttemptsSql(
  out: string,
  source: string,
  where: string,
  group: string,
  keys = "payer, account_id",
): string {
  return `
    CREATE OR REPLACE TEMP TABLE ${out}_attempts AS
      SELECT ${keys}, ${group} AS t, received_at, sent_at, outcome, ${SCRIPTED} AS scripted, ${HOUR_BIT} AS hour_bit,
        sent_at - lag(sent_at) OVER (PARTITION BY ${keys}, ${group} ORDER BY sent_at, attempt_key) AS gap
      FROM ${source} WHERE ${where};
    CREATE OR REPLACE TEMP TABLE ${out} AS
      SELECT ${keys}, t, count(*)::BIGINT AS n, count(*) FILTER (WHERE scripted)::BIGINT AS scripted,
        count(*) FILTER (WHERE ${FAILURE})::BIGINT AS failures, count(outcome)::BIGINT AS resolved, count(DISTINCT received_at // ${HOUR_MS})::BIGINT AS hours,
        bit_or(hour_bit)::INTEGER AS hour_mask, min(sent_at) AS first_sent, max(sent_at) AS last_sent, count(gap)::BIGINT AS gaps
      FROM ${out}_attempts GROUP BY ${keys}, t;
    CREATE OR REPLACE TEMP TABLE ${out}_gaps AS
      SELECT ${keys}, t, sketch_key(gap) AS k, count(*)::BIGINT AS n FROM ${out}_attempts WHERE gap IS NOT NULL GROUP BY ALL;
    DROP TABLE ${out}_attempts`;
}

/**
 * Units merged in time order: `units` (payer, the `by` columns, t, stats) and their gaps `gaps`
 * (payer, the `by` columns, k, n) into `<out>` and `<out>_gaps` per (payer, by); the gap between
 * consecutive units joins the gaps.
 */
function foldSql(out: string, units: string, gaps: string, by: string[]): string {
  const keys = ["payer", ...by].join(", ");
  return `
    CREATE OR REPLACE TEMP TABLE ${out}_between AS
      SELECT ${keys}, first_sent - lag(last_sent) OVER (PARTITION BY ${keys} ORDER BY t) AS gap FROM ${units} WHERE n > 0;
    CREATE OR REPLACE TEMP TABLE ${out} AS
      SELECT ${keys}, sum(n)::BIGINT AS n, sum(scripted)::BIGINT AS scripted, sum(failures)::BIGINT AS failures, sum(resolved)::BIGINT AS resolved,
        sum(hours)::BIGINT AS hours, bit_or(hour_mask)::INTEGER AS hour_mask, arg_min(first_sent, t) AS first_sent, arg_max(last_sent, t) AS last_sent,
        (sum(gaps) + count(*) - 1)::BIGINT AS gaps
      FROM ${units} WHERE n > 0 GROUP BY ${keys};
    CREATE OR REPLACE TEMP TABLE ${out}_gaps AS
      SELECT ${keys}, k, sum(n)::BIGINT AS n FROM (
        SELECT ${keys}, k, n FROM ${gaps}
        UNION ALL SELECT ${keys}, sketch_key(gap) AS k, 1::BIGINT AS n FROM ${out}_between WHERE gap IS NOT NULL
      ) GROUP BY ALL;
    DROP TABLE ${out}_between`;
}

/**
 * Brings the payers' units up to date with `changes`: the arrivals of each (payer, hour) as a unit
 * merged into the hour's unit in send-time order (exact unless a batch's send times interleave
 * with the ones already taken in: then the gap between them is approximated), the resolutions'
 * failures added; day units follow (merged again from the day's hours when it has them).
 */
export function refreshPayerUnitsSql(changes: string): string {
  const kept = (hour: string) => `${hour} // 24 IN (SELECT day FROM payer_hour_days)`;
  return `
    ${unitsOfAttemptsSql("payer_batch", changes, "arrived AND sign > 0", `received_at // ${HOUR_MS}`)};
    CREATE OR REPLACE TEMP TABLE payer_resolved AS
      SELECT payer, account_id, received_at // ${HOUR_MS} AS hour, sum(sign * (${FAILURE})::INT)::BIGINT AS failures,
        sum(sign * (outcome IS NOT NULL)::INT)::BIGINT AS resolved
      FROM ${changes} WHERE NOT arrived GROUP BY ALL;
    -- Hours kept per hour: the hour's unit and the arrivals merged in send-time order.
    CREATE OR REPLACE TEMP TABLE payer_hour_members AS
      SELECT payer, account_id, hour, first_sent AS t, ${STATS} FROM payer_h p
        SEMI JOIN payer_batch b ON b.payer = p.payer AND b.account_id = p.account_id AND b.t = p.hour
      UNION ALL SELECT payer, account_id, t AS hour, first_sent AS t, ${STATS} FROM payer_batch WHERE ${kept("t")};
    CREATE OR REPLACE TEMP TABLE payer_hour_member_gaps AS
      SELECT payer, account_id, hour, k, n FROM payer_gaps_h g
        SEMI JOIN payer_batch b ON b.payer = g.payer AND b.account_id = g.account_id AND b.t = g.hour
      UNION ALL SELECT payer, account_id, t AS hour, k, n FROM payer_batch_gaps WHERE ${kept("t")};
    ${foldSql("payer_h_new", "payer_hour_members", "payer_hour_member_gaps", ["account_id", "hour"])};
    UPDATE payer_h_new SET hours = 1;
    DELETE FROM payer_h USING payer_h_new k WHERE payer_h.payer = k.payer AND payer_h.account_id = k.account_id AND payer_h.hour = k.hour;
    DELETE FROM payer_gaps_h USING payer_h_new k
      WHERE payer_gaps_h.payer = k.payer AND payer_gaps_h.account_id = k.account_id AND payer_gaps_h.hour = k.hour;
    INSERT INTO payer_h BY NAME SELECT * FROM payer_h_new;
    INSERT INTO payer_gaps_h BY NAME SELECT * FROM payer_h_new_gaps;
    UPDATE payer_h SET failures = payer_h.failures + r.failures, resolved = payer_h.resolved + r.resolved
      FROM payer_resolved r WHERE payer_h.payer = r.payer AND payer_h.account_id = r.account_id AND payer_h.hour = r.hour;
    -- Day units: a day kept per hour is the merge of its hours; another (an old day: late arrivals
    -- are rare there) takes the arrivals merged into its unit.
    CREATE OR REPLACE TEMP TABLE payer_touched_days AS
      SELECT DISTINCT payer, account_id, t // 24 AS day FROM payer_batch UNION SELECT DISTINCT payer, account_id, hour // 24 FROM payer_resolved;
    CREATE OR REPLACE TEMP TABLE payer_day_members AS
      SELECT payer, account_id, hour // 24 AS day, hour AS t, ${STATS} FROM payer_h p
        SEMI JOIN payer_touched_days k ON k.payer = p.payer AND k.account_id = p.account_id AND k.day = p.hour // 24 WHERE ${kept("hour")}
      UNION ALL SELECT payer, account_id, day, first_sent AS t, ${STATS} FROM payer_d p
        SEMI JOIN payer_touched_days k USING (payer, account_id, day) WHERE day NOT IN (SELECT day FROM payer_hour_days)
      UNION ALL SELECT payer, account_id, t // 24 AS day, first_sent AS t, ${STATS} FROM payer_batch WHERE NOT (${kept("t")});
    CREATE OR REPLACE TEMP TABLE payer_day_member_gaps AS
      SELECT payer, account_id, hour // 24 AS day, k, n FROM payer_gaps_h g
        SEMI JOIN payer_touched_days k ON k.payer = g.payer AND k.account_id = g.account_id AND k.day = g.hour // 24 WHERE ${kept("hour")}
      UNION ALL SELECT payer, account_id, day, k, n FROM payer_gaps_d g
        SEMI JOIN payer_touched_days k USING (payer, account_id, day) WHERE day NOT IN (SELECT day FROM payer_hour_days)
      UNION ALL SELECT payer, account_id, t // 24 AS day, k, n FROM payer_batch_gaps WHERE NOT (${kept("t")});
    ${foldSql("payer_d_new", "payer_day_members", "payer_day_member_gaps", ["account_id", "day"])};
    -- A day not kept per hour takes its resolutions here (its hours' did above).
    UPDATE payer_d_new SET failures = payer_d_new.failures + r.failures, resolved = payer_d_new.resolved + r.resolved
      FROM (SELECT payer, account_id, hour // 24 AS day, sum(failures) AS failures, sum(resolved) AS resolved FROM payer_resolved
            WHERE NOT (${kept("hour")}) GROUP BY ALL) r
      WHERE payer_d_new.payer = r.payer AND payer_d_new.account_id = r.account_id AND payer_d_new.day = r.day;
    DELETE FROM payer_d USING payer_d_new k WHERE payer_d.payer = k.payer AND payer_d.account_id = k.account_id AND payer_d.day = k.day;
    DELETE FROM payer_gaps_d USING payer_d_new k
      WHERE payer_gaps_d.payer = k.payer AND payer_gaps_d.account_id = k.account_id AND payer_gaps_d.day = k.day;
    INSERT INTO payer_d BY NAME SELECT * FROM payer_d_new;
    INSERT INTO payer_gaps_d BY NAME SELECT * FROM payer_d_new_gaps;
    -- Programs per payer and account (breadth, and which accounts count for the payer): when each was
    -- last sent to; a program is in a window when that is in it.
    CREATE OR REPLACE TEMP TABLE payer_programs_delta AS
      SELECT payer, account_id, program, max(received_at) AS last_seen FROM ${changes} WHERE arrived AND sign > 0 GROUP BY ALL;
    UPDATE payer_programs SET last_seen = greatest(payer_programs.last_seen, d.last_seen)
      FROM payer_programs_delta d
      WHERE payer_programs.payer = d.payer AND payer_programs.account_id = d.account_id AND payer_programs.program = d.program;
    INSERT INTO payer_programs SELECT payer, account_id, program, last_seen FROM payer_programs_delta d
      WHERE NOT EXISTS (SELECT 1 FROM payer_programs p WHERE p.payer = d.payer AND p.account_id = d.account_id AND p.program = d.program);
    -- Per account and program: its newest send, and its newest the chain confirmed.
    CREATE OR REPLACE TEMP TABLE account_program_times_delta AS
      SELECT account_id, program, max(received_at) FILTER (WHERE arrived) AS last_seen, max(received_at) FILTER (WHERE ${CONFIRMED}) AS last_confirmed
      FROM ${changes} WHERE sign > 0 GROUP BY ALL;
    UPDATE account_program_times SET last_seen = greatest(account_program_times.last_seen, d.last_seen),
        last_confirmed = greatest(account_program_times.last_confirmed, d.last_confirmed)
      FROM account_program_times_delta d WHERE account_program_times.account_id = d.account_id AND account_program_times.program = d.program;
    INSERT INTO account_program_times SELECT account_id, program, last_seen, last_confirmed FROM account_program_times_delta d
      WHERE d.last_seen IS NOT NULL AND NOT EXISTS (SELECT 1 FROM account_program_times a WHERE a.account_id = d.account_id AND a.program = d.program);
    DROP TABLE payer_batch; DROP TABLE payer_batch_gaps; DROP TABLE payer_resolved; DROP TABLE payer_hour_members; DROP TABLE payer_hour_member_gaps;
    DROP TABLE payer_h_new; DROP TABLE payer_h_new_gaps; DROP TABLE payer_touched_days; DROP TABLE payer_day_members; DROP TABLE payer_day_member_gaps;
    DROP TABLE payer_d_new; DROP TABLE payer_d_new_gaps; DROP TABLE payer_programs_delta; DROP TABLE account_program_times_delta`;
}

/** A day's hour units computed from every attempt of the day in `source` (a day becoming a window's start day). */
export function loadPayerHoursSql(source: string, day: number): string {
  return `
    ${unitsOfAttemptsSql("payer_loaded", withPayerKey(source), `received_at // ${DAY_MS} = ${day}`, `received_at // ${HOUR_MS}`)};
    DELETE FROM payer_h WHERE hour // 24 = ${day};
    DELETE FROM payer_gaps_h WHERE hour // 24 = ${day};
    INSERT INTO payer_h BY NAME SELECT payer, account_id, t AS hour, ${STATS} FROM payer_loaded;
    INSERT INTO payer_gaps_h BY NAME SELECT payer, account_id, t AS hour, k, n FROM payer_loaded_gaps;
    INSERT INTO payer_hour_days SELECT ${day} WHERE ${day} NOT IN (SELECT day FROM payer_hour_days);
    DROP TABLE payer_loaded; DROP TABLE payer_loaded_gaps`;
}

/**
 * Scores the payers whose 30-day window changed: those in this refresh's changes, those whose
 * attempts its start passed, and those named by an account that started or stopped counting for the
 * program (every payer in a rebuild, SCORE_BATCH at a time). Leaves their segments before in
 * `payer_segments_before` (payer, segment). Their units over [since, clock] are the start hour's
 * attempts from the start onwards (edge_rows), the start day's later hours, then whole days, each of
 * the accounts that count for the payer.
 */
export async function scorePayers(
  state: StateDb,
  bounds: WindowBounds,
  everyone: boolean,
  trust: PublicTrust,
): Promise<void> {
  const since = bounds.since["30d"];
  const was = bounds.previousSince["30d"];
  const [{ accounts }] = await state.all<{ accounts: number }>(
    "SELECT count(DISTINCT account_id)::INTEGER AS accounts FROM account_program_times",
  );
  // As the public weights: one account, or no limit on unconfirmable outcomes, and every account counts.
  const everyAccount = Number(accounts) <= 1 || !Number.isFinite(trust.unconfirmedPerConfirmed);
  await state.run(`
    CREATE OR REPLACE TEMP TABLE payer_counted_now AS
      SELECT account_id, program FROM account_program_times WHERE last_seen >= ${since}${everyAccount ? "" : ` AND last_confirmed >= ${since}`};
    CREATE OR REPLACE TEMP TABLE payer_counted_flipped AS
      (SELECT * FROM payer_counted_now EXCEPT SELECT * FROM payer_counted)
      UNION (SELECT * FROM payer_counted EXCEPT SELECT * FROM payer_counted_now);
    DELETE FROM payer_counted;
    INSERT INTO payer_counted SELECT * FROM payer_counted_now;
    DROP TABLE payer_counted_now`);
  await state.run(
    `CREATE OR REPLACE TEMP TABLE dirty_all AS ${
      everyone
        ? "SELECT DISTINCT payer FROM payer_d"
        : `SELECT payer FROM changed_payers UNION SELECT DISTINCT ${payerKey("payer")} FROM edge_rows WHERE received_at >= ${was} AND received_at < ${since}
           UNION SELECT DISTINCT payer FROM payer_programs SEMI JOIN payer_counted_flipped USING (account_id, program) WHERE last_seen >= ${Math.min(was, since)}`
    }`,
  );
  await state.run("DROP TABLE payer_counted_flipped");
  // Their segments before (issue-windows.ts moves their issues' figures between segments).
  await state.run(
    "CREATE OR REPLACE TEMP TABLE payer_segments_before AS SELECT d.payer, s.segment FROM dirty_all d LEFT JOIN payer_scores s USING (payer)",
  );
  const [{ n }] = await state.all<{ n: number }>("SELECT count(*) AS n FROM dirty_all");
  const batches = Math.max(1, Math.ceil(Number(n) / SCORE_BATCH));
  for (let batch = 0; batch < batches; batch++) {
    await state.run(
      `CREATE OR REPLACE TEMP TABLE dirty_payers AS SELECT payer FROM dirty_all WHERE hash(payer) % ${batches} = ${batch}`,
    );
    await state.run(scoreDirtySql(since));
  }
  await state.run("DROP TABLE dirty_all; DROP TABLE IF EXISTS dirty_payers; DROP TABLE IF EXISTS changed_payers");
}

function scoreDirtySql(since: number): string {
  const startHour = Math.floor(since / HOUR_MS);
  const startDay = Math.floor(since / DAY_MS);
  const inStartDay = `hour > ${startHour} AND hour < ${(startDay + 1) * 24}`;
  const counted = "SEMI JOIN payer_accounts_counted USING (payer, account_id)";
  return `
    -- The accounts that count for each payer: every program they name it on in the window counted.
    CREATE OR REPLACE TEMP TABLE payer_accounts_counted AS
      SELECT p.payer, p.account_id FROM payer_programs p SEMI JOIN dirty_payers USING (payer)
      LEFT JOIN payer_counted c ON c.account_id = p.account_id AND c.program = p.program
      WHERE p.last_seen >= ${since} GROUP BY p.payer, p.account_id HAVING bool_and(c.program IS NOT NULL);
    ${unitsOfAttemptsSql("payer_edge", `(SELECT e.* FROM ${withPayerKey("edge_rows")} e ${counted})`, `received_at >= ${since} AND received_at < ${(startHour + 1) * HOUR_MS}`, `received_at // ${HOUR_MS}`, "payer")};
    -- The window's units of the counted accounts: per slot (the start hour, the start day's later
    -- hours, later days) merged across accounts in send-time order, an hour the day's mask counts once.
    CREATE OR REPLACE TEMP TABLE payer_window_members AS
      SELECT payer, 0 AS slot, first_sent AS t, ${STATS} FROM payer_edge
      UNION ALL SELECT payer, hour - ${startHour} AS slot, first_sent AS t, ${STATS} FROM payer_h ${counted} WHERE ${inStartDay}
      UNION ALL SELECT payer, 24 * (day - ${startDay}) AS slot, first_sent AS t, ${STATS} FROM payer_d ${counted} WHERE day > ${startDay};
    CREATE OR REPLACE TEMP TABLE payer_window_member_gaps AS
      SELECT payer, 0 AS slot, k, n FROM payer_edge_gaps
      UNION ALL SELECT payer, hour - ${startHour} AS slot, k, n FROM payer_gaps_h ${counted} WHERE ${inStartDay}
      UNION ALL SELECT payer, 24 * (day - ${startDay}) AS slot, k, n FROM payer_gaps_d ${counted} WHERE day > ${startDay};
    ${foldSql("payer_window_slots", "payer_window_members", "payer_window_member_gaps", ["slot"])};
    UPDATE payer_window_slots SET hours = bit_count(hour_mask);
    ${foldSql("payer_window", "(SELECT * EXCLUDE (slot), slot AS t FROM payer_window_slots)", "(SELECT payer, k, n FROM payer_window_slots_gaps)", [])};
    -- Quartiles of the gaps as quantile_cont reads them (interpolated between order statistics), each
    -- order statistic the value its sketch bucket stands for.
    CREATE OR REPLACE TEMP TABLE payer_gap_quartiles AS
      SELECT payer, ${quartileSql(0.25)} AS gap_q1, ${quartileSql(0.75)} AS gap_q3
      FROM (SELECT payer, k, sum(n) OVER (PARTITION BY payer ORDER BY k ROWS UNBOUNDED PRECEDING) AS cum, sum(n) OVER (PARTITION BY payer) AS total FROM payer_window_gaps)
      GROUP BY payer;
    CREATE OR REPLACE TEMP TABLE payer_window_programs AS
      SELECT payer, count(DISTINCT program)::BIGINT AS programs FROM payer_programs ${counted} WHERE last_seen >= ${since} GROUP BY payer;
    CREATE OR REPLACE TEMP TABLE payer_features AS
      SELECT f.payer, f.n AS attempts, f.hours AS active_hours, coalesce(p.programs, 0) AS programs, f.scripted, f.failures, f.resolved, f.gaps, q.gap_q1, q.gap_q3
      FROM payer_window f LEFT JOIN payer_window_programs p USING (payer) LEFT JOIN payer_gap_quartiles q USING (payer);
    ${sqlFile("payer_scores")};
    DELETE FROM payer_scores USING dirty_payers d WHERE payer_scores.payer = d.payer;
    INSERT INTO payer_scores BY NAME SELECT * FROM payer_scores_new;
    DROP TABLE payer_accounts_counted; DROP TABLE payer_edge; DROP TABLE payer_edge_gaps; DROP TABLE payer_window_members;
    DROP TABLE payer_window_member_gaps; DROP TABLE payer_window_slots; DROP TABLE payer_window_slots_gaps; DROP TABLE payer_window;
    DROP TABLE payer_window_gaps; DROP TABLE payer_gap_quartiles; DROP TABLE payer_window_programs; DROP TABLE payer_features; DROP TABLE payer_scores_new`;
}

/** quantile_cont's interpolation at q over the sketch's order statistics (columns k, cum, total of one payer). */
function quartileSql(q: number): string {
  // `total` is the same on every row of a payer: per row inside a FILTER, any_value outside.
  const stat = (round: "floor" | "ceil") => `sketch_value(min(k) FILTER (WHERE cum > ${round}(${q} * (total - 1))))`;
  const at = `${q} * (any_value(total) - 1)`;
  return `${stat("floor")} + (${at} - floor(${at})) * (${stat("ceil")} - ${stat("floor")})`;
}
