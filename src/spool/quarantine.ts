// Setting a sealed segment aside (docs/lake.md, "Quarantined segments"): flush moves a segment whose
// rows cannot be read, with its checksum sidecar, into `<node dir>/quarantine/`, where nothing
// reads it again. The spool's readers (flush, backlog, why's spoolLineWith) only look at the node
// directory's own `.sealed`/`.active` files, so a quarantined segment is out of every path at once;
// it stays on disk for an operator to inspect or repair.

import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { syncDirectory } from "../shared/durable-files";
import { framesFileOf } from "./frames";

export const QUARANTINE_DIR = "quarantine";

/** Where a segment of this node directory goes when it is set aside. */
export const quarantinedPathOf = (segmentFile: string) =>
  join(dirname(segmentFile), QUARANTINE_DIR, basename(segmentFile));

/**
 * Moves a segment and its sidecar (when it has one) into the quarantine directory; returns the new
 * path. The sidecar goes first: a crash between the two renames leaves the segment in the spool
 * without checksums, and the next flush sets it aside again.
 */
export function moveToQuarantine(segmentFile: string): string {
  const to = quarantinedPathOf(segmentFile);
  mkdirSync(dirname(to), { recursive: true });
  const frames = framesFileOf(segmentFile);
  if (existsSync(frames)) renameSync(frames, framesFileOf(to));
  renameSync(segmentFile, to);
  for (const dir of [dirname(to), dirname(segmentFile)]) syncDirectory(dir);
  return to;
}

/** Envelopes (lines) a segment holds: its newline count, plus an unterminated last line. */
export function segmentLineCount(file: string): number {
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.alloc(1 << 20);
    let lines = 0;
    let last = 10;
    let at = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (n === 0) break;
      for (let i = 0; i < n; i++) if (chunk[i] === 10) lines++;
      last = chunk[n - 1];
      at += n;
    }
    return lines + (last === 10 ? 0 : 1);
  } finally {
    closeSync(fd);
  }
}
