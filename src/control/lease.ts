// A short exclusive lease over a named resource, shared by every process that uses the same control
// database (one data directory on SQLite, every node on PostgreSQL). Flush holds the "lake" lease
// while it renames parts in; compaction holds it while it swaps a partition; each job holds
// `job:<name>` while it runs, so two job runners never run the same job at once.
//
// A lease names its holder's host and pid and is valid until `until`. The holder renews it every
// third of its lifetime while the work runs, so a lease of a process that died (or a host that
// vanished) frees itself within one lifetime (LEASE_TTL_MS) even though nobody releases it; on the
// same host a dead pid frees it at once.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { processAlive } from "../shared/process-alive";
import type { ControlDb } from "./types";

const holderId = `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;

/** How long a lease lives without renewal: the longest another node waits for a dead holder's lease. */
export const LEASE_TTL_MS = 30_000;

type LeaseValue = { holder: string; host: string; pid: number; until: number };

/** Runs `work` holding the lease, waiting for it up to waitMs. */
export async function withLease<T>(
  db: ControlDb,
  name: string,
  work: () => Promise<T> | T,
  options: { ttlMs?: number; waitMs?: number } = {},
): Promise<T> {
  const attempt = await whenLeaseFree(db, name, work, { waitMs: options.waitMs ?? 120_000, ttlMs: options.ttlMs });
  if (!attempt.ran) throw new Error(`timed out waiting for the ${name} lease`);
  return attempt.value;
}

/**
 * Runs `work` holding the lease, waiting for it up to waitMs (checking every pollMs); returns
 * { ran: false } when the wait ends first (or `signal` aborts it) instead of failing.
 */
export async function whenLeaseFree<T>(
  db: ControlDb,
  name: string,
  work: () => Promise<T> | T,
  options: { waitMs: number; pollMs?: number; ttlMs?: number; signal?: AbortSignal },
): Promise<{ ran: true; value: T } | { ran: false }> {
  const deadline = Date.now() + options.waitMs;
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  let held: Held | null;
  while ((held = acquire(db, name, ttlMs)) === null) {
    if (Date.now() > deadline || options.signal?.aborted) return { ran: false };
    await Bun.sleep(options.pollMs ?? 5);
  }
  return { ran: true, value: await holding(db, held, work) };
}

/** Runs `work` if the lease is free right now; otherwise returns { ran: false } at once. */
export async function ifLeaseFree<T>(
  db: ControlDb,
  name: string,
  work: () => Promise<T>,
  ttlMs = LEASE_TTL_MS,
): Promise<{ ran: true; value: T } | { ran: false }> {
  const held = acquire(db, name, ttlMs);
  if (held === null) return { ran: false };
  return { ran: true, value: await holding(db, held, work) };
}

type Held = { key: string; value: string; ttlMs: number };

async function holding<T>(db: ControlDb, held: Held, work: () => Promise<T> | T): Promise<T> {
  const renewal = setInterval(
    () => {
      try {
        renew(db, held);
      } catch {} // a failed renewal is retried at the next tick; the lease outlives two of them
    },
    Math.max(10, Math.floor(held.ttlMs / 3)),
  );
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    release(db, held);
  }
}

/** A lease is free when nobody holds it, it expired, or its holder is a gone process on this host. */
function acquire(db: ControlDb, name: string, ttlMs: number): Held | null {
  const key = `lease:${name}`;
  const now = Date.now();
  const value = leaseValue(ttlMs, now);
  return db
    .transaction(() => {
      const current = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
      if (current) {
        const lease = JSON.parse(current.value) as Partial<LeaseValue>;
        if ((lease.until ?? 0) >= now && holderAlive(lease)) return null;
      }
      db.query(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(key, value);
      return { key, value, ttlMs };
    })
    .immediate();
}

/** Extends the lease if this holder still has it (compare-and-set on the exact value last written). */
function renew(db: ControlDb, held: Held) {
  const value = leaseValue(held.ttlMs, Date.now());
  if (db.query("UPDATE meta SET value = ? WHERE key = ? AND value = ?").run(value, held.key, held.value).changes > 0)
    held.value = value;
}

function release(db: ControlDb, held: Held) {
  db.query("DELETE FROM meta WHERE key = ? AND value = ?").run(held.key, held.value);
}

function leaseValue(ttlMs: number, now: number): string {
  const value: LeaseValue = {
    holder: `${holderId}-${randomBytes(4).toString("hex")}`,
    host: hostname(),
    pid: process.pid,
    until: now + ttlMs,
  };
  return JSON.stringify(value);
}

/** On this host a lease dies with its process; another host's holder is trusted until its lease expires. */
function holderAlive(lease: Partial<LeaseValue>): boolean {
  if (lease.host !== undefined && lease.host !== hostname()) return true;
  // No pid recorded: kept alive, as a signal to pid -1 (every process) always succeeded here.
  if (lease.pid === undefined || lease.pid === process.pid) return true;
  return processAlive(lease.pid);
}
