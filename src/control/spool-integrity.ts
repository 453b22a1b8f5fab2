// Running totals of what flush skipped because a spool segment's checksums failed (acknowledged data
// lost to corruption) or its tail was torn (never acknowledged), shown by /v1/status. Added in the
// transaction that commits the segment, so a redone flush never counts twice.

import type { ControlDb } from "./types";

export type IntegrityCounts = {
  corruptFrames: number;
  corruptBytes: number;
  tornBytes: number;
  segmentsRepaired: number;
  lastAt: number | null;
  lastSegment: string | null;
};
export type SegmentFindings = { corruptFrames: number; corruptBytes: number; tornBytes: number };

const INTEGRITY_KEY = "spool:integrity";

export function readSpoolIntegrity(db: ControlDb): IntegrityCounts {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(INTEGRITY_KEY);
  const empty: IntegrityCounts = {
    corruptFrames: 0,
    corruptBytes: 0,
    tornBytes: 0,
    segmentsRepaired: 0,
    lastAt: null,
    lastSegment: null,
  };
  return row ? { ...empty, ...(JSON.parse(row.value) as Partial<IntegrityCounts>) } : empty;
}

/** Adds a segment's findings to the totals; call inside the transaction that commits the segment. */
export function addSpoolIntegrity(db: ControlDb, segment: string, findings: SegmentFindings, now: number): void {
  const current = readSpoolIntegrity(db);
  const next: IntegrityCounts = {
    corruptFrames: current.corruptFrames + findings.corruptFrames,
    corruptBytes: current.corruptBytes + findings.corruptBytes,
    tornBytes: current.tornBytes + findings.tornBytes,
    segmentsRepaired: current.segmentsRepaired + 1,
    lastAt: now,
    lastSegment: segment,
  };
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    INTEGRITY_KEY,
    JSON.stringify(next),
  );
}
