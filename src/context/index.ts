// The composition root: builds the effects and stores every part of txray shares (config, paths,
// logger, clock, timers, control database, DuckDB, cursor codec) once per process. Tests build one over
// a temp directory with a silent logger, a fixed clock and timers they advance; nothing reaches for globals.

import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isMainThread, threadId } from "node:worker_threads";
import type { Config } from "../config";
import { type ControlDb, openControlDb, serverSecret } from "../control";
import { type Duck, duckInstanceOptions, openDuck } from "../lake/duckdb";
import { buildNativeFlushWriter, loadNativeFlushWriter, type NativeFlushWriter } from "../lake/native";
import { type DataPaths, dataPaths } from "../lake/paths";
import { upgradeLake } from "../lake/upgrade";
import { configureFault } from "../shared/fault";
import { createLogger, type Logger } from "../shared/logger";
import { CursorCodec } from "../shared/pagination";
import { processAlive } from "../shared/process-alive";
import { SignatureIndex } from "../signature-index";
import { realTimers, type Timers } from "./timers";

export { type Component, type RunningComponents, settlesBy, startComponents } from "./components";
export { realTimers, type TimerHandle, type Timers } from "./timers";

export type Context = {
  config: Config;
  paths: DataPaths;
  logger: Logger;
  clock: () => number;
  /** Timers and sleeps of what waits for time (the scheduler, the RPC client's backoff). */
  timers: Timers;
  control: ControlDb;
  duck: Duck;
  /**
   * Options for a DuckDB instance the process opens: DUCKDB_MEMORY_LIMIT and a spill directory of
   * its own, `<host>-<pid>-<purpose>` (DuckDB names its spill files alike, so two instances spilling
   * into one directory overwrite each other's).
   */
  duckOptions(purpose: string): Record<string, string>;
  cursors: CursorCodec;
  /** The signature index why and diagnose-drop read and the resolver writes (one reader per process). */
  signatures: SignatureIndex;
  /**
   * What a stage keeps for this context's life (the serving reader, the resolver's memory): made on
   * first use by `part.make`, the same object after that, until released.
   */
  own<T>(part: OwnedPart<T>): T;
  /** Releases a part now (its `close`, when it was made); the next own() makes it again. */
  release(part: OwnedPart<unknown>): void;
  /**
   * Flush's native Parquet writer (FLUSH_NATIVE, a C compiler and libzstd); null: DuckDB writes
   * every pass. Built on first use, so commands that never flush never compile it.
   */
  readonly flushWriter: NativeFlushWriter | null;
  /** Releases every owned part (the last made first), then the signature index, DuckDB and the control database. */
  close(): void;
};

/**
 * A part of a higher stage that a context keeps for its life: the stage declares it once (a
 * constant), and each context makes its own, so two contexts in one process (a test's, a job
 * host's) never share it and nothing outlives the context that made it.
 */
export type OwnedPart<T> = { name: string; make(ctx: Context): T; close?(value: T): void };

export type Effects = { logger?: Logger; clock?: () => number; timers?: Timers };

export async function createContext(config: Config, effects: Effects = {}): Promise<Context> {
  configureFault(config.TXRAY_FAULT_POINT);
  const paths = dataPaths(config.dataDir);
  mkdirSync(paths.lake, { recursive: true });
  chmodSync(paths.root, 0o700); // keys' hashes, the envelopes and the lake inside: the owner's only, whatever the umask
  const logger = effects.logger ?? createLogger(config.TXRAY_LOG_LEVEL);
  const control = openControlDb(paths.controlDb, config.TXRAY_CONTROL_URL, { logger });
  mkdirSync(paths.duckTemp, { recursive: true }); // DuckDB creates only the last directory of the path
  removeDeadSpillDirectories(paths.duckTemp);
  // A thread of its own (src/jobs/thread.ts) has its own instances: its spill directories are named apart.
  const thread = isMainThread ? "" : `t${threadId}-`;
  const duckOptions = (purpose: string) =>
    duckInstanceOptions(
      config.DUCKDB_MEMORY_LIMIT,
      join(paths.duckTemp, `${hostname()}-${process.pid}-${thread}${purpose}`),
    );
  const duck = await openDuck(":memory:", duckOptions("jobs"));
  await upgradeLake({ paths, duck, control, logger }); // the lake in one layout version before anything reads it
  let writer: NativeFlushWriter | null | undefined;
  const signatures = new SignatureIndex(paths.signatureIndex);
  const owned = new Map<OwnedPart<unknown>, unknown>();
  const release = (part: OwnedPart<unknown>) => {
    if (!owned.has(part)) return;
    const value = owned.get(part);
    owned.delete(part);
    part.close?.(value);
  };
  const ctx: Context = {
    config,
    paths,
    logger,
    clock: effects.clock ?? Date.now,
    timers: effects.timers ?? realTimers,
    control,
    duck,
    duckOptions,
    cursors: new CursorCodec(serverSecret(control, "cursor")),
    signatures,
    get flushWriter() {
      if (writer === undefined) writer = config.FLUSH_NATIVE === "on" ? flushWriter(logger) : null;
      return writer;
    },
    own<T>(part: OwnedPart<T>): T {
      if (!owned.has(part)) owned.set(part, part.make(ctx));
      return owned.get(part) as T;
    },
    release,
    close() {
      for (const part of [...owned.keys()].reverse()) release(part);
      signatures.close();
      duck.close();
      control.close();
    },
  };
  return ctx;
}

function flushWriter(logger: Logger): NativeFlushWriter | null {
  const problem = buildNativeFlushWriter();
  if (problem) logger.warn("native flush writer unavailable; DuckDB writes the lake", { reason: problem });
  return problem ? null : loadNativeFlushWriter();
}

/**
 * Spill directories (`<host>-<pid>-<purpose>`) of this host's processes that are gone: DuckDB removes
 * its files on close, not after a crash. Another host's (a shared data directory) are left alone.
 */
function removeDeadSpillDirectories(root: string): void {
  const prefix = `${hostname()}-`;
  for (const name of readdirSync(root)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (Number.isInteger(pid) && !processAlive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}
