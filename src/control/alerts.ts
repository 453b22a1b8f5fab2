// Alerts in the control plane (docs/alerts.md): each account's rules and their destination, the
// state of every subject a rule watches, and the deliveries. An evaluation's state changes and the
// deliveries they cause are committed in one transaction, so a delivery is durable before anything
// is sent and a crash never loses a due alert nor creates it twice. The deliveries stay as the
// delivery log (pruned after ALERT_HISTORY_MS).

import type { ControlDb } from "./types";

export type AlertDestinationType = "webhook" | "slack";
export type AlertRuleRecord = {
  id: string;
  accountId: string;
  program: string;
  rule: string;
  /** JSON text of the rule's parameters (validated by src/alerts). */
  params: string;
  destination: { type: AlertDestinationType; url: string; secret: string | null };
  destinationKey: string;
  createdAt: number;
  deletedAt: number | null;
};

export type AlertSubjectState = {
  ruleId: string;
  subject: string;
  state: "firing" | "resolved";
  changedAt: number;
  /** Since when a firing subject's condition has been false (null: it holds, or the subject is resolved). */
  clearSince: number | null;
  evaluatedAt: number;
  title: string;
  /** JSON text of the latest evidence. */
  data: string;
};

/**
 * pending → sent | failed; summarized (folded into summary_id), held (over the flood cap, waiting), cancelled (rule
 * removed).
 */
export type DeliveryStatus = "pending" | "sent" | "failed" | "summarized" | "held" | "cancelled";
export type DeliveryKind = "alert" | "summary" | "test";

export type NewDelivery = {
  id: string;
  ruleId: string;
  accountId: string;
  destinationKey: string;
  kind: DeliveryKind;
  subject: string | null;
  state: string;
  title: string;
  payload: string;
  status: DeliveryStatus;
  createdAt: number;
  nextAttemptAt: number;
  giveUpAt: number;
  summaryId: string | null;
};
export type DeliveryUpdate = { id: string; status: DeliveryStatus; summaryId: string | null; nextAttemptAt: number };

export type DeliveryRecord = NewDelivery & {
  attempts: number;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  sentAt: number | null;
};
/** A pending delivery with the destination it goes to (from its rule). */
export type DueDelivery = DeliveryRecord & { destination: AlertRuleRecord["destination"] };
export type DeliveryLogEntry = DeliveryRecord & { program: string; rule: string };

type RuleRow = {
  id: string;
  account_id: string;
  program: string;
  rule: string;
  params: string;
  destination_type: AlertDestinationType;
  destination_url: string;
  destination_secret: string | null;
  destination_key: string;
  created_at: number;
  deleted_at: number | null;
};
type DeliveryRow = {
  id: string;
  rule_id: string;
  account_id: string;
  destination_key: string;
  kind: DeliveryKind;
  subject: string | null;
  state: string;
  title: string;
  payload: string;
  status: DeliveryStatus;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  give_up_at: number;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  sent_at: number | null;
  summary_id: string | null;
};

const ruleOf = (row: RuleRow): AlertRuleRecord => ({
  id: row.id,
  accountId: row.account_id,
  program: row.program,
  rule: row.rule,
  params: row.params,
  destination: { type: row.destination_type, url: row.destination_url, secret: row.destination_secret },
  destinationKey: row.destination_key,
  createdAt: row.created_at,
  deletedAt: row.deleted_at,
});

const deliveryOf = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  ruleId: row.rule_id,
  accountId: row.account_id,
  destinationKey: row.destination_key,
  kind: row.kind,
  subject: row.subject,
  state: row.state,
  title: row.title,
  payload: row.payload,
  status: row.status,
  createdAt: row.created_at,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  giveUpAt: row.give_up_at,
  lastAttemptAt: row.last_attempt_at,
  lastStatus: row.last_status,
  lastError: row.last_error,
  sentAt: row.sent_at,
  summaryId: row.summary_id,
});

const RULE_COLUMNS =
  "id, account_id, program, rule, params, destination_type, destination_url, destination_secret, destination_key, created_at, deleted_at";
const DELIVERY_COLUMNS =
  "d.id, d.rule_id, d.account_id, d.destination_key, d.kind, d.subject, d.state, d.title, d.payload, d.status, d.created_at, d.attempts, " +
  "d.next_attempt_at, d.give_up_at, d.last_attempt_at, d.last_status, d.last_error, d.sent_at, d.summary_id";

// --- rules ---

export function insertAlertRule(db: ControlDb, rule: AlertRuleRecord): void {
  db.query(`INSERT INTO alert_rules (${RULE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    rule.id,
    rule.accountId,
    rule.program,
    rule.rule,
    rule.params,
    rule.destination.type,
    rule.destination.url,
    rule.destination.secret,
    rule.destinationKey,
    rule.createdAt,
    rule.deletedAt,
  );
}

/** Rules not removed: one account's (keyset-paginated by id), or every account's when accountId is null. */
export function listAlertRules(
  db: ControlDb,
  accountId: string | null,
  afterId: string | null = null,
  limit = 1_000_000,
): AlertRuleRecord[] {
  const rows =
    accountId === null
      ? db
          .query<RuleRow, [string, number]>(
            `SELECT ${RULE_COLUMNS} FROM alert_rules WHERE deleted_at IS NULL AND id > ? ORDER BY id LIMIT ?`,
          )
          .all(afterId ?? "", limit)
      : db
          .query<RuleRow, [string, string, number]>(
            `SELECT ${RULE_COLUMNS} FROM alert_rules WHERE account_id = ? AND deleted_at IS NULL AND id > ? ORDER BY id LIMIT ?`,
          )
          .all(accountId, afterId ?? "", limit);
  return rows.map(ruleOf);
}

export function countAlertRules(db: ControlDb, accountId: string): number {
  return db
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM alert_rules WHERE account_id = ? AND deleted_at IS NULL")
    .get(accountId)!.n;
}

/** A rule that was not removed, by id (null: unknown or removed). */
export function alertRuleById(db: ControlDb, id: string): AlertRuleRecord | null {
  const row = db
    .query<RuleRow, [string]>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE id = ? AND deleted_at IS NULL`)
    .get(id);
  return row ? ruleOf(row) : null;
}

/**
 * Removes a rule of the account (null: any account) and cancels its deliveries not yet sent;
 * false when there is no such rule.
 */
export function removeAlertRule(db: ControlDb, accountId: string | null, id: string, now: number): boolean {
  return db
    .transaction(() => {
      const removed =
        accountId === null
          ? db.query("UPDATE alert_rules SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL").run(now, id).changes
          : db
              .query("UPDATE alert_rules SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL")
              .run(now, id, accountId).changes;
      if (removed === 0) return false;
      db.query(
        "UPDATE alert_deliveries SET status = 'cancelled', last_error = 'rule removed' WHERE rule_id = ? AND status IN ('pending', 'held')",
      ).run(id);
      db.query("DELETE FROM alert_states WHERE rule_id = ?").run(id);
      return true;
    })
    .immediate();
}

// --- subject states ---

type StateRow = {
  rule_id: string;
  subject: string;
  state: "firing" | "resolved";
  changed_at: number;
  clear_since: number | null;
  evaluated_at: number;
  title: string;
  data: string;
};

export function alertStates(db: ControlDb, ruleId: string): AlertSubjectState[] {
  return db
    .query<StateRow, [string]>(
      "SELECT rule_id, subject, state, changed_at, clear_since, evaluated_at, title, data FROM alert_states WHERE rule_id = ? ORDER BY subject",
    )
    .all(ruleId)
    .map((row) => ({
      ruleId: row.rule_id,
      subject: row.subject,
      state: row.state,
      changedAt: row.changed_at,
      clearSince: row.clear_since,
      evaluatedAt: row.evaluated_at,
      title: row.title,
      data: row.data,
    }));
}

/** Firing subjects per rule id. */
export function firingCounts(db: ControlDb, accountId: string | null): Map<string, number> {
  const rows =
    accountId === null
      ? db
          .query<{ rule_id: string; n: number }, []>(
            "SELECT rule_id, count(*) AS n FROM alert_states WHERE state = 'firing' GROUP BY rule_id",
          )
          .all()
      : db
          .query<{ rule_id: string; n: number }, [string]>(
            "SELECT s.rule_id, count(*) AS n FROM alert_states s JOIN alert_rules r ON r.id = s.rule_id WHERE r.account_id = ? AND s.state = 'firing' GROUP BY s.rule_id",
          )
          .all(accountId);
  return new Map(rows.map((row) => [row.rule_id, row.n]));
}

/**
 * One evaluation's outcome, all or nothing: subject states written, deliveries created, earlier
 * deliveries re-filed (held ones released or folded into a summary).
 */
export function commitAlertChanges(
  db: ControlDb,
  changes: { states: AlertSubjectState[]; deliveries: NewDelivery[]; updates: DeliveryUpdate[] },
): void {
  if (changes.states.length === 0 && changes.deliveries.length === 0 && changes.updates.length === 0) return;
  const upsert = db.query(
    `INSERT INTO alert_states (rule_id, subject, state, changed_at, clear_since, evaluated_at, title, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (rule_id, subject) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at, clear_since = excluded.clear_since,
       evaluated_at = excluded.evaluated_at, title = excluded.title, data = excluded.data`,
  );
  const insert = db.query(
    `INSERT INTO alert_deliveries (id, rule_id, account_id, destination_key, kind, subject, state, title, payload, status, created_at, next_attempt_at, give_up_at, summary_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.query("UPDATE alert_deliveries SET status = ?, summary_id = ?, next_attempt_at = ? WHERE id = ?");
  db.transaction(() => {
    for (const s of changes.states)
      upsert.run(s.ruleId, s.subject, s.state, s.changedAt, s.clearSince, s.evaluatedAt, s.title, s.data);
    for (const d of changes.deliveries) {
      insert.run(
        d.id,
        d.ruleId,
        d.accountId,
        d.destinationKey,
        d.kind,
        d.subject,
        d.state,
        d.title,
        d.payload,
        d.status,
        d.createdAt,
        d.nextAttemptAt,
        d.giveUpAt,
        d.summaryId,
      );
    }
    for (const u of changes.updates) update.run(u.status, u.summaryId, u.nextAttemptAt, u.id);
  }).immediate();
}

// --- deliveries ---

/** Messages (deliveries that are or were meant to be sent) to a destination created since `since`. */
export function messagesSince(db: ControlDb, destinationKey: string, since: number): number {
  return db
    .query<{ n: number }, [string, number]>(
      "SELECT count(*) AS n FROM alert_deliveries WHERE destination_key = ? AND created_at >= ? AND kind != 'test' AND status IN ('pending', 'sent', 'failed')",
    )
    .get(destinationKey, since)!.n;
}

/** Deliveries held back by the flood cap, oldest first. */
export function heldDeliveries(db: ControlDb): DeliveryRecord[] {
  return db
    .query<DeliveryRow, []>(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d WHERE d.status = 'held' ORDER BY d.destination_key, d.created_at, d.id`,
    )
    .all()
    .map(deliveryOf);
}

/** Deliveries not yet sent nor given up, per destination in creation order, with their destination. */
export function pendingDeliveries(db: ControlDb, limit = 10_000): DueDelivery[] {
  return db
    .query<
      DeliveryRow & {
        destination_type: AlertDestinationType;
        destination_url: string;
        destination_secret: string | null;
      },
      [number]
    >(
      `SELECT ${DELIVERY_COLUMNS}, r.destination_type, r.destination_url, r.destination_secret
       FROM alert_deliveries d JOIN alert_rules r ON r.id = d.rule_id
       WHERE d.status = 'pending' ORDER BY d.destination_key, d.created_at, d.id LIMIT ?`,
    )
    .all(limit)
    .map((row) => ({
      ...deliveryOf(row),
      destination: { type: row.destination_type, url: row.destination_url, secret: row.destination_secret },
    }));
}

export function deliveryById(db: ControlDb, id: string): DeliveryRecord | null {
  const row = db
    .query<DeliveryRow, [string]>(`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d WHERE d.id = ?`)
    .get(id);
  return row ? deliveryOf(row) : null;
}

/** Marks an attempt as started (before the request goes out): the log shows it even if the process dies. */
export function recordDeliveryAttempt(db: ControlDb, id: string, now: number): void {
  db.query("UPDATE alert_deliveries SET attempts = attempts + 1, last_attempt_at = ? WHERE id = ?").run(now, id);
}

/** An attempt's outcome: sent, failed for good, or pending again at `nextAttemptAt`. */
export function recordDeliveryOutcome(
  db: ControlDb,
  id: string,
  outcome: {
    status: "sent" | "failed" | "pending";
    httpStatus: number | null;
    error: string | null;
    at: number;
    nextAttemptAt?: number;
  },
): void {
  db.query(
    "UPDATE alert_deliveries SET status = ?, last_status = ?, last_error = ?, sent_at = ?, next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ?",
  ).run(
    outcome.status,
    outcome.httpStatus,
    outcome.error,
    outcome.status === "sent" ? outcome.at : null,
    outcome.nextAttemptAt ?? null,
    id,
  );
}

/** The delivery log, newest first: one account's (null: all), optionally one rule's. */
export function deliveryLog(
  db: ControlDb,
  filter: { accountId: string | null; ruleId: string | null; limit: number },
): DeliveryLogEntry[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.accountId !== null) {
    where.push("d.account_id = ?");
    params.push(filter.accountId);
  }
  if (filter.ruleId !== null) {
    where.push("d.rule_id = ?");
    params.push(filter.ruleId);
  }
  params.push(filter.limit);
  return db
    .query<DeliveryRow & { program: string; rule: string }, (string | number)[]>(
      `SELECT ${DELIVERY_COLUMNS}, r.program, r.rule FROM alert_deliveries d JOIN alert_rules r ON r.id = d.rule_id
       ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY d.created_at DESC, d.id DESC LIMIT ?`,
    )
    .all(...params)
    .map((row) => ({ ...deliveryOf(row), program: row.program, rule: row.rule }));
}

export type AlertCounts = {
  rules: number;
  firing: number;
  pending: number;
  held: number;
  oldestPendingAt: number | null;
  lastSentAt: number | null;
  last24h: { sent: number; failed: number; summarized: number };
};

/** What /v1/status shows of alerts: counts only (never a destination or an error text: the route is public). */
export function alertCounts(db: ControlDb, now: number): AlertCounts {
  const rules = db.query<{ n: number }, []>("SELECT count(*) AS n FROM alert_rules WHERE deleted_at IS NULL").get()!.n;
  const firing = db.query<{ n: number }, []>("SELECT count(*) AS n FROM alert_states WHERE state = 'firing'").get()!.n;
  const queued = db
    .query<{ status: string; n: number; oldest: number | null }, []>(
      "SELECT status, count(*) AS n, min(created_at) AS oldest FROM alert_deliveries WHERE status IN ('pending', 'held') GROUP BY status",
    )
    .all();
  const recent = db
    .query<{ status: string; n: number }, [number]>(
      "SELECT status, count(*) AS n FROM alert_deliveries WHERE created_at >= ? AND status IN ('sent', 'failed', 'summarized') GROUP BY status",
    )
    .all(now - 86_400_000);
  const lastSent = db
    .query<{ at: number | null }, []>("SELECT max(sent_at) AS at FROM alert_deliveries WHERE status = 'sent'")
    .get();
  const count = (rows: { status: string; n: number }[], status: string) =>
    Number(rows.find((row) => row.status === status)?.n ?? 0);
  const pendingRow = queued.find((row) => row.status === "pending");
  return {
    rules: Number(rules),
    firing: Number(firing),
    pending: count(queued, "pending"),
    held: count(queued, "held"),
    oldestPendingAt: pendingRow?.oldest ?? null,
    lastSentAt: lastSent?.at ?? null,
    last24h: { sent: count(recent, "sent"), failed: count(recent, "failed"), summarized: count(recent, "summarized") },
  };
}

/**
 * Forgets what is older than `before`: finished deliveries, resolved subjects, and removed rules
 * with nothing left that refers to them.
 */
export function pruneAlertHistory(db: ControlDb, before: number): void {
  db.transaction(() => {
    db.query("DELETE FROM alert_deliveries WHERE created_at < ? AND status NOT IN ('pending', 'held')").run(before);
    db.query("DELETE FROM alert_states WHERE state = 'resolved' AND changed_at < ?").run(before);
    db.query(
      "DELETE FROM alert_rules WHERE deleted_at IS NOT NULL AND deleted_at < ? AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.rule_id = alert_rules.id)",
    ).run(before);
  }).immediate();
}
