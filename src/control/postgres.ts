// The control plane on PostgreSQL (TXRAY_CONTROL_URL), behind the same synchronous interface as
// bun:sqlite, so every caller (ingest authentication in worker threads, flush, leases, the
// resolver, the CLI) runs unchanged on either backend.
//
// Bun's PostgreSQL client is asynchronous; this class is a synchronous bridge to it: a worker
// thread (postgres-worker.ts) owns one connection, and each statement blocks the calling thread in
// Atomics.wait until the answer is back. The trade-off, chosen so that no call site changes: a
// statement costs a loopback round trip (about 0.1–0.5 ms) during which the calling thread does
// nothing else. Control-plane statements are few and small on every hot path (authentication is
// cached for 2 s, flush records a pass in one transaction), so that is affordable; a workload that
// made thousands of control statements per request would want the asynchronous client instead.
//
// Transactions run on the bridge's one connection and take a global advisory lock first, so write
// transactions are serialised across every node, exactly like SQLite's single writer.

import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { postgresMigration, toPostgres, WRITE_LOCK_KEY } from "./dialect";
import type { BridgeReply, BridgeRequest, BridgeSetup } from "./postgres-worker";
import type { ControlDb, ControlParams, ControlStatement, ControlTransaction } from "./types";

/** How long one statement may take before the caller gets an error (a lost server, a long lock). */
const STATEMENT_TIMEOUT_MS = 60_000;

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export class PostgresControlDb implements ControlDb {
  readonly dialect = "postgres" as const;
  private readonly worker: Worker;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private depth = 0;
  private closed = false;
  private lastRequest = 0;

  constructor(
    url: string,
    private readonly statementTimeoutMs = STATEMENT_TIMEOUT_MS,
  ) {
    this.worker = new Worker(new URL("./postgres-worker.ts", import.meta.url).href);
    (this.worker as Worker & { unref(): void }).unref();
    const { port1, port2 } = new MessageChannel();
    this.port = port1 as unknown as MessagePort;
    const setup: BridgeSetup = {
      setup: { url, flag: this.flag.buffer as SharedArrayBuffer, port: port2 as unknown as MessagePort },
    };
    this.worker.postMessage(setup, [port2 as unknown as Transferable]);
    this.call("SELECT 1", []); // connects now: a wrong URL stops start-up here, with the server's message
  }

  /** Runs PostgreSQL text as is (no dialect rewrite) and returns its rows. */
  call(text: string, params: unknown[]): { rows: Record<string, unknown>[]; changes: number } {
    if (this.closed) throw new ControlPlaneError("the control database is closed", null);
    const id = (this.lastRequest = (this.lastRequest % 0x7fffffff) + 1);
    const request: BridgeRequest = {
      id,
      text,
      params: params.map((value) =>
        typeof value === "boolean" ? (value ? 1 : 0) : value === undefined ? null : value,
      ),
    };
    this.worker.postMessage(request);
    const reply = this.awaitReply(id);
    if (!reply.ok) throw new ControlPlaneError(`control database: ${reply.message}`, reply.code);
    return reply;
  }

  /**
   * Blocks until the reply to request `id` is on the port. Replies carry their request's id: the
   * reply to a statement that timed out arrives later, and is dropped here instead of being taken
   * for the answer to the next statement (which once shifted every later answer by one). The flag
   * holds the id of the last request answered; the reply may reach the port a moment after it.
   */
  private awaitReply(id: number): BridgeReply {
    const deadline = performance.now() + this.statementTimeoutMs;
    for (;;) {
      const received = receiveMessageOnPort(this.port as unknown as Parameters<typeof receiveMessageOnPort>[0]);
      if (received !== undefined) {
        const reply = received.message as BridgeReply;
        if (reply.id === id) return reply;
        continue; // a late reply to a statement whose caller already gave up
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0)
        throw new ControlPlaneError(
          `the control database (PostgreSQL) did not answer within ${this.statementTimeoutMs / 1000} s`,
          null,
        );
      const answered = Atomics.load(this.flag, 0);
      // Sleep until the worker answers something (the flag changes), or 1 ms once ours is answered and its reply is in
      // flight.
      Atomics.wait(this.flag, 0, answered, answered === id ? 1 : Math.min(remaining, 1000));
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: as bun:sqlite's Database.query, parameters default to any
  query<Row = unknown, Params extends ControlParams = any[]>(sql: string): ControlStatement<Row, Params> {
    const text = toPostgres(sql);
    return {
      get: (...params: Params) => (this.call(text, params).rows[0] as Row | undefined) ?? null,
      all: (...params: Params) => this.call(text, params).rows as Row[],
      run: (...params: Params) => ({ changes: this.call(text, params).changes }),
    };
  }

  exec(sql: string): void {
    this.call(toPostgres(sql), []);
  }

  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): ControlTransaction<Args, Result> {
    const run = (...args: Args): Result => {
      const outermost = this.depth === 0;
      const savepoint = `sp${this.depth}`;
      if (outermost) {
        this.call("BEGIN", []);
        this.call("SELECT pg_advisory_xact_lock($1)", [WRITE_LOCK_KEY]);
      } else this.call(`SAVEPOINT ${savepoint}`, []);
      this.depth++;
      try {
        const result = fn(...args);
        this.depth--;
        this.call(outermost ? "COMMIT" : `RELEASE SAVEPOINT ${savepoint}`, []);
        return result;
      } catch (error) {
        this.depth--;
        try {
          this.call(outermost ? "ROLLBACK" : `ROLLBACK TO SAVEPOINT ${savepoint}`, []);
        } catch {}
        throw error;
      }
    };
    return Object.assign(run, { immediate: run, deferred: run, exclusive: run });
  }

  /** Applies the shared migrations (src/control/db.ts) not yet applied, one node at a time. */
  /** `check` sees the recorded version first (and may refuse it); `applied` hears of each migration run. */
  migrate(
    migrations: string[],
    check: (version: number) => void = () => undefined,
    applied: (version: number, startedAt: number) => void = () => undefined,
  ): void {
    const done: [number, number][] = [];
    this.transaction(() => {
      this.call("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)", []);
      const row = this.call("SELECT version FROM schema_version", []).rows[0] as { version: number } | undefined;
      let version = Number(row?.version ?? 0);
      check(version);
      if (!row) this.call("INSERT INTO schema_version VALUES (0)", []);
      while (version < migrations.length) {
        const startedAt = performance.now();
        this.call(postgresMigration(migrations[version]), []);
        this.call("UPDATE schema_version SET version = $1", [version + 1]);
        version++;
        done.push([version, startedAt]);
      }
    })();
    // Reported once the transaction committed: a rolled-back migration was not applied.
    for (const [version, startedAt] of done) applied(version, startedAt);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.worker.terminate();
  }
}
