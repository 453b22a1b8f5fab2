// The resolver's batches (resolution_batches): a batch is recorded before its signature index run is
// written and its Parquet parts are renamed into the lake, and marked committed with its hourly
// counts (src/control/resolved-hours.ts). A batch never committed (a crash in between) has its parts
// and its index run removed at the next run, and its attempts, still open, are resolved again.

import type { ControlDb } from "./types";

export function recordResolutionBatch(db: ControlDb, batch: string, partitionDirs: string[], now: number): void {
  db.query("INSERT INTO resolution_batches (batch, created_at, files) VALUES (?, ?, ?)").run(
    batch,
    now,
    JSON.stringify(partitionDirs),
  );
}

export function uncommittedResolutionBatches(db: ControlDb): { batch: string; partitionDirs: string[] }[] {
  return db
    .query<{ batch: string; files: string }, []>("SELECT batch, files FROM resolution_batches WHERE committed = 0")
    .all()
    .map((row) => ({ batch: row.batch, partitionDirs: JSON.parse(row.files) as string[] }));
}

export function forgetResolutionBatch(db: ControlDb, batch: string): void {
  db.query("DELETE FROM resolution_batches WHERE batch = ?").run(batch);
}

export function isResolutionBatchCommitted(db: ControlDb, batch: string): boolean {
  return db.query("SELECT 1 FROM resolution_batches WHERE batch = ? AND committed = 1").get(batch) !== null;
}
