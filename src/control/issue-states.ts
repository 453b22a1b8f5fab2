// Each account's triage of its issues (docs/api.md#issue-states): the state an admin key last set
// (unresolved, resolved, resolved in the next release, ignored with an optional end), an assignee,
// and the history of every change with who made it (a key's id and account name, never the key).
// Stored as set; what the state is now (regressed, a release that shipped, an ignore that ran out)
// is derived when read, from this and the serving tables (src/analytics/queries/issue-state.ts).
// A change and its history rows are written in one transaction.

import type { ControlDb } from "./types";

export const STORED_ISSUE_STATES = ["unresolved", "resolved", "resolved_next_release", "ignored"] as const;
export type StoredIssueStateName = (typeof STORED_ISSUE_STATES)[number];

export type StoredIssueState = {
  accountId: string;
  fingerprint: string;
  program: string;
  state: StoredIssueStateName;
  /** Ignored until this many more events arrive (null: no count limit). */
  ignoreUntilEvents: number | null;
  /** Ignored until this time, Unix ms (null: no time limit). */
  ignoreUntilAt: number | null;
  assignee: string | null;
  changedAt: number;
  changedBy: string;
};

export type IssueStateChange = {
  at: number;
  actor: string;
  change: "state" | "assignee";
  from: unknown;
  to: unknown;
};

type StateRow = {
  account_id: string;
  fingerprint: string;
  program: string;
  state: StoredIssueStateName;
  ignore_until_events: number | null;
  ignore_until_at: number | null;
  assignee: string | null;
  changed_at: number;
  changed_by: string;
};

const stateOf = (row: StateRow): StoredIssueState => ({
  accountId: row.account_id,
  fingerprint: row.fingerprint,
  program: row.program,
  state: row.state,
  ignoreUntilEvents: row.ignore_until_events === null ? null : Number(row.ignore_until_events),
  ignoreUntilAt: row.ignore_until_at === null ? null : Number(row.ignore_until_at),
  assignee: row.assignee,
  changedAt: Number(row.changed_at),
  changedBy: row.changed_by,
});

const COLUMNS =
  "account_id, fingerprint, program, state, ignore_until_events, ignore_until_at, assignee, changed_at, changed_by";

/** The stored state of one issue of an account, or null when nobody has changed it (unresolved). */
export function issueStateOf(db: ControlDb, accountId: string, fingerprint: string): StoredIssueState | null {
  const row = db
    .query<StateRow, [string, string]>(`SELECT ${COLUMNS} FROM issue_states WHERE account_id = ? AND fingerprint = ?`)
    .get(accountId, fingerprint);
  return row ? stateOf(row) : null;
}

/** Every stored state of an account's issues of one program. */
export function issueStatesOfProgram(db: ControlDb, accountId: string, program: string): StoredIssueState[] {
  return db
    .query<StateRow, [string, string]>(
      `SELECT ${COLUMNS} FROM issue_states WHERE account_id = ? AND program = ? ORDER BY fingerprint`,
    )
    .all(accountId, program)
    .map(stateOf);
}

export type IssueStateUpdate = {
  state?: { state: StoredIssueStateName; ignoreUntilEvents: number | null; ignoreUntilAt: number | null };
  /** A new assignee; null unassigns. Absent: unchanged. */
  assignee?: string | null;
};

/**
 * Applies an update to one issue's stored state (creating it as unresolved first) and records each
 * field that changed in its history; returns the state as stored now.
 */
export function updateIssueState(
  db: ControlDb,
  key: { accountId: string; fingerprint: string; program: string },
  update: IssueStateUpdate,
  actor: string,
  now: number,
): StoredIssueState {
  return db
    .transaction(() => {
      const before = issueStateOf(db, key.accountId, key.fingerprint);
      const current: StoredIssueState = before ?? {
        ...key,
        state: "unresolved",
        ignoreUntilEvents: null,
        ignoreUntilAt: null,
        assignee: null,
        changedAt: now,
        changedBy: actor,
      };
      const changes: Omit<IssueStateChange, "at" | "actor">[] = [];
      let next = current;
      if (update.state) {
        const from = {
          state: current.state,
          ignoreUntilEvents: current.ignoreUntilEvents,
          ignoreUntilAt: current.ignoreUntilAt,
        };
        // Setting the same state again restarts it (a fresh resolve time, a fresh ignore count).
        next = { ...next, ...update.state, changedAt: now, changedBy: actor };
        changes.push({ change: "state", from, to: update.state });
      }
      if (update.assignee !== undefined && update.assignee !== current.assignee) {
        next = { ...next, assignee: update.assignee };
        changes.push({ change: "assignee", from: current.assignee, to: update.assignee });
      }
      if (changes.length === 0) return current;
      db.query(
        `INSERT INTO issue_states (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, fingerprint) DO UPDATE SET program = excluded.program, state = excluded.state,
           ignore_until_events = excluded.ignore_until_events, ignore_until_at = excluded.ignore_until_at,
           assignee = excluded.assignee, changed_at = excluded.changed_at, changed_by = excluded.changed_by`,
      ).run(
        next.accountId,
        next.fingerprint,
        next.program,
        next.state,
        next.ignoreUntilEvents,
        next.ignoreUntilAt,
        next.assignee,
        next.changedAt,
        next.changedBy,
      );
      const last = db
        .query<{ seq: number | null }, [string, string]>(
          "SELECT max(seq) AS seq FROM issue_state_history WHERE account_id = ? AND fingerprint = ?",
        )
        .get(key.accountId, key.fingerprint);
      let seq = Number(last?.seq ?? 0);
      for (const change of changes) {
        seq += 1;
        db.query(
          "INSERT INTO issue_state_history (account_id, fingerprint, seq, at, actor, change, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
        ).run(
          key.accountId,
          key.fingerprint,
          seq,
          now,
          actor,
          change.change,
          JSON.stringify({ from: change.from, to: change.to }),
        );
      }
      return next;
    })
    .immediate();
}

/** The history of one issue's triage in an account, oldest first (at most `limit` newest changes). */
export function issueStateHistory(
  db: ControlDb,
  accountId: string,
  fingerprint: string,
  limit = 200,
): IssueStateChange[] {
  return db
    .query<{ at: number; actor: string; change: IssueStateChange["change"]; detail: string }, [string, string, number]>(
      `SELECT at, actor, change, detail FROM (
         SELECT seq, at, actor, change, detail FROM issue_state_history WHERE account_id = ? AND fingerprint = ?
         ORDER BY seq DESC LIMIT ?) newest ORDER BY seq`,
    )
    .all(accountId, fingerprint, limit)
    .map((row) => {
      const detail = JSON.parse(row.detail) as { from: unknown; to: unknown };
      return { at: Number(row.at), actor: row.actor, change: row.change, from: detail.from, to: detail.to };
    });
}
