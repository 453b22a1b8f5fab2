// Spool segments that flush set aside whole because their rows cannot be read (a batch that passed
// its checksum, or a legacy segment without checksums, that DuckDB cannot parse): one row each, so
// /v1/status counts them and an operator finds the file (docs/lake.md, "Quarantined segments").
// Recorded before the file moves, idempotently: a flush redone after a crash records it once.

import type { ControlDb } from "./types";

export type QuarantinedSegment = {
  segment: string;
  at: number;
  path: string;
  envelopes: number;
  bytes: number;
  reason: string;
};
export type QuarantineSummary = {
  segments: number;
  envelopes: number;
  lastAt: number | null;
  lastSegment: string | null;
};

export function recordQuarantinedSegment(db: ControlDb, entry: QuarantinedSegment): void {
  db.query(
    "INSERT OR IGNORE INTO quarantined_segments (segment, quarantined_at, path, envelopes, bytes, reason) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(entry.segment, entry.at, entry.path, entry.envelopes, entry.bytes, entry.reason);
}

export function quarantineSummary(db: ControlDb): QuarantineSummary {
  const totals = db
    .query<{ n: number; envelopes: number | null }, []>(
      "SELECT count(*) AS n, sum(envelopes) AS envelopes FROM quarantined_segments",
    )
    .get();
  const last = db
    .query<{ segment: string; at: number }, []>(
      "SELECT segment, quarantined_at AS at FROM quarantined_segments ORDER BY quarantined_at DESC, segment DESC LIMIT 1",
    )
    .get();
  return {
    segments: Number(totals?.n ?? 0),
    envelopes: Number(totals?.envelopes ?? 0),
    lastAt: last ? Number(last.at) : null,
    lastSegment: last?.segment ?? null,
  };
}

export function quarantinedSegments(db: ControlDb): QuarantinedSegment[] {
  return db
    .query<{ segment: string; at: number; path: string; envelopes: number; bytes: number; reason: string }, []>(
      "SELECT segment, quarantined_at AS at, path, envelopes, bytes, reason FROM quarantined_segments ORDER BY quarantined_at, segment",
    )
    .all()
    .map((row) => ({ ...row, at: Number(row.at), envelopes: Number(row.envelopes), bytes: Number(row.bytes) }));
}
