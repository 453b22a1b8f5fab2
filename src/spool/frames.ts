// Spool checksums (format 3, docs/lake.md "Before the lake: the spool"). The spool lines stay
// exactly as the C fast paths write and read them (src/ingest/native/encode.c, src/lake/native/pages.c);
// the checksums live beside them in a sidecar `<segment>.frames`: one 20-byte record per accepted
// batch, written and fdatasync'd together with the batch's bytes before its 202.
//
//   record = offset u64 LE | length u32 LE | crc32(batch bytes) u32 LE | crc32(first 16 bytes) u32 LE
//
// A segment whose frames all verify and cover it exactly is flushed as it is. Otherwise (a torn
// last batch of a killed process, a corrupted byte, a torn or damaged record) flush reads a copy
// holding only the verified batches: a damaged batch is skipped whole, reported (log, /v1/status),
// never half-read. A segment without a sidecar was written by an older version and is flushed as
// before (its torn last line cut).

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

export const FRAME_RECORD_BYTES = 20;
export const FRAMES_SUFFIX = ".frames";

/** The sidecar of a segment file (`<dir>/<segment>.active|.sealed` → `<dir>/<segment>.frames`). */
export const framesFileOf = (segmentFile: string) => segmentFile.replace(/\.(sealed|active)$/, "") + FRAMES_SUFFIX;

/** The sidecar records of consecutive batches written at `offset`. */
export function encodeFrames(offset: number, batches: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(batches.length * FRAME_RECORD_BYTES);
  const view = new DataView(out.buffer);
  let at = offset;
  for (let i = 0; i < batches.length; i++) {
    const base = i * FRAME_RECORD_BYTES;
    view.setBigUint64(base, BigInt(at), true);
    view.setUint32(base + 8, batches[i].length, true);
    view.setUint32(base + 12, Bun.hash.crc32(batches[i]) >>> 0, true);
    view.setUint32(base + 16, Bun.hash.crc32(out.subarray(base, base + 16)) >>> 0, true);
    at += batches[i].length;
  }
  return out;
}

export type FrameCheck = {
  /** Byte ranges of the segment holding verified batches, in order. */
  ranges: { offset: number; length: number }[];
  /** True when the ranges cover the whole file and nothing was skipped. */
  intact: boolean;
  /** Batches whose bytes or record failed their checksum (acknowledged data lost to corruption). */
  corruptFrames: number;
  /** Bytes of those batches (or between verified batches) that were skipped. */
  corruptBytes: number;
  /** Bytes after the last verified batch: a batch being written when the process died (never acknowledged). */
  tornBytes: number;
};

/** Verifies a segment against its sidecar. */
export function checkFrames(segmentFile: string, framesFile = framesFileOf(segmentFile)): FrameCheck {
  const size = statSync(segmentFile).size;
  const records = readFileSync(framesFile);
  const data = size > 0 ? Bun.mmap(segmentFile, { shared: false }) : new Uint8Array(0);
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const ranges: FrameCheck["ranges"] = [];
  let corruptFrames = 0;
  let expected = 0; // where the next batch starts
  const whole = Math.floor(records.length / FRAME_RECORD_BYTES);
  for (let i = 0; i < whole; i++) {
    const base = i * FRAME_RECORD_BYTES;
    if (Bun.hash.crc32(records.subarray(base, base + 16)) >>> 0 !== view.getUint32(base + 16, true)) {
      corruptFrames++; // the record itself is damaged: its batch is skipped (the next good record says where the next batch starts)
      continue;
    }
    const offset = Number(view.getBigUint64(base, true));
    const length = view.getUint32(base + 8, true);
    if (offset < expected) {
      corruptFrames++;
      continue;
    }
    if (offset + length > size) break; // torn: the bytes never fully reached the file
    if (Bun.hash.crc32(data.subarray(offset, offset + length)) >>> 0 !== view.getUint32(base + 12, true)) {
      corruptFrames++;
      expected = offset + length;
      continue;
    }
    ranges.push({ offset, length });
    expected = offset + length;
  }
  const covered = ranges.reduce((sum, r) => sum + r.length, 0);
  const verifiedEnd = ranges.length > 0 ? ranges[ranges.length - 1].offset + ranges[ranges.length - 1].length : 0;
  const lastRecordedEnd = Math.max(verifiedEnd, expected);
  const tornBytes = Math.max(0, size - lastRecordedEnd);
  const corruptBytes = size - covered - tornBytes;
  return {
    ranges,
    intact: corruptFrames === 0 && tornBytes === 0 && corruptBytes === 0 && records.length % FRAME_RECORD_BYTES === 0,
    corruptFrames,
    corruptBytes,
    tornBytes,
  };
}

/** Writes the verified batches of a segment to `<dir>/<segment>.sealed` (fsync'd); returns its size. */
export function writeVerifiedCopy(
  segmentFile: string,
  check: FrameCheck,
  dir: string,
  segment: string,
): { file: string; bytes: number } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${segment}.sealed`);
  const data = statSync(segmentFile).size > 0 ? Bun.mmap(segmentFile, { shared: false }) : new Uint8Array(0);
  const fd = openSync(file, "w");
  let bytes = 0;
  try {
    for (const range of check.ranges) bytes += writeSync(fd, data, range.offset, range.length, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { file, bytes };
}

/** Whether a segment carries checksums (written by this version) or is a legacy one. */
export const hasFrames = (segmentFile: string) => existsSync(framesFileOf(segmentFile));
