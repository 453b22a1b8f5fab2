// What the resolver and `why` learned from the chain and keep for a while: fetched transactions
// (rpc_transactions, so a signature asked about again costs no fetch) and observed block heights
// (block_heights, from which drop classification interpolates the height at a past send time).

import type { ControlDb } from "./types";

export function cachedTransaction(db: ControlDb, sig: string): unknown | null {
  const row = db.query<{ body: string }, [string]>("SELECT body FROM rpc_transactions WHERE sig = ?").get(sig);
  return row ? JSON.parse(row.body) : null;
}

export function cacheTransaction(db: ControlDb, sig: string, transaction: unknown, now: number): void {
  db.query("INSERT OR REPLACE INTO rpc_transactions (sig, fetched_at, body) VALUES (?, ?, ?)").run(
    sig,
    now,
    JSON.stringify(transaction),
  );
}

export function forgetTransactionsFetchedBefore(db: ControlDb, cutoffMs: number): number {
  return db.query("DELETE FROM rpc_transactions WHERE fetched_at < ?").run(cutoffMs).changes;
}

/**
 * Keeps at most the `kept` most recently fetched transactions (those fetched in the same
 * millisecond as the first one let go go with it), so that a client asking `why` of many
 * signatures bounds the table by rows, not only by age.
 */
export function forgetTransactionsBeyond(db: ControlDb, kept: number): number {
  const boundary = db
    .query<{ fetched_at: number }, [number]>(
      "SELECT fetched_at FROM rpc_transactions ORDER BY fetched_at DESC LIMIT 1 OFFSET ?",
    )
    .get(kept);
  if (!boundary) return 0;
  return db.query("DELETE FROM rpc_transactions WHERE fetched_at <= ?").run(boundary.fetched_at).changes;
}

/** Records the chain's block height at `now` and lets observations older than a day go. */
export function recordBlockHeight(db: ControlDb, now: number, height: number): void {
  db.query("INSERT OR REPLACE INTO block_heights (observed_at, height) VALUES (?, ?)").run(now, height);
  db.query("DELETE FROM block_heights WHERE observed_at < ?").run(now - 24 * 3600_000);
}

/** Every kept observation, oldest first. */
export function blockHeightObservations(db: ControlDb): { observed_at: number; height: number }[] {
  return db
    .query<{ observed_at: number; height: number }, []>(
      "SELECT observed_at, height FROM block_heights ORDER BY observed_at",
    )
    .all();
}

export function forgetBlockHeightsBefore(db: ControlDb, cutoffMs: number): number {
  return db.query("DELETE FROM block_heights WHERE observed_at < ?").run(cutoffMs).changes;
}

/** Each source's record of RPC outcomes (src/chain/rpc/health.ts), kept as JSON under `chain-health:<source>`. */
export function writeChainHealthRecord(db: ControlDb, source: string, record: unknown): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    `chain-health:${source}`,
    JSON.stringify(record),
  );
}

export function readChainHealthRecords(db: ControlDb): [string, unknown][] {
  return db
    .query<{ key: string; value: string }, []>("SELECT key, value FROM meta WHERE key LIKE 'chain-health:%'")
    .all()
    .map((row) => [row.key.slice("chain-health:".length), JSON.parse(row.value)]);
}
