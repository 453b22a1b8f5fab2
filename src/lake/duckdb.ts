// One DuckDB instance per process for lake work (flush, compaction, tables, ad-hoc reads).
// @duckdb/node-api ships its binary inside the npm package (duckdb/duckdb-async download one at
// install time, which fails offline). Results are converted to plain JS: counts become numbers, never
// BigInt (API contract).

import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";

export type Duck = {
  connect(): Promise<DuckDBConnection>;
  /** Runs statements on a fresh connection and closes it. */
  run(sql: string): Promise<void>;
  /** Rows as plain objects, BIGINT/HUGEINT turned into numbers. */
  all<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /**
   * The same values as one array per column, by name: no object per row (for reads of many rows).
   * Values are what JSON holds: strings, numbers (BIGINT as a number), booleans, lists, null.
   */
  columns<T extends Record<string, unknown[]> = Record<string, unknown[]>>(sql: string): Promise<T>;
  close(): void;
};

/**
 * What every DuckDB instance of a txray process is opened with. DuckDB's default memory ceiling is
 * 80% of the machine's RAM per instance, and a process has up to four (jobs, the resolver's thread,
 * the tables build unless it has a process of its own, the serving reader): one tables build over
 * 10M attempts reached 14.7 GB resident. Under the
 * ceiling DuckDB spills joins and sorts to the data directory instead.
 */
export function duckInstanceOptions(memoryLimit: string, tempDirectory: string): Record<string, string> {
  return {
    memory_limit: memoryLimit,
    temp_directory: tempDirectory,
    // DuckDB caches what it reads of files in its own memory: the lake is on local disk, already
    // cached by the kernel, and the cache grew by ~25 MB a minute in the jobs' instance of a soak
    // (the resolver's intake reads new parts every few seconds), resident until the ceiling.
    enable_external_file_cache: "false",
    // Freed memory goes back to the system in the background instead of staying with the threads
    // that allocated it (without, resident memory followed the high-water mark of concurrent jobs).
    allocator_background_threads: "true",
  };
}

/** Bytes in a DuckDB size setting such as `1GB` or `512MiB` (the forms DUCKDB_MEMORY_LIMIT accepts). */
export function byteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.exec(text.trim());
  if (!match) throw new Error(`not a size: ${text}`);
  const unit = match[2].toLowerCase();
  const base = unit.includes("i") ? 1024 : 1000;
  const power = { k: 1, m: 2, g: 3, t: 4 }[unit[0] as "k" | "m" | "g" | "t"];
  return Number(match[1]) * base ** power;
}

export async function openDuck(path = ":memory:", options: Record<string, string> = {}): Promise<Duck> {
  const instance = await DuckDBInstance.create(path, options);
  // Parquet writes are much faster when DuckDB may reorder rows across threads; order never matters in the lake.
  const setup = await instance.connect();
  await setup.run("SET preserve_insertion_order = false");
  setup.closeSync();
  return {
    connect: () => instance.connect(),
    async run(sql) {
      const connection = await instance.connect();
      try {
        await connection.run(sql);
      } finally {
        connection.closeSync();
      }
    },
    async all<T>(sql: string) {
      const connection = await instance.connect();
      try {
        const reader = await connection.runAndReadAll(sql);
        return reader.getRowObjectsJS().map((row) => plainRow(row)) as T[];
      } finally {
        connection.closeSync();
      }
    },
    async columns<T>(sql: string) {
      const connection = await instance.connect();
      try {
        // Each row crosses as one JSON text that DuckDB builds on its own threads, and the rows are
        // parsed a chunk at a time: converting value by value through the bindings took the JavaScript
        // thread ~10 µs per row of 17 columns (the resolver's intake at 20,000 envelopes/s: a tenth
        // of that thread). Rows, not one aggregated text: an aggregate of millions of rows ran out of
        // DuckDB's memory ceiling. Read in one call, not chunk by chunk: each await of a busy
        // event loop took long enough to make the resolver's intake slower in a soak.
        const prepared = await connection.prepare(sql);
        const names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
        prepared.destroySync();
        const quoted = names.map((name) => `"${name.replaceAll('"', '""')}"`).join(", ");
        const result = await connection.run(`SELECT json_array(${quoted})::VARCHAR AS row FROM (${sql})`);
        const out: Record<string, unknown[]> = {};
        for (const name of names) out[name] = [];
        for (let c = 0; c < result.chunkCount; c++) {
          const rows = JSON.parse(`[${(result.getChunk(c).getColumnValues(0) as string[]).join(",")}]`) as unknown[][];
          names.forEach((name, i) => {
            const column = out[name];
            for (const row of rows) column.push(row[i]);
          });
        }
        return out as T;
      } finally {
        connection.closeSync();
      }
    },
    close: () => instance.closeSync(),
  };
}

/**
 * A read of the lake's Parquet parts that survives compaction: compaction swaps a partition
 * directory atomically (lake/exchange.ts), but DuckDB lists a glob's files before it opens them, so
 * a swap in between fails the read with "No such file". The swapped partition holds the same rows,
 * so the read is simply made again (a fresh listing sees the new part).
 */
export async function readLake<T = Record<string, unknown>>(
  duck: Pick<Duck, "all">,
  sql: string,
  attempts = 3,
): Promise<T[]> {
  return await readAgainAfterSwap(() => duck.all<T>(sql), attempts);
}

/** `readLake` for any read (rows, columns). */
export async function readAgainAfterSwap<T>(read: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= attempts || !isPartGone(error)) throw error;
    }
  }
}

/** A read that named a part no longer there (compaction swapped it away, or a glob matched nothing). */
export function isPartGone(error: unknown): boolean {
  return /No such file|Cannot open file|No files found/i.test((error as Error).message);
}

/** BigInts from DuckDB become numbers (counts and Unix ms fit in 2^53). */
export function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = plainValue(value);
  return out;
}

function plainValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (value instanceof Date) return value.getTime();
  if (value && typeof value === "object" && value.constructor === Object)
    return plainRow(value as Record<string, unknown>);
  return value;
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
