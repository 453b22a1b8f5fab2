// A short exclusive lease over a named resource, shared by every process on the data directory
// through the control database. Flush holds the "lake" lease while it renames parts in; compaction
// holds it while it swaps a partition. Held for milliseconds, so waiting is a short spin.

import { randomBytes } from "node:crypto";
import type { ControlDb } from "./db";

const holderId = `${process.pid}-${randomBytes(4).toString("hex")}`;

/** Runs `work` holding the lease, waiting for it up to waitMs. */
export async function withLease<T>(db: ControlDb, name: string, work: () => Promise<T> | T, options: { ttlMs?: number; waitMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  let holder: string | null;
  while ((holder = acquire(db, name, options.ttlMs ?? 60_000)) === null) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the ${name} lease`);
    await Bun.sleep(5);
  }
  try {
    return await work();
  } finally {
    release(db, name, holder);
  }
}

/** Runs `work` if the lease is free right now; otherwise returns { ran: false } at once. */
export async function ifLeaseFree<T>(db: ControlDb, name: string, work: () => Promise<T>, ttlMs = 30 * 60_000): Promise<{ ran: true; value: T } | { ran: false }> {
  const holder = acquire(db, name, ttlMs);
  if (holder === null) return { ran: false };
  try {
    return { ran: true, value: await work() };
  } finally {
    release(db, name, holder);
  }
}

/** A lease is free when nobody holds it, it expired, or its holder's process is gone. */
function acquire(db: ControlDb, name: string, ttlMs: number): string | null {
  const key = `lease:${name}`;
  const holder = `${holderId}-${randomBytes(4).toString("hex")}`;
  const now = Date.now();
  const value = JSON.stringify({ holder, pid: process.pid, until: now + ttlMs });
  return db.transaction(() => {
    const current = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
    if (current) {
      const lease = JSON.parse(current.value) as { pid: number; until: number };
      if (lease.until >= now && processAlive(lease.pid)) return null;
    }
    db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
    return holder;
  }).immediate();
}

function release(db: ControlDb, name: string, holder: string) {
  db.query("DELETE FROM meta WHERE key = ? AND json_extract(value, '$.holder') = ?").run(`lease:${name}`, holder);
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
