// The resolver's checkpoint (docs/operations.md, "How resolving works"): its open attempts and the
// instruction names it learned, written to <data dir>/resolver/checkpoint.json (temporary file,
// fsync, rename) every RESOLVE_CHECKPOINT_MS, with `through`, the time of the last run it includes.
// A `kill -9` at any moment loses nothing and records nothing twice: a process that starts (or
// whose memory is stale because another process ran the resolver) loads the checkpoint and replays
// what the lake and the control database say happened after `through`:
//   - segments taken in after it are read again from the lake (their attempts become open again);
//   - batches committed after it are read back (their attempts are resolved: no longer open);
//   - a batch written but never committed was removed before (record.ts), its attempts still open.
// Every mark the resolver makes carries its run's time, and run times only grow, so "after
// through" is exact.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "../../lake/paths";
import { syncDirectory } from "../../shared/durable-files";
import type { OpenAttempt } from "./open-attempts";

export type Checkpoint = {
  format: 1;
  /** The time of the last run whose work it includes. */
  through: number;
  open: OpenAttempt[];
  names: [string, string, string][];
};

const FIELDS = [
  "attemptId",
  "accountId",
  "program",
  "sig",
  "kind",
  "lastValidBlockHeight",
  "sentAt",
  "receivedAt",
  "rpcHash",
  "rpcLabel",
  "payer",
  "cuLimit",
  "cuPriceMicroLamports",
  "ixPrefix",
  "nonce",
  "nonceAccount",
  "nonceValue",
  "preflightError",
  "simulationLogs",
  "checks",
  "nextCheckAt",
  "expiry",
  "indexed",
  "expiryCap",
] as const satisfies readonly (keyof OpenAttempt)[];

export const checkpointPath = (paths: DataPaths) => join(paths.resolver, "checkpoint.json");

/** Writes the checkpoint atomically; rows are arrays in FIELDS order (a key per attempt would double the file). */
export function writeCheckpoint(paths: DataPaths, checkpoint: Checkpoint): void {
  mkdirSync(paths.resolver, { recursive: true });
  const file = checkpointPath(paths);
  const temporary = `${file}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    writeSync(
      fd,
      `{"format":1,"through":${checkpoint.through},"fields":${JSON.stringify(FIELDS)},"names":${JSON.stringify(checkpoint.names)},"open":[`,
    );
    let chunk: string[] = [];
    let first = true;
    for (const attempt of checkpoint.open) {
      chunk.push(JSON.stringify(FIELDS.map((field) => attempt[field])));
      if (chunk.length === 5_000) {
        writeSync(fd, (first ? "" : ",") + chunk.join(","));
        first = false;
        chunk = [];
      }
    }
    if (chunk.length > 0) writeSync(fd, (first ? "" : ",") + chunk.join(","));
    writeSync(fd, "]}");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  // The rename itself survives a power loss only once the directory is synced (shared/durable-files).
  syncDirectory(paths.resolver);
}

/** The checkpoint, or null when none was written yet. */
export function readCheckpoint(paths: DataPaths): Checkpoint | null {
  const file = checkpointPath(paths);
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, "utf8")) as {
    through: number;
    fields: string[];
    names: [string, string, string][];
    open: unknown[][];
  };
  const open = raw.open.map((row) => {
    const attempt = Object.fromEntries(raw.fields.map((field, i) => [field, row[i]])) as unknown as OpenAttempt;
    attempt.version = 0;
    // A checkpoint written before expiryCap was kept apart holds the capped value as lastValidBlockHeight.
    attempt.expiryCap ??= null;
    // Written before durable-nonce attempts carried their nonce account: judged as before, by time.
    attempt.nonceAccount ??= null;
    attempt.nonceValue ??= null;
    return attempt;
  });
  return { format: 1, through: raw.through, open, names: raw.names };
}
