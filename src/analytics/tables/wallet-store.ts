// The tables job's side of the wallet-page store (serving/wallet-store.ts): each batch of changes
// (apply.ts) is written into it as it is applied to the state, a resolved attempt replacing its
// pending row at the refresh's version; days the state forgets go from it too; replaced rows no
// kept version reads are collected after a publish.
//
// The store commits each batch at once, before the state's transaction does: a refresh that fails
// after it leaves the store ahead of the state, and the next refresh, taking in the same parts
// again, writes the same rows again (an attempt's row is keyed by its version: writing it twice is
// writing it once). It is never behind the state. A version reads only the rows of versions up to
// its own, so what a refresh writes is not seen before its version is published.

import { Database, type Statement } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { WALLET_STORE_SCHEMA, walletStoreBaseOf, walletStoreBases, walletStoreFile } from "../serving/wallet-store";
import { WINDOWS } from "../windows";
import type { StateDb } from "./state";
import { DAY_MS } from "./window-bounds";

/** Days the store keeps before the refresh's day: the longest window's, and the day its start falls in. */
const KEPT_DAYS = Math.max(...Object.values(WINDOWS)) / DAY_MS + 1;

type ChangeRow = {
  payer: bigint;
  program: string;
  sent_at: bigint;
  attempt: bigint;
  account_id: string | null;
  received_at: bigint;
  sig: string | null;
  outcome: string | null;
  drop_class: string | null;
  instruction: string | null;
  err_name: string | null;
  rpc_label: string | null;
};

/** The +1 rows of the state's `changes` (apply.ts), keys as the store keeps them, in key order (B-tree locality). */
const CHANGED_ROWS_SQL = `SELECT (md5_number_lower(payer)::HUGEINT - 9223372036854775808)::BIGINT AS payer, program, sent_at,
    (attempt_key::HUGEINT - 9223372036854775808)::BIGINT AS attempt, account_id, received_at, sig, outcome, drop_class,
    instruction, err_name, rpc_label
  FROM changes WHERE sign > 0 ORDER BY payer, program, sent_at, attempt`;

export class WalletStoreWriter {
  /** Milliseconds this refresh spent writing the store (a run's `wallets` step; also part of `intake`'s). */
  ms = 0;
  private readonly names = new Map<string, number>();
  private readonly db: Database;
  private readonly close_: Statement;
  private readonly upsert: Statement;
  private readonly addName: Statement;

  private constructor(
    readonly file: string,
    readonly base: number,
    /** The version this refresh publishes: its rows are valid from it. */
    readonly version: number,
  ) {
    this.db = new Database(file, { create: true, safeIntegers: true });
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536");
    for (const sql of WALLET_STORE_SCHEMA) this.db.exec(sql);
    for (const row of this.db.query<{ id: bigint; name: string }, []>("SELECT id, name FROM names").all())
      this.names.set(row.name, Number(row.id));
    this.close_ = this.db.prepare(
      `UPDATE attempts SET valid_to = $version WHERE payer = $payer AND program = $program AND sent_at = $sent_at
         AND attempt = $attempt AND valid_from < $version AND valid_to IS NULL`,
    );
    this.upsert = this.db.prepare(
      `INSERT OR REPLACE INTO attempts (payer, program, sent_at, attempt, valid_from, valid_to, account, received_at, sig,
         outcome, drop_class, instruction, err_name, rpc_label)
       VALUES ($payer, $program, $sent_at, $attempt, $version, NULL, $account, $received_at, $sig, $outcome, $drop_class,
         $instruction, $err_name, $rpc_label)`,
    );
    this.addName = this.db.prepare("INSERT INTO names (name) VALUES (?)");
  }

  /** Whether the state's wallet store (its meta names it) is there to continue. */
  static async kept(state: StateDb, tablesDir: string): Promise<boolean> {
    const kept = await state.meta("wallet_store");
    return kept !== null && existsSync(walletStoreFile(tablesDir, Number(kept)));
  }

  /**
   * The store a refresh writes: the state's (`wallet_store` in its meta) when it continues, else a
   * new one started at this version (a rebuild; a file a failed rebuild left at it is replaced).
   */
  static async open(state: StateDb, tablesDir: string, version: number): Promise<WalletStoreWriter> {
    const kept = await state.meta("wallet_store");
    if (kept !== null && existsSync(walletStoreFile(tablesDir, Number(kept))))
      return new WalletStoreWriter(walletStoreFile(tablesDir, Number(kept)), Number(kept), version);
    const file = walletStoreFile(tablesDir, version);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
    return new WalletStoreWriter(file, version, version);
  }

  /** Writes the +1 rows of the state's `changes` (arrivals, and resolutions replacing their pending rows). */
  async take(state: StateDb): Promise<void> {
    const started = performance.now();
    const rows = (await state.connection.runAndReadAll(CHANGED_ROWS_SQL)).getRowObjectsJS() as ChangeRow[];
    if (rows.length === 0) return;
    this.db.transaction(() => {
      for (const row of rows) {
        const key = {
          $payer: row.payer,
          $program: this.idOf(row.program),
          $sent_at: row.sent_at,
          $attempt: row.attempt,
          $version: this.version,
        };
        // An attempt a store started at this version holds has no older row to close.
        if (this.base < this.version) this.close_.run(key);
        this.upsert.run({
          ...key,
          $account: this.idOf(row.account_id),
          $received_at: row.received_at,
          $sig: row.sig,
          $outcome: this.idOf(row.outcome),
          $drop_class: this.idOf(row.drop_class),
          $instruction: this.idOf(row.instruction),
          $err_name: this.idOf(row.err_name),
          $rpc_label: this.idOf(row.rpc_label),
        });
      }
    })();
    this.ms += performance.now() - started;
  }

  /**
   * Forgets attempts received before the longest window's reach (a day of margin) and those of days
   * removed from the lake. The first is a scan of the store: done when the refresh's day moves.
   */
  forget(today: number, removedDays: number[]): void {
    const cutoff = today - KEPT_DAYS;
    const forgotten = Number(
      this.db.query<{ value: bigint }, []>("SELECT value FROM store_meta WHERE key = 'forgotten_before'").get()
        ?.value ?? Number.NEGATIVE_INFINITY,
    );
    const ranges = [
      ...(cutoff > forgotten ? [[Number.MIN_SAFE_INTEGER, cutoff * DAY_MS]] : []),
      ...removedDays.map((day) => [day * DAY_MS, (day + 1) * DAY_MS]),
    ];
    if (ranges.length === 0) return;
    this.db.transaction(() => {
      const remove = this.db.prepare("DELETE FROM attempts WHERE received_at >= ? AND received_at < ?");
      for (const [from, to] of ranges) remove.run(from, to);
      this.setMeta("forgotten_before", Math.max(cutoff, forgotten));
    })();
  }

  /**
   * Removes the replaced rows no version from `oldestKept` on reads (closed at or before it); a
   * reader of an older version then answers from the lake.
   */
  collect(oldestKept: number): void {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM attempts WHERE valid_to IS NOT NULL AND valid_to <= ?").run(oldestKept);
      this.setMeta("collected_through", oldestKept);
    })();
  }

  /**
   * Checkpoints the write-ahead log into the store and truncates it, then closes. Inserts land on
   * pages all over the B-tree (rows are keyed by payer), so a refresh rewrites up to the whole store
   * into the log; left to SQLite the log's file keeps its largest size, as big as the store on a
   * small one. A reader mid-page makes the truncation wait for the next refresh.
   */
  close(): void {
    try {
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.db.close();
    }
  }

  private setMeta(key: string, value: number): void {
    this.db.prepare("INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)").run(key, value);
  }

  private idOf(name: string | null): number | null {
    if (name === null) return null;
    let id = this.names.get(name);
    if (id === undefined) {
      id = Number(this.addName.run(name).lastInsertRowid);
      this.names.set(name, id);
    }
    return id;
  }
}

/** Removes the store files no kept version reads (older lineages, and a failed rebuild's after the newest). */
export function removeUnreadWalletStores(tablesDir: string, keptVersions: number[], writing: number): void {
  const read = new Set([writing, ...keptVersions.map((version) => walletStoreBaseOf(tablesDir, version))]);
  for (const base of walletStoreBases(tablesDir)) {
    if (read.has(base)) continue;
    const file = walletStoreFile(tablesDir, base);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
  }
}
