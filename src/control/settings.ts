// Server-side secrets kept in the control database: created on first use, stable across restarts
// and shared by every process on the same data directory (e.g. the secret that signs cursors).

import { randomBytes } from "node:crypto";
import type { ControlDb } from "./types";

export function serverSecret(db: ControlDb, name: string): string {
  db.query("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(
    `secret:${name}`,
    randomBytes(32).toString("hex"),
  );
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(`secret:${name}`)!.value;
}
