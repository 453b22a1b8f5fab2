// The issues of top-issues: per account and payer, how many failures of each issue fall in each
// window (`issue_payers`, state.ts), so that an issue's count and distinct wallets per payer segment are
// exact however payers move between segments. Kept incrementally: failures that arrive are added
// to every window they fall in; failures a window's start passed since the previous refresh are
// subtracted (read from the edge hours' attempt rows, as they were before this refresh's changes).
// An issue's sample signature is its newest failure with a signature: the newest of its payers'
// newest, which stays in a window as long as any of the issue's failures does.

import { WINDOW_NAMES } from "../windows";
import { issueSegmentsSql, ISSUE_PAYER_KEYS as KEYS, keysMatch, logIssuePayersSql } from "./issue-windows";
import { withPayerKey } from "./payers";
import type { WindowBounds } from "./window-bounds";

/** Failures kept per issue and account for the issue page (it shows up to 20 examples and one event). */
const EXAMPLES = 21;
const EXAMPLE_COLUMNS =
  "program, account_id, fingerprint, sig, sent_at, received_at, payer, rpc_label, outcome, failing_program, instruction, err_code, err_name, drop_class";

/**
 * Merges `delta` (issue_payers rows, counts signed) into issue_payers; rows without a failure in 30
 * days go. `log`: record what it touches for the issues' per-segment figures (issue-windows.ts).
 */
function mergeSql(delta: string, log: boolean): string {
  // The delta's rows of issue_payers, read once (each read scans the whole table: ~130 ms at 2.3M rows).
  return `
    CREATE OR REPLACE TEMP TABLE issue_payers_matched AS
    SELECT ip.* FROM issue_payers ip SEMI JOIN ${delta} d ON ${keysMatch("ip", "d")};
    ${log ? `${logIssuePayersSql(delta, "issue_payers_matched")};` : ""}
    CREATE OR REPLACE TEMP TABLE issue_payers_merged AS
    SELECT ${KEYS.join(", ")}, sum(c1d)::BIGINT AS c1d, sum(c7d)::BIGINT AS c7d, sum(c30d)::BIGINT AS c30d, max(last_at) AS last_at,
      max(last_sig_at) AS last_sig_at, arg_max(last_sig, last_sig_at) AS last_sig
    FROM (SELECT * FROM issue_payers_matched UNION ALL BY NAME SELECT * FROM ${delta})
    GROUP BY ${KEYS.join(", ")};
    DELETE FROM issue_payers USING ${delta} d WHERE ${keysMatch("issue_payers", "d")};
    INSERT INTO issue_payers BY NAME SELECT * FROM issue_payers_merged WHERE c30d > 0;
    DROP TABLE issue_payers_matched; DROP TABLE issue_payers_merged; DROP TABLE ${delta}`;
}

/**
 * Failures among the changes' new versions, in the windows they fall in; plus issue identities and lifetimes. `log`: as
 * mergeSql's.
 */
export function applyIssueArrivalsSql(changes: string, bounds: WindowBounds, log: boolean): string {
  const { since } = bounds;
  return `
    CREATE OR REPLACE TEMP TABLE issue_payers_delta AS
    SELECT ${KEYS.join(", ")}, count(*) FILTER (WHERE received_at >= ${since["1d"]}) AS c1d, count(*) FILTER (WHERE received_at >= ${since["7d"]}) AS c7d,
      count(*) AS c30d, max(received_at) AS last_at, max(received_at) FILTER (WHERE sig IS NOT NULL) AS last_sig_at,
      arg_max(sig, received_at) FILTER (WHERE sig IS NOT NULL) AS last_sig
    FROM ${withPayerKey(changes)} WHERE sign > 0 AND fingerprint IS NOT NULL AND received_at >= ${since["30d"]}
    GROUP BY ${KEYS.join(", ")};
    ${mergeSql("issue_payers_delta", log)};
    INSERT INTO issue_identity
      SELECT DISTINCT ON (program, fingerprint) program, fingerprint, outcome, failing_program, instruction, err_code, err_name, drop_class
      FROM ${changes} c WHERE sign > 0 AND fingerprint IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM issue_identity i WHERE i.program = c.program AND i.fingerprint = c.fingerprint);
    CREATE OR REPLACE TEMP TABLE issue_lifetimes_delta AS
      SELECT program, account_id, fingerprint, min(received_at) AS first_seen, max(received_at) AS last_seen
      FROM ${changes} WHERE sign > 0 AND fingerprint IS NOT NULL GROUP BY ALL;
    CREATE OR REPLACE TEMP TABLE issue_lifetimes_merged AS
      SELECT program, account_id, fingerprint, min(first_seen) AS first_seen, max(last_seen) AS last_seen
      FROM (SELECT l.* FROM issue_lifetimes l SEMI JOIN issue_lifetimes_delta d USING (program, account_id, fingerprint) UNION ALL SELECT * FROM issue_lifetimes_delta)
      GROUP BY ALL;
    DELETE FROM issue_lifetimes USING issue_lifetimes_delta d
      WHERE issue_lifetimes.program = d.program AND issue_lifetimes.account_id = d.account_id AND issue_lifetimes.fingerprint = d.fingerprint;
    INSERT INTO issue_lifetimes SELECT * FROM issue_lifetimes_merged;
    DROP TABLE issue_lifetimes_delta; DROP TABLE issue_lifetimes_merged;
    -- The newest ${EXAMPLES} failures of each issue per account, and the newest ${EXAMPLES} with a signature: the
    -- issue page's first ${EXAMPLES} rows (examples of the window, then the newest others) are always among them.
    CREATE OR REPLACE TEMP TABLE issue_examples_new AS SELECT ${EXAMPLE_COLUMNS} FROM ${changes} WHERE sign > 0 AND fingerprint IS NOT NULL;
    CREATE OR REPLACE TEMP TABLE issue_examples_kept AS
      SELECT ${EXAMPLE_COLUMNS} FROM (
        SELECT *, row_number() OVER (PARTITION BY program, account_id, fingerprint ORDER BY received_at DESC, sig) AS newest,
          row_number() OVER (PARTITION BY program, account_id, fingerprint, sig IS NULL ORDER BY received_at DESC, sig) AS newest_of_kind
        FROM (SELECT e.* FROM issue_examples e SEMI JOIN issue_examples_new k USING (program, account_id, fingerprint) UNION ALL SELECT * FROM issue_examples_new))
      WHERE newest <= ${EXAMPLES} OR (sig IS NOT NULL AND newest_of_kind <= ${EXAMPLES});
    DELETE FROM issue_examples USING (SELECT DISTINCT program, account_id, fingerprint FROM issue_examples_new) k
      WHERE issue_examples.program = k.program AND issue_examples.account_id = k.account_id AND issue_examples.fingerprint = k.fingerprint;
    INSERT INTO issue_examples SELECT * FROM issue_examples_kept;
    DROP TABLE issue_examples_new; DROP TABLE issue_examples_kept`;
}

/**
 * Failures whose receipt a window's start passed since the previous refresh leave it (edge_rows: their state before
 * this refresh).
 */
export function applyIssueDeparturesSql(bounds: WindowBounds): string {
  const { since, previousSince: was } = bounds;
  const passed = (w: "1d" | "7d" | "30d") => `received_at >= ${was[w]} AND received_at < ${since[w]}`;
  const left = (w: "1d" | "7d" | "30d") => `-count(*) FILTER (WHERE ${passed(w)})`;
  // Only rows some window's start passed: the edge hours hold whole hours (and the hours of release
  // periods' edges), and a key with nothing departed would only make every later step touch it.
  const departed = WINDOW_NAMES.map((w) => `(${passed(w)})`).join(" OR ");
  return `
    CREATE OR REPLACE TEMP TABLE issue_payers_departed AS
    SELECT ${KEYS.join(", ")}, ${left("1d")} AS c1d, ${left("7d")} AS c7d, ${left("30d")} AS c30d,
      NULL::BIGINT AS last_at, NULL::BIGINT AS last_sig_at, NULL::VARCHAR AS last_sig
    FROM ${withPayerKey("edge_rows")} WHERE fingerprint IS NOT NULL AND (${departed})
    GROUP BY ${KEYS.join(", ")};
    ${mergeSql("issue_payers_departed", true)}`;
}

/** Issues of outcomes the chain cannot confirm: their public figures weight each account (public-weights.ts). */
const UNCONFIRMABLE_ISSUE = "outcome IN ('dropped', 'preflight')";
/** A window's failures counted in issue_payers row `r` (`win`: the window's column or name). */
const windowCount = (r: string, win: string) =>
  `CASE ${win} WHEN '1d' THEN ${r}.c1d WHEN '7d' THEN ${r}.c7d ELSE ${r}.c30d END`;

/**
 * Whether row `r` (program, account_id, fingerprint) is an unconfirmable failure of an account whose
 * unconfirmable outcomes of the program count for nothing in public over `win` (issue_weights).
 */
export const countsNothing = (r: string, win: string) => `EXISTS (
    SELECT 1 FROM issue_weights w JOIN issue_identity i ON i.program = w.program
    WHERE w.program = ${r}.program AND w.account_id = ${r}.account_id AND w.win = ${win} AND w.w = 0
      AND i.fingerprint = ${r}.fingerprint AND i.${UNCONFIRMABLE_ISSUE})`;

/**
 * The public rows (scope '*') of unconfirmable issues an account with a weight below 1 took part in
 * (issue_weights: program, win, account_id, w), again with each account's failures weighted: the
 * count rounded to whole failures, a wallet only where its weighted failures count, the newest
 * failure and sample signature only of those. An issue whose weighted count rounds to 0 leaves the
 * public lists.
 */
function weightPublicIssuesSql(windows: string): string {
  return `
    CREATE OR REPLACE TEMP TABLE issue_groups_weighted AS
      SELECT DISTINCT ip.program, ip.fingerprint, w.win
      FROM issue_payers ip JOIN issue_weights w ON w.program = ip.program AND w.account_id = ip.account_id
      JOIN issue_identity i ON i.program = ip.program AND i.fingerprint = ip.fingerprint
      WHERE i.${UNCONFIRMABLE_ISSUE} AND w.win IN ('1d', '7d', '30d') AND ${windowCount("ip", "w.win")} > 0;
    CREATE OR REPLACE TEMP TABLE issue_payers_weighted AS
      SELECT ip.program, ip.fingerprint, ip.payer, g.win, ip.last_at, ip.last_sig_at, ip.last_sig,
        ${windowCount("ip", "g.win")} * coalesce(w.w, 1) AS n
      FROM issue_payers ip JOIN issue_groups_weighted g ON g.program = ip.program AND g.fingerprint = ip.fingerprint
      LEFT JOIN issue_weights w ON w.program = ip.program AND w.win = g.win AND w.account_id = ip.account_id;
    CREATE OR REPLACE TEMP TABLE issue_segments_weighted AS
      SELECT p.program, '*' AS scope, p.win, p.segment, p.fingerprint, round(sum(p.n))::BIGINT AS count,
        count(*) FILTER (WHERE p.n > 0) AS wallets, max(p.last_at) AS last_in_window,
        CASE WHEN max(p.last_sig_at) >= any_value(d.since) THEN arg_max(p.last_sig, p.last_sig_at) END AS sample_sig
      FROM (
        SELECT program, fingerprint, payer, win, coalesce(any_value(s.segment), 'human') AS segment, sum(n) AS n,
          max(last_at) FILTER (WHERE n > 0) AS last_at, max(last_sig_at) FILTER (WHERE n > 0) AS last_sig_at,
          arg_max(last_sig, last_sig_at) FILTER (WHERE n > 0) AS last_sig
        FROM issue_payers_weighted LEFT JOIN payer_scores s USING (payer)
        GROUP BY program, fingerprint, payer, win
      ) p JOIN ${windows} d USING (win)
      GROUP BY p.program, p.win, p.segment, p.fingerprint;
    DELETE FROM issue_segments WHERE scope = '*' AND (program, fingerprint, win) IN (SELECT program, fingerprint, win FROM issue_groups_weighted);
    INSERT INTO issue_segments BY NAME SELECT * FROM issue_segments_weighted WHERE count > 0;
    DROP TABLE issue_groups_weighted; DROP TABLE issue_payers_weighted; DROP TABLE issue_segments_weighted`;
}

/**
 * The serving version's issue tables (the shapes the query layer reads): `issues` per program ×
 * scope × window × payer segment × issue (from issue_windows, issue-windows.ts), `issue_totals`
 * across segments, `issue_lifetimes`; the public rows of unconfirmable issues weighted by the
 * temp table `issue_weights` (program, win, account_id, w: the accounts whose weight is below 1).
 * `issue_window_bounds` (program, scope, win, fingerprint, first_in_window) comes from the
 * issues rollup merged over each window (windows.ts).
 */
export function issueServingTablesSql(target: string): string {
  return `
    ${issueSegmentsSql(`${target}.windows`)};
    ${weightPublicIssuesSql(`${target}.windows`)};
    CREATE TABLE ${target}.issues AS
    SELECT g.program, g.scope, g.win, g.segment, g.fingerprint, i.outcome, i.failing_program, i.instruction, i.err_code, i.err_name, i.drop_class,
      g.count, g.wallets, coalesce(b.first_in_window, g.last_in_window) AS first_in_window, g.last_in_window, g.sample_sig,
      sum(g.count) OVER (PARTITION BY g.program, g.scope, g.win, g.segment)::BIGINT AS segment_total
    FROM issue_segments g JOIN issue_identity i USING (program, fingerprint)
    LEFT JOIN issue_window_bounds b USING (program, scope, win, fingerprint);
    CREATE TABLE ${target}.issue_totals AS
    SELECT program, scope, win, fingerprint, sum(count)::BIGINT AS count, coalesce(sum(count) FILTER (WHERE segment = 'bot'), 0)::BIGINT AS bot_count,
      sum(wallets)::BIGINT AS wallets
    FROM issue_segments GROUP BY ALL;
    CREATE TABLE ${target}.issue_lifetimes AS
    SELECT program, account_id AS scope, fingerprint, first_seen, last_seen FROM issue_lifetimes
    UNION ALL
    SELECT l.program, '*', l.fingerprint, min(l.first_seen), max(l.last_seen) FROM issue_lifetimes l
    WHERE NOT ${countsNothing("l", "'all'")}
    GROUP BY l.program, l.fingerprint;
    DROP TABLE issue_segments`;
}
