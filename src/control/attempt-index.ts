// The attempt index (attempt_index): every resolved attempt of the last 30 days with the story `why`
// and `diagnose-drop` answer from, the issue counts `why` shows before the next tables build, and the
// sends drop classification compares a drop with. Beside it, provider_hours counts each provider's
// resolved sends and drops per hour of send time (diagnose-drop's 7-day rate sums 169 rows instead of
// scanning the index). A resolve run commits its index rows, hours and batch in one transaction.

import type { Outcome } from "../shared/outcome";
import type { ControlDb } from "./types";
import { BY_SIGNATURE, signatureParams } from "./signatures";

/** One resolved attempt as the index holds it (`story`: JSON of what `why` needs). */
export type IndexEntry = {
  attemptId: string; sig: string | null; accountId: string; program: string; outcome: Outcome; payer: string; rpcHash: string; rpcLabel: string;
  sentAt: number; resolvedAt: number; cuPriceMicroLamports: number | null; fingerprint: string | null; dropClass: string | null; story: string;
};
export type ProviderHour = { rpcHash: string; hour: number; sends: number; dropped: number };

/** An index row as `why` and `diagnose-drop` read it. */
export type IndexedAttempt = {
  attempt_id: string; sig: string | null; account_id: string; program: string; outcome: Outcome; payer: string;
  rpc_hash: string; rpc_label: string; sent_at: number; resolved_at: number; fingerprint: string | null; drop_class: string | null; story: string;
};

/**
 * The commit of a resolve run's batch: its attempts leave the queue and enter the index, the hourly
 * provider counts grow, and the batch is marked committed, all or nothing.
 */
export function commitResolutionBatch(db: ControlDb, batch: string, entries: IndexEntry[], hours: ProviderHour[]): void {
  const removePending = db.query("DELETE FROM pending_attempts WHERE attempt_id = ?");
  const index = db.query(
    `INSERT OR REPLACE INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
       cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const providerHour = db.query(
    `INSERT INTO provider_hours (rpc_hash, hour, sends, dropped) VALUES (?, ?, ?, ?)
     ON CONFLICT (rpc_hash, hour) DO UPDATE SET sends = provider_hours.sends + excluded.sends, dropped = provider_hours.dropped + excluded.dropped`,
  );
  db.transaction(() => {
    for (const e of entries) {
      removePending.run(e.attemptId);
      index.run(e.attemptId, e.sig, e.accountId, e.program, e.outcome, e.payer, e.rpcHash, e.rpcLabel, e.sentAt, e.resolvedAt, e.cuPriceMicroLamports, e.fingerprint, e.dropClass, e.story);
    }
    for (const h of hours) providerHour.run(h.rpcHash, h.hour, h.sends, h.dropped);
    db.query("UPDATE resolution_batches SET committed = 1 WHERE batch = ?").run(batch);
  }).immediate();
}

/** The attempts a signature stands for: one that reached the chain first, then by newest resolution. */
export function indexedAttemptsBySignature(db: ControlDb, sig: string): IndexedAttempt[] {
  return db
    .query<IndexedAttempt, [string, string]>(
      `SELECT * FROM attempt_index WHERE ${BY_SIGNATURE}
       ORDER BY CASE outcome WHEN 'failed_onchain' THEN 0 WHEN 'landed' THEN 1 WHEN 'preflight' THEN 2 ELSE 3 END, resolved_at DESC`,
    )
    .all(...signatureParams(sig));
}

/** An issue's attempts sent since `since` and its first send, over every account. */
export function issueCounts(db: ControlDb, fingerprint: string, since: number): { count: number; firstSeen: number | null } {
  const row = db
    .query<{ count7d: number; first_seen: number | null }, [number, string]>(
      "SELECT count(*) FILTER (WHERE sent_at >= ?) AS count7d, min(sent_at) AS first_seen FROM attempt_index WHERE fingerprint = ?",
    )
    .get(since, fingerprint);
  return { count: Number(row?.count7d ?? 0), firstSeen: row?.first_seen ?? null };
}

/** A provider's resolved sends and drops in the hours from `fromHour` (hours since the epoch). */
export function providerSendsSince(db: ControlDb, rpcHash: string, fromHour: number): { sends: number; dropped: number } {
  const row = db
    .query<{ sends: number | null; dropped: number | null }, [string, number]>("SELECT sum(sends) AS sends, sum(dropped) AS dropped FROM provider_hours WHERE rpc_hash = ? AND hour >= ?")
    .get(rpcHash, fromHour);
  return { sends: Number(row?.sends ?? 0), dropped: Number(row?.dropped ?? 0) };
}

/** What the retry check reads of a payer's sends to a program within [from, to] (not preflight). */
export function payerSends(db: ControlDb, payer: string, program: string, from: number, to: number): { sig: string | null; sent_at: number; outcome: Outcome }[] {
  return db
    .query<{ sig: string | null; sent_at: number; outcome: Outcome }, [string, string, number, number]>(
      "SELECT sig, sent_at, outcome FROM attempt_index WHERE payer = ? AND program = ? AND sent_at >= ? AND sent_at <= ? AND outcome != 'preflight'",
    )
    .all(payer, program, from, to);
}

/** What drop classification reads of an indexed send (no signature or payer). */
export type IndexedSendColumns = { rpc_hash: string; program: string; sent_at: number; outcome: Outcome; cu_price_micro_lamports: number | null };
export type IndexedSend = IndexedSendColumns & { attempt_id: string; resolved_at: number };

const INDEXED_SENDS_RESOLVED =
  "SELECT attempt_id, rpc_hash, program, sent_at, outcome, cu_price_micro_lamports, resolved_at FROM attempt_index WHERE outcome != 'preflight' AND resolved_at";

/** The latest resolution time in the index, and the sends (not preflight) indexed at exactly that time. */
export function latestIndexed(db: ControlDb): { resolvedAt: number | null; attemptIds: string[] } {
  const top = db.query<{ at: number | null }, []>("SELECT max(resolved_at) AS at FROM attempt_index").get()?.at ?? null;
  if (top === null) return { resolvedAt: null, attemptIds: [] };
  const ids = db.query<{ attempt_id: string }, [number]>("SELECT attempt_id FROM attempt_index WHERE resolved_at = ? AND outcome != 'preflight'").all(top);
  return { resolvedAt: top, attemptIds: ids.map((r) => r.attempt_id) };
}

/** The latest send time in the index from `from` on; null when there is none. */
export function latestSentSince(db: ControlDb, from: number): number | null {
  return db.query<{ at: number | null }, [number]>("SELECT max(sent_at) AS at FROM attempt_index WHERE sent_at >= ?").get(from)?.at ?? null;
}

/** Sends (not preflight) indexed after `resolvedAt`, through attempt_index_by_resolved. */
export function sendsIndexedAfter(db: ControlDb, resolvedAt: number): IndexedSend[] {
  return db.query<IndexedSend, [number]>(`${INDEXED_SENDS_RESOLVED} > ?`).all(resolvedAt);
}

/** Sends (not preflight) indexed at exactly `resolvedAt`. */
export function sendsIndexedAt(db: ControlDb, resolvedAt: number): IndexedSend[] {
  return db.query<IndexedSend, [number]>(`${INDEXED_SENDS_RESOLVED} = ?`).all(resolvedAt);
}

export function sendsIndexedAtCount(db: ControlDb, resolvedAt: number): number {
  return Number(db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM attempt_index WHERE resolved_at = ? AND outcome != 'preflight'").get(resolvedAt)?.n ?? 0);
}

/** Indexed sends (not preflight) with sent_at in [from, to), in send-time order, through the index on sent_at. */
export function sendsSentBetween(db: ControlDb, from: number, to: number): IndexedSendColumns[] {
  return db
    .query<IndexedSendColumns, [number, number]>(
      "SELECT rpc_hash, program, sent_at, outcome, cu_price_micro_lamports FROM attempt_index WHERE sent_at >= ? AND sent_at < ? AND outcome != 'preflight' ORDER BY sent_at",
    )
    .all(from, to);
}

/** The resolver's own trim: index entries resolved before `before`, provider hours before `beforeHour`. */
export function trimAttemptIndex(db: ControlDb, before: number, beforeHour: number): void {
  db.query("DELETE FROM attempt_index WHERE resolved_at < ?").run(before);
  db.query("DELETE FROM provider_hours WHERE hour < ?").run(beforeHour);
}

/** Retention: index entries of attempts sent before the cutoff. */
export function forgetIndexedSentBefore(db: ControlDb, cutoffMs: number): number {
  return db.query("DELETE FROM attempt_index WHERE sent_at < ?").run(cutoffMs).changes;
}
