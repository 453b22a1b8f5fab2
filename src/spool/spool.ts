// The durable spool between ingest and the lake (docs/architecture.md, "Durability"). Ingest appends each batch as
// spool lines (src/spool/line-format.ts); the promise resolves only after the bytes are fdatasync'd, and
// every batch that arrives while an fsync is in flight joins the next one (group commit: one fsync serves many
// requests, and the event loop keeps accepting while the disk works). An acknowledged envelope is therefore on disk.
//
// Files: data/spool/<node>/<segment>.active is being appended; it is sealed (renamed to .sealed)
// when it is older than SPOOL_SEAL_MS or larger than SPOOL_SEGMENT_MAX_BYTES. Flush turns sealed
// segments into Parquet. After a crash the process (or a standalone flush, once the owner is gone)
// cuts a torn last line (never acknowledged) and seals what remains.
// Each batch also gets a checksum record in the segment's `.frames` sidecar (spool-frames.ts),
// written and synced with it: flush skips a torn or corrupted batch whole instead of half-reading it.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { syncDirectory } from "../shared/durable-files";
import { fault } from "../shared/fault";
import type { Logger } from "../shared/logger";
import { processAlive } from "../shared/process-alive";
import { encodeFrames, FRAMES_SUFFIX, framesFileOf, hasFrames } from "./frames";

export type SpoolOptions = {
  dir: string;
  nodeId: string;
  sealAfterMs: number;
  maxSegmentBytes: number;
  clock: () => number;
  logger: Logger;
};

type Waiter = { bytes: Uint8Array; resolve: () => void; reject: (error: unknown) => void };

export class Spool {
  private queue: Waiter[] = [];
  private writing = false;
  private active: {
    name: string;
    handle: FileHandle;
    frames: FileHandle;
    bytes: number;
    frameBytes: number;
    openedAt: number;
  } | null = null;
  private sealRequested = false;
  private sealWaiters: (() => void)[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(private readonly options: SpoolOptions) {}

  /** Takes ownership of the node's spool directory and seals anything a previous process left. */
  open(): void {
    mkdirSync(this.options.dir, { recursive: true });
    takeOwnership(this.options.dir);
    recoverActiveSegments(this.options.dir, this.options.logger);
    this.timer = setInterval(
      () => {
        const active = this.active;
        if (active && active.bytes > 0 && this.options.clock() - active.openedAt >= this.options.sealAfterMs)
          this.requestSeal();
      },
      Math.max(50, Math.floor(this.options.sealAfterMs / 4)),
    );
    this.timer.unref?.();
  }

  /** Appends whole spool lines; resolves once they are durable. */
  append(bytes: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new Error("spool is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  /** Seals the active segment (if it has data) so flush can take it; resolves when done. */
  seal(): Promise<void> {
    return new Promise((resolve) => {
      this.sealWaiters.push(resolve);
      this.requestSeal();
    });
  }

  /** Bytes acknowledged but not yet sealed plus sealed segments waiting for flush. */
  backlogBytes(): number {
    return (
      sealedSegmentFiles(this.options.dir).reduce((sum, file) => sum + statSync(file).size, 0) +
      (this.active?.bytes ?? 0)
    );
  }

  async close(): Promise<void> {
    await this.seal();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      unlinkSync(join(this.options.dir, OWNER_FILE));
    } catch {}
  }

  private requestSeal() {
    this.sealRequested = true;
    if (!this.writing) void this.drain();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0 || this.sealRequested) {
        if (this.queue.length > 0) {
          const batch = this.queue;
          this.queue = [];
          await this.writeBatch(batch);
        }
        const active = this.active;
        if (active && (active.bytes >= this.options.maxSegmentBytes || (this.sealRequested && active.bytes > 0)))
          await this.sealActive();
        if (this.sealRequested && this.queue.length === 0) {
          this.sealRequested = false;
          for (const done of this.sealWaiters.splice(0)) done();
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async writeBatch(batch: Waiter[]) {
    // One buffer per request, written with one writev: no join of all the batch's bytes first.
    const buffers = batch.map((waiter) => waiter.bytes);
    const size = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    try {
      const active = await this.ensureActive();
      try {
        const { bytesWritten } = await active.handle.writev(buffers, active.bytes);
        if (bytesWritten !== size) throw new Error(`short spool write: ${bytesWritten} of ${size} bytes`);
        fault("spool:after-write");
        const frames = encodeFrames(active.bytes, buffers);
        const { bytesWritten: frameBytesWritten } = await active.frames.write(
          frames,
          0,
          frames.length,
          active.frameBytes,
        );
        if (frameBytesWritten !== frames.length)
          throw new Error(`short spool frames write: ${frameBytesWritten} of ${frames.length} bytes`);
        await Promise.all([active.handle.datasync(), active.frames.datasync()]);
        active.frameBytes += frames.length;
      } catch (error) {
        // Cut whatever part of this write reached the files: none of it is acknowledged.
        await Promise.all([
          active.handle.truncate(active.bytes).catch(() => {}),
          active.frames.truncate(active.frameBytes).catch(() => {}),
        ]);
        throw error;
      }
      active.bytes += size;
      fault("spool:after-sync");
      for (const waiter of batch) waiter.resolve();
    } catch (error) {
      this.options.logger.error("spool write failed", { error: String(error) });
      for (const waiter of batch) waiter.reject(error);
    }
  }

  private async ensureActive() {
    if (this.active) return this.active;
    const now = this.options.clock();
    const name = newSegmentName(this.options.nodeId, now);
    const handle = await open(join(this.options.dir, `${name}.active`), "wx");
    let frames: FileHandle;
    try {
      frames = await open(join(this.options.dir, name + FRAMES_SUFFIX), "wx");
      // The new directory entries must be durable before the first acknowledgement that relies on them.
      syncDirectory(this.options.dir);
    } catch (error) {
      await handle.close();
      for (const suffix of [".active", FRAMES_SUFFIX]) rmQuiet(join(this.options.dir, name + suffix));
      throw error;
    }
    this.active = { name, handle, frames, bytes: 0, frameBytes: 0, openedAt: now };
    return this.active;
  }

  private async sealActive() {
    const active = this.active;
    if (!active) return;
    this.active = null;
    await Promise.all([active.handle.close(), active.frames.close()]);
    fault("spool:seal");
    const from = join(this.options.dir, `${active.name}.active`);
    if (active.bytes === 0) removeSegment(from);
    else renameSync(from, join(this.options.dir, `${active.name}.sealed`));
  }
}

const OWNER_FILE = "owner.pid";

/** `<node>-<13-digit ms>-<6 hex>`: unique, sorts by time, safe as a file name and a Parquet part name. */
export function newSegmentName(nodeId: string, now: number): string {
  return `${nodeId}-${String(now).padStart(13, "0")}-${randomBytes(3).toString("hex")}`;
}

export function sealedSegmentFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sealed"))
    .sort()
    .map((name) => join(dir, name));
}

export const segmentNameOf = (file: string) => file.slice(file.lastIndexOf("/") + 1).replace(/\.(sealed|active)$/, "");

/**
 * Who owns a spool directory while that process may still be writing to it: `host:pid`, or null
 * when the owner is gone. An owner on another host (a shared data directory) is never presumed dead.
 */
export function liveOwner(dir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(dir, OWNER_FILE), "utf8").trim();
  } catch {
    return null;
  }
  const [host, pidText] = text.includes(":") ? text.split(":") : [hostname(), text];
  const pid = Number(pidText);
  if (host !== hostname()) return text;
  return processAlive(pid) ? `${host}:${pid}` : null;
}

function takeOwnership(dir: string) {
  const owner = liveOwner(dir);
  if (owner !== null && owner !== `${hostname()}:${process.pid}`) {
    throw new Error(`spool ${dir} is in use by ${owner}; give each ingest process its own TXRAY_NODE_ID`);
  }
  writeFileSync(join(dir, OWNER_FILE), `${hostname()}:${process.pid}`);
}

/**
 * Seals `.active` segments left by a process that is gone. A legacy segment (no checksums) has its
 * torn last line cut; a checksummed one is kept as it is (flush reads only its verified batches).
 * Sidecars whose segment is gone are removed.
 */
export function recoverActiveSegments(dir: string, logger: Logger): void {
  const names = readdirSync(dir);
  for (const name of names.filter((n) => n.endsWith(".active"))) {
    const file = join(dir, name);
    const kept = hasFrames(file) ? statSync(file).size : cutTornTail(file);
    if (kept === 0) removeSegment(file);
    else renameSync(file, file.replace(/\.active$/, ".sealed"));
    logger.info("recovered spool segment", { segment: name, bytes: kept });
  }
  for (const name of names.filter((n) => n.endsWith(FRAMES_SUFFIX))) {
    const base = join(dir, name.slice(0, -FRAMES_SUFFIX.length));
    if (!existsSync(`${base}.active`) && !existsSync(`${base}.sealed`)) rmQuiet(join(dir, name));
  }
}

/** Deletes a segment file and its checksum sidecar. */
export function removeSegment(file: string): void {
  unlinkSync(file);
  rmQuiet(framesFileOf(file));
}

function rmQuiet(file: string) {
  try {
    unlinkSync(file);
  } catch {}
}

/** Truncates a file after its last newline; returns the size kept. */
export function cutTornTail(file: string): number {
  const size = statSync(file).size;
  if (size === 0) return 0;
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const bytesRead = readSync(fd, chunk, 0, end - start, start);
      const index = chunk.subarray(0, bytesRead).lastIndexOf(10);
      if (index >= 0) {
        const keep = start + index + 1;
        if (keep !== size) truncateSync(file, keep);
        return keep;
      }
      end = start;
    }
    truncateSync(file, 0);
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * The spool line holding `needle` (a signature), looking at the newest segments first and reading at
 * most `maxBytes` of spool in all: the end of each segment, where the newest lines are (docs/api.md
 * #get-v1whysig). The spool normally holds a few seconds of envelopes; when flush has fallen behind,
 * an envelope older than the last `maxBytes` is not found here (why then asks the chain as for a
 * signature txray never saw). Null when not found.
 */
export function spoolLineWith(root: string, needle: string, maxBytes: number): string | null {
  if (!existsSync(root)) return null;
  const bytes = Buffer.from(needle);
  const files: { file: string; mtime: number; size: number }[] = [];
  for (const node of readdirSync(root)) {
    const dir = join(root, node);
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith(".sealed") || name.endsWith(".active"));
    } catch {
      continue; // not a directory
    }
    for (const name of names) {
      try {
        const stat = statSync(join(dir, name));
        files.push({ file: join(dir, name), mtime: stat.mtimeMs, size: stat.size });
      } catch {
        // flushed (deleted) or sealed (renamed) meanwhile
      }
    }
  }
  files.sort((a, b) => b.mtime - a.mtime);
  let budget = maxBytes;
  for (const { file, size } of files) {
    if (budget <= 0) break;
    const length = Math.min(size, budget);
    budget -= length;
    let chunk: Buffer;
    try {
      const fd = openSync(file, "r");
      try {
        chunk = Buffer.alloc(length);
        readSync(fd, chunk, 0, length, size - length);
      } finally {
        closeSync(fd);
      }
    } catch {
      continue; // flushed (deleted) or sealed (renamed) meanwhile: the next place looked at holds it
    }
    const at = chunk.indexOf(bytes);
    if (at < 0) continue;
    const start = chunk.lastIndexOf(10, at) + 1;
    const end = chunk.indexOf(10, at);
    if (start === 0 && length < size) continue; // the line began before the part read
    return chunk.toString("utf8", start, end < 0 ? chunk.length : end);
  }
  return null;
}
