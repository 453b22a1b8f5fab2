// Durable file steps used wherever a file must survive a crash or power loss once a step says it is
// done: a directory's entries synced after a create or rename, and a small file written to a
// temporary name, synced and renamed into place (a reader never sees half of it).

import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Makes a directory's entries (files created or renamed in it) durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` to a temporary file beside `file` (by default `.<name>.tmp`), syncs it, renames it to
 * `file` and syncs the directory.
 */
export function writeFileDurably(
  file: string,
  text: string,
  temporary = join(dirname(file), `.${basename(file)}.tmp`),
): void {
  const fd = openSync(temporary, "w", 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  syncDirectory(dirname(file));
}
