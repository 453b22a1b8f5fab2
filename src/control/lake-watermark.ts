// When the tables job last listed the lake and took in everything it listed (docs/serving.md): a
// part published before then is taken in. Compaction leaves newer parts alone, so it never merges a
// part the tables job has not read into one it has (which the job would have to read again).

import type { ControlDb } from "./types";

const KEY = "tables:taken-before";

export function recordLakeTakenBefore(db: ControlDb, at: number): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    KEY,
    String(at),
  );
}

/** null: the tables job has not recorded one. */
export function lakeTakenBefore(db: ControlDb): number | null {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(KEY);
  return row ? Number(row.value) : null;
}
