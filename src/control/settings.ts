// Server-side secrets kept in the control database: created on first use, stable across restarts
// and shared by every process on the same data directory (e.g. the secret that signs cursors); and
// the settings the deployment's scheduler runs with.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ControlDb } from "./types";

export function serverSecret(db: ControlDb, name: string): string {
  db.query("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)").run(
    `secret:${name}`,
    randomBytes(32).toString("hex"),
  );
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(`secret:${name}`)!.value;
}

/**
 * The job intervals the deployment's scheduler runs with (ms by job name), as the process running it recorded them
 * when it started, so a process that runs no scheduler (`bun run mcp`, a read node) reports the deployment's settings
 * rather than its own environment's.
 */
export type RecordedSchedule = { intervalsMs: Record<string, number>; at: number; host: string; pid: number };

const SCHEDULE_KEY = "scheduler:intervals";

export function recordSchedule(db: ControlDb, intervalsMs: Record<string, number>, at: number): void {
  const value: RecordedSchedule = { intervalsMs, at, host: hostname(), pid: process.pid };
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    SCHEDULE_KEY,
    JSON.stringify(value),
  );
}

/** The latest scheduler's recorded intervals; null when no scheduler has run on this control database. */
export function recordedSchedule(db: ControlDb): RecordedSchedule | null {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(SCHEDULE_KEY);
  return row ? (JSON.parse(row.value) as RecordedSchedule) : null;
}
