// What the resolver keeps in the control database per hour, never per attempt: each
// provider's resolved sends and drops (provider_hours, per hour of send time: diagnose-drop's
// 7-day provider drop rate sums 169 rows) and each issue's attempts (issue_hours: why's count7d and
// firstSeen before the tables know a new issue). A resolve run commits its batch and these counts
// in one transaction, so they never count a batch twice or count one that was discarded.

import { markSegmentsTaken } from "./segments";
import type { ControlDb } from "./types";

export type ProviderHour = { rpcHash: string; hour: number; sends: number; dropped: number };
export type IssueHour = { fingerprint: string; hour: number; attempts: number; firstSeen: number };

/**
 * The commit of a resolve run's batch: the hourly counts grow, the segments the run took in are
 * marked taken at its time, and the batch is marked committed, all or nothing. Returns how many of
 * the batch's issues had no attempt counted before (new issues: the scheduler refreshes the tables at
 * once for them, so the new-issue alert follows within seconds).
 */
export function commitResolutionBatch(
  db: ControlDb,
  batch: string,
  providers: ProviderHour[],
  issues: IssueHour[],
  taken: { segments: string[]; at: number } = { segments: [], at: 0 },
): number {
  const providerHour = db.query(
    `INSERT INTO provider_hours (rpc_hash, hour, sends, dropped) VALUES (?, ?, ?, ?)
     ON CONFLICT (rpc_hash, hour) DO UPDATE SET sends = provider_hours.sends + excluded.sends, dropped = provider_hours.dropped + excluded.dropped`,
  );
  const issueHour = db.query(
    `INSERT INTO issue_hours (fingerprint, hour, attempts, first_seen) VALUES (?, ?, ?, ?)
     ON CONFLICT (fingerprint, hour) DO UPDATE SET attempts = issue_hours.attempts + excluded.attempts, first_seen = CASE WHEN excluded.first_seen < issue_hours.first_seen THEN excluded.first_seen ELSE issue_hours.first_seen END`,
  );
  const known = db.query<{ one: number }, [string]>("SELECT 1 AS one FROM issue_hours WHERE fingerprint = ? LIMIT 1");
  let newIssues = 0;
  db.transaction(() => {
    for (const fingerprint of new Set(issues.map((h) => h.fingerprint))) if (!known.get(fingerprint)) newIssues++;
    for (const h of providers) providerHour.run(h.rpcHash, h.hour, h.sends, h.dropped);
    for (const h of issues) issueHour.run(h.fingerprint, h.hour, h.attempts, h.firstSeen);
    markSegmentsTaken(db, taken.segments, taken.at);
    db.query("UPDATE resolution_batches SET committed = 1 WHERE batch = ?").run(batch);
  }).immediate();
  return newIssues;
}

/** A provider's resolved sends and drops in the hours from `fromHour` (hours since the epoch). */
export function providerSendsSince(
  db: ControlDb,
  rpcHash: string,
  fromHour: number,
): { sends: number; dropped: number } {
  const row = db
    .query<{ sends: number | null; dropped: number | null }, [string, number]>(
      "SELECT sum(sends) AS sends, sum(dropped) AS dropped FROM provider_hours WHERE rpc_hash = ? AND hour >= ?",
    )
    .get(rpcHash, fromHour);
  return { sends: Number(row?.sends ?? 0), dropped: Number(row?.dropped ?? 0) };
}

/** An issue's attempts sent in the hours from `fromHour`, and its first send over every kept hour. */
export function issueCounts(
  db: ControlDb,
  fingerprint: string,
  fromHour: number,
): { count: number; firstSeen: number | null } {
  const row = db
    .query<{ count: number | null; first_seen: number | null }, [number, string]>(
      "SELECT sum(attempts) FILTER (WHERE hour >= ?) AS count, min(first_seen) AS first_seen FROM issue_hours WHERE fingerprint = ?",
    )
    .get(fromHour, fingerprint);
  return {
    count: Number(row?.count ?? 0),
    firstSeen: row?.first_seen === null || row?.first_seen === undefined ? null : Number(row.first_seen),
  };
}

/** The resolver's own trim: hours of send time before `beforeHour`. */
export function forgetResolvedHoursBefore(db: ControlDb, beforeHour: number): number {
  const providers = db.query("DELETE FROM provider_hours WHERE hour < ?").run(beforeHour).changes;
  return providers + db.query("DELETE FROM issue_hours WHERE hour < ?").run(beforeHour).changes;
}
