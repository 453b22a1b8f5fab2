// The wallet-page store (docs/serving.md#wallet-pages): a SQLite file (WAL) the tables job keeps
// next to the serving versions, one row per attempt version, keyed so that one payer's attempts on
// one program, newest first, are one index range. The tables job writes it (tables/wallet-store.ts);
// a serving version reads it (queries/wallet-history.ts), so a page is a prepared statement.
//
// Versions: a row is valid from the serving version that wrote it (`valid_from`) until the one that
// replaced it (`valid_to`, null while current). A resolution replaces an attempt's pending row: the
// job closes the old row at the new version and inserts the new one, so a reader of version v sees
// exactly the rows of v (`valid_from <= v < valid_to`) while the job writes v + 1, never a mix. Rows
// closed at or before the oldest version kept on disk are collected (`collected_through`): a reader
// of an older version falls back to the lake. A rebuild (`--full`, a state of another schema) starts
// a new file, `wallets-<version>.sqlite`, read by the versions from that one on; the older file
// goes once no kept version reads it.
//
// Size: keys are integers (the payer's 8-byte key, the attempt key), low-cardinality strings
// (program, account, outcome, drop class, instruction, error, provider) are ids of `names`. A
// signature stays text: as its 64 bytes it saved 24 bytes an attempt but cost ~23 µs of base58
// encoding an item on every page and half of what writing the store cost a refresh (bench/README.md,
// "wallet" and "refresh"). ~156 bytes an attempt on disk.

import { Database } from "bun:sqlite";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LruMap } from "../../shared/lru-map";
import { recordWork } from "../../shared/work-meter";

const STORE_FILE = /^wallets-(\d+)\.sqlite$/;

export const walletStoreFile = (tablesDir: string, base: number) => join(tablesDir, `wallets-${base}.sqlite`);

/** The store files in the tables directory, by the version that started each. */
export function walletStoreBases(tablesDir: string): number[] {
  if (!existsSync(tablesDir)) return [];
  return readdirSync(tablesDir)
    .map((name) => STORE_FILE.exec(name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

/** The store a version reads: the newest started at or before it. */
export function walletStoreBaseOf(tablesDir: string, version: number): number | null {
  return (
    walletStoreBases(tablesDir)
      .filter((base) => base <= version)
      .at(-1) ?? null
  );
}

export const WALLET_STORE_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
  // payer: the payer's key (serving/payer-key.ts) and attempt: DuckDB's hash(attempt_id), both UBIGINT
  // stored minus 2^63 (a signed integer of the same order).
  `CREATE TABLE IF NOT EXISTS attempts (
    payer INTEGER NOT NULL, program INTEGER NOT NULL, sent_at INTEGER NOT NULL, attempt INTEGER NOT NULL,
    valid_from INTEGER NOT NULL, valid_to INTEGER, account INTEGER, received_at INTEGER NOT NULL, sig TEXT,
    outcome INTEGER, drop_class INTEGER, instruction INTEGER, err_name INTEGER, rpc_label INTEGER,
    PRIMARY KEY (payer, program, sent_at, attempt, valid_from)
  ) WITHOUT ROWID`,
  // Few rows: the replaced versions not collected yet.
  "CREATE INDEX IF NOT EXISTS attempts_closed ON attempts (valid_to) WHERE valid_to IS NOT NULL",
];

const SIGNED_OFFSET = 1n << 63n;
/** A UBIGINT key (bigint or decimal text) as the signed integer the store keeps. */
export const storedKey = (key: bigint | string): bigint => BigInt(key) - SIGNED_OFFSET;
/** The decimal UBIGINT of a stored key (the cursor's attempt key). */
export const keyOfStored = (stored: bigint): string => (stored + SIGNED_OFFSET).toString();

export type WalletStoreItem = {
  sig: string | null;
  sentAt: number;
  receivedAt: number;
  outcome: string | null;
  dropClass: string | null;
  instruction: string | null;
  errName: string | null;
  rpcLabel: string;
  /** The attempt key (decimal UBIGINT), the cursor's tie-break. */
  attemptKey: string;
};
export type WalletStoreCounts = { landed: number; failedOnchain: number; dropped: number; preflight: number };
export type WalletStorePage = { items: WalletStoreItem[]; counts: WalletStoreCounts };

export type WalletStoreQuery = {
  /** The payer's key (serving/payer-key.ts). */
  payer: bigint;
  program: string;
  accountId: string | null;
  since: number;
  until: number;
  /** Rows after this position (sent_at, attempt key), newest first; null from the top. */
  after: { sentAt: number; attemptKey: string } | null;
  /** Rows to return (a page asks one more than it shows, to know whether there is a next). */
  rows: number;
};

type AttemptRow = {
  sent_at: bigint;
  attempt: bigint;
  received_at: bigint;
  sig: string | null;
  outcome: bigint | null;
  drop_class: bigint | null;
  instruction: bigint | null;
  err_name: bigint | null;
  rpc_label: bigint | null;
};

type Params = Record<string, string | bigint | number | null>;

const VISIBLE = "valid_from <= $version AND (valid_to IS NULL OR valid_to > $version)";
const IN_WINDOW = "received_at BETWEEN $since AND $until AND ($account IS NULL OR account = $account)";

/** Windows whose counts a reader keeps (a few hundred bytes each). */
const WINDOW_COUNTS_KEPT = 2_000;

/** A serving version's reader of the store: read-only, prepared statements, names cached. */
export class WalletStoreReader {
  private readonly names = new Map<number, string>();
  private readonly ids = new Map<string, number>();
  /** Counts of windows that fill more than a page, by payer, program, window and account (least recently used go first). */
  private readonly windowCounts = new LruMap<string, WalletStoreCounts>(WINDOW_COUNTS_KEPT);
  private highestName = 0;
  private readonly db: Database;
  private readonly firstPage;
  private readonly nextPage;
  private readonly counts;
  private readonly readPage: (query: WalletStoreQuery) => WalletStorePage | null;
  private readonly collected;
  private readonly namesSince;

  private constructor(
    file: string,
    readonly version: number,
    /** Milliseconds for the page's work (recordWork): performance.now, a fake in tests. */
    private readonly now: () => number,
  ) {
    this.db = new Database(file, { readonly: true, safeIntegers: true });
    const columns = "sent_at, attempt, received_at, sig, outcome, drop_class, instruction, err_name, rpc_label";
    const where = `payer = $payer AND program = $program AND ${VISIBLE} AND ${IN_WINDOW}`;
    const order = "ORDER BY sent_at DESC, attempt DESC LIMIT $rows";
    this.firstPage = this.db.query<AttemptRow, Params>(`SELECT ${columns} FROM attempts WHERE ${where} ${order}`);
    this.nextPage = this.db.query<AttemptRow, Params>(
      `SELECT ${columns} FROM attempts WHERE ${where} AND (sent_at, attempt) < ($sent_at, $attempt) ${order}`,
    );
    this.counts = this.db.query<{ outcome: bigint | null; n: bigint }, Params>(
      `SELECT outcome, count(*) AS n FROM attempts WHERE ${where} GROUP BY outcome`,
    );
    this.readPage = this.db.transaction((query: WalletStoreQuery) => this.read(query));
    this.collected = this.db.query<{ value: bigint }, []>(
      "SELECT value FROM store_meta WHERE key = 'collected_through'",
    );
    this.namesSince = this.db.query<{ id: bigint; name: string }, [number]>("SELECT id, name FROM names WHERE id > ?");
  }

  /** The store of a serving version, or null when it has none (built before the store, or its file is gone). */
  static open(tablesDir: string, version: number, now = () => performance.now()): WalletStoreReader | null {
    const base = walletStoreBaseOf(tablesDir, version);
    if (base === null) return null;
    try {
      return new WalletStoreReader(walletStoreFile(tablesDir, base), version, now);
    } catch {
      return null;
    }
  }

  /**
   * One page and the window's counts as this version has them; null when the store cannot answer it
   * (lake then). Its statements run in one read transaction: one snapshot, and one acquisition of
   * the write-ahead log's read lock instead of one per statement. Its time is recorded as the
   * request's work (shared/work-meter.ts): a bot's page scans its rows and the public limit charges
   * for it.
   */
  page(query: WalletStoreQuery): WalletStorePage | null {
    const started = this.now();
    try {
      return this.readPage(query);
    } finally {
      recordWork(this.now() - started);
    }
  }

  private read(query: WalletStoreQuery): WalletStorePage | null {
    // Collection deletes rows a version older than `collected_through` may see: that one reads the lake.
    if (BigInt(this.version) < (this.collected.get()?.value ?? 0n)) return null;
    const program = this.idOf(query.program);
    const account = query.accountId === null ? null : this.idOf(query.accountId);
    if (program === null || (query.accountId !== null && account === null))
      return { items: [], counts: { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 } };
    const params = {
      $payer: storedKey(query.payer),
      $program: program,
      $version: this.version,
      $since: query.since,
      $until: query.until,
      $account: account,
      $rows: query.rows,
    };
    const rows =
      query.after === null
        ? this.firstPage.all(params)
        : this.nextPage.all({
            ...params,
            $sent_at: query.after.sentAt,
            $attempt: storedKey(query.after.attemptKey),
          });
    // A first page that did not fill holds the whole window: its rows are the counts (most wallets
    // have a few attempts a window, so most pages are one statement). Otherwise the window is
    // counted once per version: the counts depend on neither the cursor nor the page's size, and a
    // bot's take a scan of its rows (tens of milliseconds) that paging through it would repeat.
    let counts: WalletStoreCounts;
    if (query.after === null && rows.length < query.rows)
      counts = this.countsOf(rows.map((row) => ({ outcome: row.outcome, n: 1n })));
    else {
      const key = `${params.$payer} ${program} ${query.since} ${query.until} ${account}`;
      counts = this.windowCounts.get(key) ?? this.countsOf(this.counts.all(params));
      this.windowCounts.set(key, counts);
    }
    return {
      counts,
      items: rows.map((row) => ({
        sig: row.sig,
        sentAt: Number(row.sent_at),
        receivedAt: Number(row.received_at),
        outcome: this.nameOf(row.outcome),
        dropClass: this.nameOf(row.drop_class),
        instruction: this.nameOf(row.instruction),
        errName: this.nameOf(row.err_name),
        rpcLabel: this.nameOf(row.rpc_label) ?? "",
        attemptKey: keyOfStored(row.attempt),
      })),
    };
  }

  close(): void {
    this.db.close();
  }

  private countsOf(counted: { outcome: bigint | null; n: bigint }[]): WalletStoreCounts {
    const counts = { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 };
    for (const row of counted) {
      const outcome = row.outcome === null ? null : this.nameOf(row.outcome);
      const n = Number(row.n);
      if (outcome === "landed") counts.landed += n;
      else if (outcome === "failed_onchain") counts.failedOnchain += n;
      else if (outcome === "dropped") counts.dropped += n;
      else if (outcome === "preflight") counts.preflight += n;
    }
    return counts;
  }

  private idOf(name: string): number | null {
    if (!this.ids.has(name)) this.readNewNames();
    return this.ids.get(name) ?? null;
  }

  private nameOf(id: bigint | null): string | null {
    if (id === null) return null;
    const key = Number(id);
    if (!this.names.has(key)) this.readNewNames();
    const name = this.names.get(key);
    if (name === undefined) throw new Error(`wallet store: name ${key} missing`);
    return name;
  }

  /** Names only grow: reads those added since the highest one known. */
  private readNewNames(): void {
    for (const row of this.namesSince.all(this.highestName)) {
      this.names.set(Number(row.id), row.name);
      this.ids.set(row.name, Number(row.id));
      this.highestName = Math.max(this.highestName, Number(row.id));
    }
  }
}
