// The control database's interface: the subset of bun:sqlite's Database that both backends (SQLite,
// and PostgreSQL through src/control/postgres.ts) implement. Only src/control/ uses it directly; the
// rest of txray calls the named functions of this folder.

import type { SQLQueryBindings } from "bun:sqlite";

/** Parameters are bound positionally (`?`): text, numbers, null. */
export type ControlParams = SQLQueryBindings[];
export type ControlStatement<Row, Params extends ControlParams> = {
  get(...params: Params): Row | null;
  all(...params: Params): Row[];
  run(...params: Params): { changes: number };
};
export type ControlTransaction<Args extends unknown[], Result> = ((...args: Args) => Result) & {
  immediate(...args: Args): Result;
};

/** What the control plane's callers use: the subset of bun:sqlite's Database that both backends implement. */
export interface ControlDb {
  // biome-ignore lint/suspicious/noExplicitAny: as bun:sqlite's Database.query, parameters default to any
  query<Row = unknown, Params extends ControlParams = any[]>(sql: string): ControlStatement<Row, Params>;
  exec(sql: string): void;
  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): ControlTransaction<Args, Result>;
  close(): void;
}
