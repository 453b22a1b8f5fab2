// Top-issues' figures per payer segment, kept up to date by deltas (docs/serving.md#the-state):
// `issue_windows` holds, per program, scope (an account, or '*' counting a payer once across
// accounts), issue, payer segment and window, the failures, the distinct wallets, the newest failure
// and the newest signature. They are sums over the issue's payers (issue_payers, issues.ts), so a
// refresh adds what its touched payers' rows and moved payers changed — each such payer's
// contribution before (its row and segment before the refresh) out, after in — instead of
// aggregating every payer of 30 days again. Newest failures only grow while a payer stays in a
// group (one that left a window is older than every payer still in it); a payer that changed segment
// may have held its old group's newest, so the groups it left are aggregated again.

import type { StateDb } from "./state";

/** The key of an issue_payers row (issues.ts merges by it too). */
export const ISSUE_PAYER_KEYS = ["program", "account_id", "fingerprint", "payer"];
const KEYS = ISSUE_PAYER_KEYS;
const GROUP = ["program", "scope", "fingerprint", "segment", "win"];

/** `a.k = b.k AND …` over `keys` (by default an issue_payers row's key). */
export const keysMatch = (a: string, b: string, keys = KEYS) => keys.map((k) => `${a}.${k} = ${b}.${k}`).join(" AND ");

/**
 * Before issue_payers takes `delta` (rows keyed by KEYS): records the keys and, the first time in a
 * refresh, their rows (`matched`: issue_payers' rows of the delta's keys, read once by the caller).
 */
export function logIssuePayersSql(delta: string, matched: string): string {
  return `
    INSERT INTO issue_payers_before SELECT m.* FROM ${matched} m ANTI JOIN issue_payers_touched t ON ${keysMatch("m", "t")};
    INSERT INTO issue_payers_touched SELECT DISTINCT ${KEYS.map((k) => `d.${k}`).join(", ")} FROM ${delta} d ANTI JOIN issue_payers_touched t ON ${keysMatch("d", "t")}`;
}

/**
 * Payer rows (columns of issue_payers, plus `sign` and `segment`) per scope: each account's own,
 * and '*' summed over accounts per (program, issue, payer, sign, segment).
 */
function scopedSql(rows: string): string {
  return `(SELECT sign, program, account_id AS scope, fingerprint, payer, segment, c1d, c7d, c30d, last_at, last_sig_at, last_sig FROM ${rows}
    UNION ALL
    SELECT sign, program, '*', fingerprint, payer, segment, sum(c1d), sum(c7d), sum(c30d), max(last_at), max(last_sig_at), arg_max(last_sig, last_sig_at)
    FROM ${rows} GROUP BY sign, program, fingerprint, payer, segment)`;
}

/**
 * Signed contributions of scoped payer rows to each group (a payer counts as a wallet of a window when it failed in
 * it).
 */
function contributionsSql(scoped: string): string {
  const c = "CASE w.win WHEN '1d' THEN r.c1d WHEN '7d' THEN r.c7d ELSE r.c30d END";
  return `SELECT r.program, r.scope, r.fingerprint, r.segment, w.win, sum(r.sign * ${c})::BIGINT AS count, sum(r.sign * (${c} > 0)::INT)::BIGINT AS wallets,
      max(r.last_at) FILTER (WHERE r.sign > 0 AND ${c} > 0) AS last_at, max(r.last_sig_at) FILTER (WHERE r.sign > 0 AND ${c} > 0) AS last_sig_at,
      arg_max(r.last_sig, r.last_sig_at) FILTER (WHERE r.sign > 0 AND ${c} > 0) AS last_sig
    FROM ${scoped} r CROSS JOIN (VALUES ('1d'), ('7d'), ('30d')) w(win)
    WHERE ${c} <> 0
    GROUP BY ${GROUP.map((k) => (k === "win" ? "w.win" : `r.${k}`)).join(", ")}`;
}

/**
 * Current payer rows with their current segment (payers never scored count as human), restricted by `where` on
 * issue_payers `ip`.
 */
const currentRows = (where: string) =>
  `(SELECT 1 AS sign, ip.*, coalesce(s.segment, 'human') AS segment FROM issue_payers ip LEFT JOIN payer_scores s USING (payer) WHERE ${where})`;

/** Every group from scratch (a rebuild), or only `groups` (program, fingerprint, segment) again. */
function aggregateSql(groups: string | null): string {
  const where =
    groups === null ? "true" : `(ip.program, ip.fingerprint) IN (SELECT DISTINCT program, fingerprint FROM ${groups})`;
  const keep =
    groups === null
      ? ""
      : `WHERE (program, fingerprint, segment) IN (SELECT program, fingerprint, segment FROM ${groups})`;
  return `SELECT * FROM (${contributionsSql(scopedSql(currentRows(where)))}) ${keep}`;
}

/** issue_windows aggregated from every payer row (a rebuild; the state's upgrade to them). */
export const aggregateIssueWindowsSql = () =>
  `DELETE FROM issue_windows; INSERT INTO issue_windows BY NAME ${aggregateSql(null)}`;

/**
 * Brings issue_windows up to date after a refresh's changes to issue_payers and payer_scores;
 * `segmentsBefore` (payer, segment) holds the segments the scored payers had before. `everything`:
 * aggregate every group (a rebuild).
 */
export async function refreshIssueWindows(state: StateDb, segmentsBefore: string, everything: boolean): Promise<void> {
  if (everything) {
    await state.run(`${aggregateIssueWindowsSql()}; DELETE FROM issue_payers_touched; DELETE FROM issue_payers_before`);
    return;
  }
  const segmentNow = "coalesce(s.segment, 'human')";
  await state.run(`
    -- Payers whose segment changed, and each touched or moved payer's segment before the refresh.
    CREATE OR REPLACE TEMP TABLE payers_moved AS
      SELECT b.payer, coalesce(b.segment, 'human') AS before, ${segmentNow} AS after FROM ${segmentsBefore} b LEFT JOIN payer_scores s USING (payer)
      WHERE coalesce(b.segment, 'human') <> ${segmentNow};
    -- Keys whose contribution may have changed: touched ones, and every key of a moved payer.
    CREATE OR REPLACE TEMP TABLE window_keys AS
      SELECT * FROM issue_payers_touched
      UNION SELECT ${KEYS.map((k) => `ip.${k}`).join(", ")} FROM issue_payers ip SEMI JOIN payers_moved m USING (payer);
    CREATE OR REPLACE TEMP TABLE window_triples AS SELECT DISTINCT program, fingerprint, payer FROM window_keys;
    -- Every account row of those (program, issue, payer) triples, before (−) and after (+) the refresh.
    CREATE OR REPLACE TEMP TABLE window_rows AS
      WITH now AS (SELECT ip.* FROM issue_payers ip SEMI JOIN window_triples t ON ${keysMatch("ip", "t", ["program", "fingerprint", "payer"])}),
      was AS (
        SELECT * FROM now n ANTI JOIN issue_payers_touched t ON ${keysMatch("n", "t")}
        UNION ALL SELECT * FROM issue_payers_before
      )
      SELECT 1 AS sign, n.*, ${segmentNow} AS segment FROM now n LEFT JOIN payer_scores s USING (payer)
      UNION ALL
      SELECT -1, w.*, coalesce(m.before, ${segmentNow}) FROM was w LEFT JOIN payers_moved m USING (payer) LEFT JOIN payer_scores s USING (payer);
    CREATE OR REPLACE TEMP TABLE issue_windows_delta AS ${contributionsSql(scopedSql("window_rows"))};
    CREATE OR REPLACE TEMP TABLE issue_windows_merged AS
      SELECT ${GROUP.join(", ")}, sum(count)::BIGINT AS count, sum(wallets)::BIGINT AS wallets, max(last_at) AS last_at, max(last_sig_at) AS last_sig_at,
        arg_max(last_sig, last_sig_at) AS last_sig
      FROM (SELECT g.* FROM issue_windows g SEMI JOIN issue_windows_delta d ON ${keysMatch("g", "d", GROUP)} UNION ALL BY NAME SELECT * FROM issue_windows_delta)
      GROUP BY ${GROUP.join(", ")};
    DELETE FROM issue_windows USING issue_windows_delta d WHERE ${keysMatch("issue_windows", "d", GROUP)};
    INSERT INTO issue_windows BY NAME SELECT * FROM issue_windows_merged WHERE wallets > 0;
    -- The groups moved payers left: their newest failure and signature may have been a moved payer's.
    CREATE OR REPLACE TEMP TABLE window_groups_left AS
      SELECT DISTINCT k.program, k.fingerprint, m.before AS segment FROM window_keys k JOIN payers_moved m USING (payer);
    DELETE FROM issue_windows WHERE (program, fingerprint, segment) IN (SELECT program, fingerprint, segment FROM window_groups_left);
    INSERT INTO issue_windows BY NAME ${aggregateSql("window_groups_left")};
    DELETE FROM issue_payers_touched; DELETE FROM issue_payers_before;
    DROP TABLE payers_moved; DROP TABLE window_keys; DROP TABLE window_triples; DROP TABLE window_rows; DROP TABLE issue_windows_delta;
    DROP TABLE issue_windows_merged; DROP TABLE window_groups_left`);
}

/**
 * The serving version's per-segment issue rows (issues.ts's `issue_segments`): issue_windows with the window's sample
 * signature.
 */
export function issueSegmentsSql(windows: string): string {
  return `CREATE OR REPLACE TEMP TABLE issue_segments AS
    SELECT g.program, g.scope, g.win, g.segment, g.fingerprint, g.count, g.wallets, g.last_at AS last_in_window,
      CASE WHEN g.last_sig_at >= w.since THEN g.last_sig END AS sample_sig
    FROM issue_windows g JOIN ${windows} w USING (win) WHERE g.count > 0`;
}
