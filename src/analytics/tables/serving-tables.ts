// The tables a serving version holds, in the shapes the query layer reads (src/analytics/queries):
// each window's, deploy period's and day's figures, merged from the state's units over its range
// (ranges.ts), plus the issue tables (issues.ts) and the payers' scores. Written into the new
// version's database file, attached to the state's connection as `target`.

import { seenOnChainProgramsSql } from "../queries";
import { sketchQuantilesSql } from "../serving/sketch";
import { sqlFile } from "../sql";
import { countsNothing, issueServingTablesSql } from "./issues";
import { type PublicTrust, writePublicWeights } from "./public-weights";
import { mergeRangesSql } from "./ranges";
import { recentServingTablesSql } from "./recent";
import { rollup } from "./rollups";
import type { StateDb } from "./state";

/** Range kinds (the `ranges` temp table: range, program, kind, win, day, slot, period). */
export type RangeKind = "window" | "trend" | "all" | "release";

const SCOPE = "CASE WHEN grouping(account_id) = 1 THEN '*' ELSE account_id END AS scope";

/** A provider's time-to-land sketch per scope (`<name>_scoped`) and its p50 and p95 (`<name>_quantiles`). */
const providerQuantilesSql = (name: string, rollup: string) => `
    CREATE OR REPLACE TEMP TABLE ${name}_scoped AS
      SELECT program, ${SCOPE}, win, rpc_label, rpc_hash, bucket, sum(n) AS n FROM ${rollup} ${scoped(["program", "win", "rpc_label", "rpc_hash", "bucket"])};
    CREATE OR REPLACE TEMP TABLE ${name}_quantiles AS ${sketchQuantilesSql(
      `${name}_scoped`,
      ["program", "scope", "win", "rpc_label", "rpc_hash"],
      [
        { q: 0.5, as: "p50" },
        { q: 0.95, as: "p95" },
      ],
    )}`;
/** Accounts whose weighted outcomes count in a group (w: the weights of confirmed and unconfirmable outcomes). */
const COUNTED_ACCOUNTS = (confirmed: string, unconfirmed: string) =>
  `count(DISTINCT account_id) FILTER (WHERE (landed + failed_onchain) * ${confirmed} + (dropped + preflight) * ${unconfirmed} > 0)`;
/** The public outcome counts: each account's rows weighted (public-weights.ts), rounded to whole attempts. */
const PUBLIC_OUTCOMES = `round(sum(landed * w_confirmed))::BIGINT AS landed, round(sum(failed_onchain * w_confirmed))::BIGINT AS failed_onchain,
  round(sum(dropped * w_unconfirmed))::BIGINT AS dropped, round(sum(preflight * w_unconfirmed))::BIGINT AS preflight`;
/** Resolved sends weighted: those that landed or failed on chain as confirmed, drops as unconfirmable. */
const WEIGHTED_SENDS = "((sends - sends_dropped) * w_confirmed + sends_dropped * w_unconfirmed)";
const PUBLIC_SENDS = `round(sum(${WEIGHTED_SENDS}))::BIGINT AS attempts, round(sum(sends_dropped * w_unconfirmed))::BIGINT AS dropped,
  round(sum(expired * w_unconfirmed))::BIGINT AS expired`;
/** Every attempt weighted: its outcome's weight, or the pending weight while it has none. */
const WEIGHTED_ATTEMPTS =
  "((landed + failed_onchain) * w_confirmed + (dropped + preflight) * w_unconfirmed + pending * w_pending)";
/**
 * What one failure of an issue counts in a release period's public figures (r_issues ⋈ issue_identity `i` ⋈
 * public_weights `w`): a drop or preflight failure its account's weight of unconfirmable outcomes, as in
 * top-issues (issues.ts); a failure on chain, confirmed, one.
 */
const RELEASE_ISSUE_WEIGHT =
  "CASE WHEN i.outcome IN ('dropped', 'preflight') THEN coalesce(w.w_unconfirmed, 1) ELSE 1 END";
/** Group sets of one scope per account and the public '*'. */
const scoped = (keys: string[]) =>
  `GROUP BY GROUPING SETS ((${[...keys, "account_id"].join(", ")}), (${keys.join(", ")}))`;

/**
 * Nearest-rank quantiles over exact values: a SQL select over `source` (columns: the group's `keys`,
 * the `value` column, n its weight) giving, per group, one column per quantile named by `as`, each
 * one of the values (the sketch's counterpart for figures reported exactly, serving/sketch.ts).
 */
function exactQuantilesSql(
  source: string,
  value: string,
  keys: string[],
  quantiles: { q: number; as: string }[],
): string {
  const group = keys.join(", ");
  // The small tolerance keeps q·total that is a whole number in floating point from missing its rank.
  const picks = quantiles.map(({ q, as }) => `min(${value}) FILTER (WHERE running >= ${q} * total - 1e-9) AS ${as}`);
  return `SELECT ${[...keys, ...picks].join(", ")} FROM (
      SELECT *, sum(n) OVER (PARTITION BY ${group} ORDER BY ${value} ROWS UNBOUNDED PRECEDING) AS running, sum(n) OVER (PARTITION BY ${group}) AS total
      FROM (SELECT ${[...keys, value, "sum(n) AS n"].join(", ")} FROM ${source} GROUP BY ${[...keys, value].join(", ")}) WHERE n > 0
    ) GROUP BY ${group}`;
}

/** Merges each rollup over the ranges of the kinds that read it, into r_<rollup> (range descriptions joined). */
async function mergeRanges(state: StateDb): Promise<void> {
  const uses: [string, RangeKind[]][] = [
    ["outcomes", ["window", "all", "release"]],
    ["land", ["window"]],
    ["land_slots", ["window"]],
    ["cu", ["window", "release"]],
    ["cu_used", ["window", "trend", "release"]],
    ["cu_requested", ["window"]],
    ["issues", ["window", "release", "trend"]],
    ["issue_providers", ["window"]],
    ["issue_adapters", ["window"]],
  ];
  for (const [name, kinds] of uses) {
    await state.run(
      `CREATE OR REPLACE TEMP TABLE range_parts_now AS SELECT * FROM range_parts WHERE range IN (SELECT range FROM ranges WHERE kind IN (${kinds.map((k) => `'${k}'`).join(", ")}))`,
    );
    await state.run(mergeRangesSql(rollup(name), `r_${name}_merged`, "range_parts_now"));
    await state.run(
      `CREATE OR REPLACE TEMP TABLE r_${name} AS SELECT g.*, m.* EXCLUDE (range) FROM r_${name}_merged m JOIN ranges g USING (range); DROP TABLE r_${name}_merged`,
    );
  }
  await state.run("DROP TABLE range_parts_now");
}

export async function writeServingTables(
  state: StateDb,
  target: string,
  info: {
    clock: number;
    version: number;
    schema: number;
    botScoreVersion: string;
    since7d: number;
    trust: PublicTrust;
  },
): Promise<void> {
  await mergeRanges(state);
  const trust = await writePublicWeights(state, info.trust);
  const t = target;
  await state.run(`
    CREATE TABLE ${t}.windows AS SELECT win, since, until, length_ms FROM windows_def;
    CREATE OR REPLACE TEMP TABLE r_outcomes_weighted AS
      SELECT o.*, coalesce(w.w_confirmed, 1) AS w_confirmed, coalesce(w.w_unconfirmed, 1) AS w_unconfirmed,
        coalesce(w.w_pending, 1) AS w_pending
      FROM r_outcomes o LEFT JOIN public_weights w USING (range, program, account_id);
    CREATE TABLE ${t}.rates AS
      SELECT program, account_id AS scope, win, rpc_label, rpc_hash, sum(landed)::BIGINT AS landed, sum(failed_onchain)::BIGINT AS failed_onchain,
        sum(dropped)::BIGINT AS dropped, sum(preflight)::BIGINT AS preflight, sum(pending)::BIGINT AS pending,
        ${COUNTED_ACCOUNTS("1", "1")} AS accounts
      FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, account_id, win, rpc_label, rpc_hash
      UNION ALL
      SELECT program, '*', win, rpc_label, rpc_hash, ${PUBLIC_OUTCOMES}, round(sum(pending * w_pending))::BIGINT,
        ${COUNTED_ACCOUNTS("w_confirmed", "w_unconfirmed")}
      FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, win, rpc_label, rpc_hash;
    -- How many accounts a figure counts (the providers' rows cannot be summed for it): per program and
    -- window, and for the whole ecosystem (program '*': of the programs its figures count, those seen on chain).
    CREATE TABLE ${t}.rate_accounts AS
      SELECT program, account_id AS scope, win, ${COUNTED_ACCOUNTS("1", "1")} AS accounts
      FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, account_id, win
      UNION ALL
      SELECT program, '*', win, ${COUNTED_ACCOUNTS("w_confirmed", "w_unconfirmed")}
      FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, win
      UNION ALL
      SELECT '*', '*', win, ${COUNTED_ACCOUNTS("w_confirmed", "w_unconfirmed")}
      FROM r_outcomes_weighted WHERE kind = 'window' AND program IN (${seenOnChainProgramsSql(`${t}.rates`)}) GROUP BY win;
    ${providerQuantilesSql("land", "r_land")};
    ${providerQuantilesSql("land_slots", "r_land_slots")};
    CREATE TABLE ${t}.providers AS
      SELECT o.*, CASE WHEN q.p50 IS NOT NULL THEN [q.p50, q.p95] END AS land_quantiles,
        CASE WHEN s.p50 IS NOT NULL THEN [s.p50, s.p95] END AS land_slot_quantiles, coalesce(s.total, 0)::BIGINT AS land_slot_sends
      FROM (SELECT program, account_id AS scope, win, rpc_label, rpc_hash, sum(sends)::BIGINT AS attempts, sum(sends_dropped)::BIGINT AS dropped,
              sum(expired)::BIGINT AS expired, count(DISTINCT account_id) FILTER (WHERE sends > 0) AS accounts
            FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, account_id, win, rpc_label, rpc_hash
            UNION ALL
            SELECT program, '*', win, rpc_label, rpc_hash, ${PUBLIC_SENDS}, count(DISTINCT account_id) FILTER (WHERE ${WEIGHTED_SENDS} > 0)
            FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY program, win, rpc_label, rpc_hash) o
      LEFT JOIN land_quantiles q USING (program, scope, win, rpc_label, rpc_hash)
      LEFT JOIN land_slots_quantiles s USING (program, scope, win, rpc_label, rpc_hash)
      WHERE o.attempts > 0;
    -- A provider's public sends over every program (diagnose-drop's provider figure).
    CREATE TABLE ${t}.provider_totals AS
      SELECT rpc_hash, win, ${PUBLIC_SENDS}, count(DISTINCT account_id) FILTER (WHERE ${WEIGHTED_SENDS} > 0) AS accounts
      FROM r_outcomes_weighted WHERE kind = 'window' GROUP BY rpc_hash, win;
    CREATE OR REPLACE TEMP TABLE cu_used_scoped AS
      SELECT program, ${SCOPE}, kind, win, day, slot, period, instruction, bucket, sum(n) AS n FROM r_cu_used
      ${scoped(["program", "kind", "win", "day", "slot", "period", "instruction", "bucket"])};
    CREATE OR REPLACE TEMP TABLE cu_used_quantiles AS ${sketchQuantilesSql(
      "cu_used_scoped",
      ["program", "scope", "kind", "win", "day", "slot", "period", "instruction"],
      [
        { q: 0.5, as: "p50" },
        { q: 0.95, as: "p95" },
      ],
    )};
    CREATE OR REPLACE TEMP TABLE cu_requested_scoped AS
      SELECT program, ${SCOPE}, win, instruction, requested, sum(n) AS n FROM r_cu_requested ${scoped(["program", "win", "instruction", "requested"])};
    CREATE OR REPLACE TEMP TABLE cu_requested_quantiles AS ${exactQuantilesSql("cu_requested_scoped", "requested", ["program", "scope", "win", "instruction"], [{ q: 0.5, as: "p50" }])};
    CREATE OR REPLACE TEMP TABLE cu_scoped AS
      SELECT program, ${SCOPE}, kind, win, slot, period, instruction, sum(ix_attempts)::BIGINT AS ix_attempts, sum(ix_failed)::BIGINT AS ix_failed,
        sum(samples)::BIGINT AS samples, sum(exceeded)::BIGINT AS exceeded, max(cu_max) AS cu_max, min(cu_min) AS cu_min
      FROM r_cu ${scoped(["program", "kind", "win", "slot", "period", "instruction"])};
    -- A sketch's value stands for its bucket, which can reach past the data's extremes; the exact
    -- quantile lies within both, so each is kept within [cu_min, cu_max] (still within the sketch's error).
    CREATE TABLE ${t}.cu_instructions AS
      SELECT c.program, c.scope, c.win, c.instruction, c.samples,
        [greatest(c.cu_min, least(c.cu_max, u.p50)), greatest(c.cu_min, least(c.cu_max, u.p95))] AS cu_quantiles,
        c.cu_max, r.p50 AS cu_requested_p50, c.exceeded
      FROM cu_scoped c
      JOIN cu_used_quantiles u ON u.kind = 'window' AND u.program = c.program AND u.scope = c.scope AND u.win = c.win AND u.instruction = c.instruction
      LEFT JOIN cu_requested_quantiles r ON r.program = c.program AND r.scope = c.scope AND r.win = c.win AND r.instruction = c.instruction
      WHERE c.kind = 'window' AND c.samples > 0;
    CREATE TABLE ${t}.cu_trend AS
      SELECT program, scope, instruction, day, p95 AS cu_p95 FROM cu_used_quantiles WHERE kind = 'trend' AND p95 IS NOT NULL;
    -- A program's attempts in retention and its newest; in public, weighted, and the newest only of
    -- accounts whose weighted attempts count (the row stays: the program's data is known by its id).
    CREATE TABLE ${t}.programs AS
      SELECT program, account_id AS scope, sum(attempts)::BIGINT AS attempts, max(last_seen) AS last_seen
      FROM r_outcomes_weighted WHERE kind = 'all' GROUP BY program, account_id
      UNION ALL
      SELECT program, '*', round(sum(${WEIGHTED_ATTEMPTS}))::BIGINT, max(last_seen) FILTER (WHERE ${WEIGHTED_ATTEMPTS} > 0)
      FROM r_outcomes_weighted WHERE kind = 'all' GROUP BY program;
    -- Each account's weight of unconfirmable outcomes per program and window ('all': retention), where
    -- below 1: what its drop and preflight issues count in public (issues.ts).
    CREATE OR REPLACE TEMP TABLE issue_weights AS
      SELECT g.program, CASE g.kind WHEN 'all' THEN 'all' ELSE g.win END AS win, w.account_id, w.w_unconfirmed AS w
      FROM public_weights w JOIN ranges g USING (range, program) WHERE g.kind IN ('window', 'all') AND w.w_unconfirmed < 1;
    CREATE OR REPLACE TEMP TABLE issue_window_bounds AS
      SELECT program, account_id AS scope, win, fingerprint, min(first_at) AS first_in_window FROM r_issues WHERE kind = 'window'
      GROUP BY program, account_id, win, fingerprint
      UNION ALL
      SELECT r.program, '*', r.win, r.fingerprint, min(r.first_at) FILTER (WHERE NOT ${countsNothing("r", "r.win")})
      FROM r_issues r WHERE r.kind = 'window' GROUP BY r.program, r.win, r.fingerprint;
    CREATE TABLE ${t}.payer_scores AS SELECT * FROM payer_scores;
    CREATE TABLE ${t}.deploys AS SELECT * FROM deploys;
    CREATE TABLE ${t}.release_periods AS SELECT * FROM release_periods;
    CREATE TABLE ${t}.release_rates AS
      SELECT * FROM (
        SELECT program, slot, win, period, account_id AS scope, sum(landed)::BIGINT AS landed, sum(failed_onchain)::BIGINT AS failed_onchain,
          sum(dropped)::BIGINT AS dropped, sum(preflight)::BIGINT AS preflight
        FROM r_outcomes_weighted WHERE kind = 'release' GROUP BY program, slot, win, period, account_id
        UNION ALL
        SELECT program, slot, win, period, '*', ${PUBLIC_OUTCOMES}
        FROM r_outcomes_weighted WHERE kind = 'release' GROUP BY program, slot, win, period
      ) WHERE landed + failed_onchain + dropped + preflight > 0;
    CREATE TABLE ${t}.release_issues AS
      SELECT r.program, r.slot, r.win, r.scope, r.fingerprint, i.instruction, i.err_name, i.outcome, i.failing_program, i.err_code, i.drop_class,
        r.pre_count, r.post_count
      FROM (SELECT program, slot, win, account_id AS scope, fingerprint, coalesce(sum(n) FILTER (WHERE period = 'pre'), 0)::BIGINT AS pre_count,
              coalesce(sum(n) FILTER (WHERE period = 'post'), 0)::BIGINT AS post_count
            FROM r_issues WHERE kind = 'release' GROUP BY program, slot, win, account_id, fingerprint
            UNION ALL
            -- In public, each account's drop and preflight failures weighted as its outcomes of the period
            -- are (public-weights.ts); an issue no counted failure is left of, before or after, is not listed.
            SELECT * FROM (
              SELECT r.program, r.slot, r.win, '*', r.fingerprint,
                round(coalesce(sum(r.n * ${RELEASE_ISSUE_WEIGHT}) FILTER (WHERE r.period = 'pre'), 0))::BIGINT AS pre_count,
                round(coalesce(sum(r.n * ${RELEASE_ISSUE_WEIGHT}) FILTER (WHERE r.period = 'post'), 0))::BIGINT AS post_count
              FROM r_issues r JOIN issue_identity i USING (program, fingerprint) LEFT JOIN public_weights w USING (range, program, account_id)
              WHERE r.kind = 'release' GROUP BY r.program, r.slot, r.win, r.fingerprint
            ) WHERE pre_count + post_count > 0) r
      JOIN issue_identity i USING (program, fingerprint);
    CREATE TABLE ${t}.release_instructions AS
      SELECT c.program, c.slot, c.win, c.scope, c.instruction,
        coalesce(sum(c.ix_attempts) FILTER (WHERE c.period = 'pre'), 0)::BIGINT AS pre_attempts,
        coalesce(sum(c.ix_failed) FILTER (WHERE c.period = 'pre'), 0)::BIGINT AS pre_failed,
        coalesce(sum(c.ix_attempts) FILTER (WHERE c.period = 'post'), 0)::BIGINT AS post_attempts,
        coalesce(sum(c.ix_failed) FILTER (WHERE c.period = 'post'), 0)::BIGINT AS post_failed,
        any_value(u.p95) FILTER (WHERE c.period = 'pre') AS cu_p95_pre, any_value(u.p95) FILTER (WHERE c.period = 'post') AS cu_p95_post
      FROM cu_scoped c
      LEFT JOIN cu_used_quantiles u ON u.kind = 'release' AND u.program = c.program AND u.scope = c.scope AND u.slot = c.slot AND u.win = c.win
        AND u.period = c.period AND u.instruction = c.instruction
      WHERE c.kind = 'release' AND c.ix_attempts > 0
      GROUP BY c.program, c.slot, c.win, c.scope, c.instruction;
    ${issueServingTablesSql(t)};
    -- The issue page (queries/issue-detail.ts): per account, the hourly counts of the last 7 days
    -- (the first hour from the window's start), the daily counts of 30, the window's providers and
    -- wallet adapters, and the newest failures.
    CREATE TABLE ${t}.issue_series AS
      SELECT program, account_id, fingerprint, 'hour' AS kind, hour AS unit, sum(n)::BIGINT AS n FROM (
        SELECT program, account_id, fingerprint, hour, n FROM u_issues_h WHERE hour > ${Math.floor(info.since7d / 3_600_000)}
        UNION ALL
        SELECT program, account_id, fingerprint, received_at // 3600000, 1 FROM edge_rows
        WHERE fingerprint IS NOT NULL AND received_at >= ${info.since7d} AND received_at < ${(Math.floor(info.since7d / 3_600_000) + 1) * 3_600_000}
      ) GROUP BY ALL
      UNION ALL
      SELECT program, account_id, fingerprint, 'day', (epoch_ms(day::DATE) // 86400000)::INTEGER, sum(n)::BIGINT FROM r_issues WHERE kind = 'trend' GROUP BY ALL;
    CREATE TABLE ${t}.issue_breakdowns AS
      SELECT program, account_id, win, fingerprint, 'provider' AS kind, rpc_label AS key, sum(n)::BIGINT AS n FROM r_issue_providers GROUP BY ALL
      UNION ALL
      SELECT program, account_id, win, fingerprint, 'walletAdapter', wallet_adapter, sum(n)::BIGINT FROM r_issue_adapters GROUP BY ALL;
    CREATE TABLE ${t}.issue_examples AS SELECT * FROM issue_examples;
    ${recentServingTablesSql(t, info.clock)};
    CREATE TABLE ${t}.meta AS SELECT * FROM (VALUES ('version', '${info.version}'), ('clock', '${info.clock}'), ('schema', '${info.schema}'),
      ('botScoreVersion', '${info.botScoreVersion}')) v(key, value);
    -- Whether the public rows are weighted (public-weights.ts): the data's accounts, and the answer.
    CREATE TABLE ${t}.public_trust AS SELECT ${trust.accounts}::INTEGER AS accounts, ${trust.weighted} AS weighted`);
  for (const table of [
    "land_scoped",
    "land_quantiles",
    "land_slots_scoped",
    "land_slots_quantiles",
    "cu_used_scoped",
    "cu_used_quantiles",
    "cu_requested_scoped",
    "cu_requested_quantiles",
    "cu_scoped",
    "issue_window_bounds",
    "r_outcomes_weighted",
    "public_weights",
    "issue_weights",
  ]) {
    await state.run(`DROP TABLE IF EXISTS ${table}`);
  }
  for (const name of [
    "outcomes",
    "land",
    "land_slots",
    "cu",
    "cu_used",
    "cu_requested",
    "issues",
    "issue_providers",
    "issue_adapters",
  ])
    await state.run(`DROP TABLE IF EXISTS r_${name}`);
}

/**
 * The deploys and their release periods (sql/deploys.sql, sql/release_periods.sql), as temp tables of the state's
 * connection.
 */
export async function deployTablesSql(state: StateDb, deployFiles: string[], clock: number): Promise<void> {
  await state.run(
    deployFiles.length > 0
      ? sqlFile("deploys", { deployFiles })
      : `CREATE OR REPLACE TEMP TABLE deploys (program VARCHAR, slot BIGINT, deployed_at BIGINT, detected_at BIGINT, authority VARCHAR,
          effective_at BIGINT, previous_at BIGINT, previous_slot BIGINT, next_at BIGINT)`,
  );
  await state.run(sqlFile("release_periods", { until: clock }));
}
