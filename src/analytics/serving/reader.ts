// Read side of the serving tables, one per process and data directory: a long-lived READ_ONLY
// DuckDB instance on the current serving file with a small connection pool and prepared
// statements. Every query first checks the pointer (at most every POINTER_CHECK_MS); when the
// tables job has switched it, new queries go to the new file and the old instance is closed once
// its in-flight queries finish. Answers are memoised per serving version (the data cannot change
// within a version), so a hot question costs a map lookup.
//
// Opening a version also loads what makes requests skip DuckDB entirely: the known programs (the
// 404 decision), the precomputed public answers (serving/precomputed-answers.ts) and the wallet-page
// store the version reads (serving/wallet-store.ts).

import { join } from "node:path";
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from "@duckdb/node-api";
import type { Component, Context, OwnedPart } from "../../context";
import { plainRow } from "../../lake/duckdb";
import { TxrayError } from "../../shared/errors";
import { LruMap } from "../../shared/lru-map";
import { sqlFile } from "../sql";
import type { WindowName } from "../windows";
import { answersFile, readPointer, type ServingPointer } from "./pointer";
import { PrecomputedAnswers, type PrecomputedRoute } from "./precomputed-answers";
import { shareAnswer } from "./shared-answer-text";
import { WalletStoreReader } from "./wallet-store";

const POINTER_CHECK_MS = 250;
const POOL_SIZE = 4;
const ANSWER_CACHE_ENTRIES = 5000;

export type SqlParam = string | number | null;

/** One open serving version. */
export class ServingTables {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private readonly statements = new Map<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();
  private readonly answers = new LruMap<string, Promise<unknown>>(ANSWER_CACHE_ENTRIES);
  private inFlight = 0;
  private retired = false;
  private closed = false;
  private programs = new Set<string>();
  private answersByRoute = PrecomputedAnswers.none();
  private wallets: WalletStoreReader | null = null;

  private constructor(
    readonly pointer: ServingPointer,
    private readonly instance: DuckDBInstance,
    connections: DuckDBConnection[],
  ) {
    this.idle.push(...connections);
    for (const connection of connections) this.statements.set(connection, new Map());
  }

  static async open(
    tablesDir: string,
    pointer: ServingPointer,
    options: Record<string, string> = {},
  ): Promise<ServingTables> {
    const instance = await DuckDBInstance.create(join(tablesDir, pointer.file), {
      ...options,
      access_mode: "READ_ONLY",
    });
    const connections: DuckDBConnection[] = [];
    for (let i = 0; i < POOL_SIZE; i++) connections.push(await instance.connect());
    const tables = new ServingTables(pointer, instance, connections);
    try {
      await tables.load(tablesDir);
    } catch (error) {
      tables.retire();
      throw error;
    }
    return tables;
  }

  private async load(tablesDir: string): Promise<void> {
    const known = await this.all<{ program: string }>(sqlFile("known_programs"));
    this.programs = new Set(known.map((row) => row.program));
    this.answersByRoute = await PrecomputedAnswers.read(answersFile(tablesDir, this.version));
    this.wallets = WalletStoreReader.open(tablesDir, this.version);
  }

  /** The wallet-page store this version reads; null for a version built before it (pages then read the lake). */
  get walletStore(): WalletStoreReader | null {
    return this.wallets;
  }

  /** Whether txray has any data for the program (attempts in retention or a deploy). */
  knowsProgram(program: string): boolean {
    return this.programs.has(program);
  }

  /** The tables job's public answer (null: a precomputed 404); undefined when not precomputed. */
  precomputed<T>(route: PrecomputedRoute, program: string, window: WindowName): T | null | undefined {
    return this.answersByRoute.get<T>(route, program, window);
  }

  get version(): number {
    return this.pointer.version;
  }

  /** The build's clock: windows end here. */
  get clock(): number {
    return this.pointer.clock;
  }

  /** Rows of a parameterised query ($1, $2, ...); integers bind as BIGINT, counts come back as numbers. */
  async all<T = Record<string, unknown>>(sql: string, params: SqlParam[] = []): Promise<T[]> {
    const connection = await this.acquire();
    try {
      const byText = this.statements.get(connection)!;
      let statement = byText.get(sql);
      if (!statement) {
        statement = await connection.prepare(sql);
        byText.set(sql, statement);
      }
      statement.bind(params.map(toDuckValue));
      const reader = await statement.runAndReadAll();
      return reader.getRowObjectsJS().map((row) => plainRow(row) as T);
    } finally {
      this.release(connection);
    }
  }

  /** Whether the answer to `key` is cached in this version (asking it costs a map lookup, not a query). */
  hasAnswer(key: string): boolean {
    return this.answers.has(key);
  }

  /**
   * Memoises an answer for this version (bounded; least recently used goes first); the answer is shared, never to be
   * mutated.
   */
  cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.answers.get(key);
    if (hit) return hit as Promise<T>;
    // Cached answers are shared by every request asking the same question (serving/shared-answer-text.ts).
    // The version stays open until the answer is made: a question of several queries must not
    // lose its version between two of them when the tables job switches (retire) meanwhile.
    this.inFlight++;
    const answer = Promise.resolve()
      .then(compute)
      .then((value) => shareAnswer(value))
      .finally(() => {
        this.inFlight--;
        this.closeIfDone();
      });
    this.answers.set(key, answer);
    answer.catch(() => this.answers.delete(key));
    return answer;
  }

  /** No new queries; closes once the in-flight ones are done. */
  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  private async acquire(): Promise<DuckDBConnection> {
    if (this.closed) throw new TxrayError("unavailable", "serving tables were switched; retry");
    this.inFlight++;
    const connection = this.idle.pop();
    if (connection) return connection;
    return await new Promise<DuckDBConnection>((resolve) => this.waiting.push(resolve));
  }

  private release(connection: DuckDBConnection): void {
    this.inFlight--;
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (!this.retired || this.closed || this.inFlight > 0) return;
    this.closed = true;
    for (const [connection, statements] of this.statements) {
      for (const statement of statements.values()) statement.destroySync();
      connection.closeSync();
    }
    this.instance.closeSync();
    this.wallets?.close();
  }
}

/**
 * The serving tables one context reads (its data directory's current version), owned by the
 * context (`ctx.own(SERVING_READER)`) and closed with it, or at a server's stop (servingReaderPart).
 */
export class ServingReader {
  private current: ServingTables | null = null;
  private opening: Promise<ServingTables> | null = null;
  private checkedAt = 0;
  private closed = false;

  constructor(private readonly ctx: Pick<Context, "paths" | "duckOptions">) {}

  /**
   * The current serving tables; 503 `unavailable` before the first build. When the pointer moves,
   * the new version is opened (and its answers loaded) in the background while requests keep being
   * answered from the current one; only the very first open is waited for.
   */
  async tables(): Promise<ServingTables> {
    const now = Date.now();
    if (this.current && (this.opening || now - this.checkedAt < POINTER_CHECK_MS)) return this.current;
    if (this.opening) return this.opening;
    this.checkedAt = now;
    const pointer = readPointer(this.ctx.paths);
    if (!pointer) {
      if (this.current) return this.current;
      throw new TxrayError("unavailable", "serving tables are not built yet (the tables job has not run)", {
        retryAfterSeconds: 30,
      });
    }
    if (this.current && this.current.version === pointer.version) return this.current;
    const opening = this.switchTo(pointer, this.ctx.duckOptions(`reader-${pointer.version}`));
    this.opening = opening;
    return this.current ?? opening;
  }

  /** The latest build's tables, waiting for it to open when the pointer has just moved (freshServingTables). */
  async fresh(): Promise<ServingTables> {
    await this.opening?.catch(() => undefined);
    this.checkedAt = 0; // read the pointer now
    const tables = await this.tables();
    return this.opening ? await this.opening : tables;
  }

  /** Retires the current version (its in-flight queries finish first); a version still opening is retired once open. */
  close(): void {
    this.closed = true;
    this.current?.retire();
    this.current = null;
  }

  /** Opens a version and makes it current (retiring the previous one); keeps the current one on failure. */
  private async switchTo(pointer: ServingPointer, options: Record<string, string>): Promise<ServingTables> {
    try {
      const next = await ServingTables.open(this.ctx.paths.tables, pointer, options);
      if (this.closed) {
        next.retire();
        return next;
      }
      const previous = this.current;
      this.current = next;
      previous?.retire();
      return next;
    } catch (error) {
      // The file may have been replaced again between reading the pointer and opening it.
      if (this.current) return this.current;
      throw error;
    } finally {
      this.opening = null;
    }
  }
}

/** The context's serving reader: made at its first read, closed with the context or by release(). */
export const SERVING_READER: OwnedPart<ServingReader> = {
  name: "serving reader",
  make: (ctx) => new ServingReader(ctx),
  close: (reader) => reader.close(),
};

/** The current serving tables of the context's data directory (ServingReader.tables). */
export async function servingTables(ctx: Context): Promise<ServingTables> {
  return await ctx.own(SERVING_READER).tables();
}

/**
 * The serving tables of the latest build, waiting for it to open when the pointer has just moved
 * (servingTables answers from the previous version meanwhile). For a reader that must see every
 * build, such as the alerts job run right after one (docs/alerts.md); the query functions called
 * next get this version too.
 */
export async function freshServingTables(ctx: Context): Promise<ServingTables> {
  return await ctx.own(SERVING_READER).fresh();
}

/** The serving reader as a running part of a process: it opens on demand, and its stop closes it. */
export function servingReaderComponent(ctx: Context): Component {
  return { name: SERVING_READER.name, start() {}, stop: () => ctx.release(SERVING_READER) };
}

export function toDuckValue(value: SqlParam): DuckDBValue {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value;
}
