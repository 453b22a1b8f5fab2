// The native flush writer: sealed spool segments → one zstd Parquet part per (program, day), the
// files DuckDB's partitioned COPY writes (same schema, converted types and statistics), 2–3 times
// faster (bench/README.md). pages.c decodes the spool lines and compresses the pages on threads of
// its own, one per core; src/lake/parquet/ adds the page headers and the footer; the files are
// written and fsynced concurrently. A pass with anything pages.c does not fully understand (an
// unknown escape, invalid UTF-8, a malformed line, ...) returns null and DuckDB writes that pass:
// DuckDB stays the reference (test/lake/native-flush.test.ts checks both give the same rows).
//
// Built and cached by src/shared/native-library.ts on a context's first flush; FLUSH_NATIVE=off,
// no C compiler or no libzstd.so.1 means DuckDB writes every pass.

import { dlopen, FFIType, type Pointer, toArrayBuffer } from "bun:ffi";
import { existsSync, mkdirSync } from "node:fs";
import { open } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { buildNativeLibrary, type NativeBuildOptions, nativeLibraryPath } from "../../shared/native-library";
import { SPOOL_COLUMNS, SPOOL_TEXT_COLUMNS } from "../../spool";
import {
  type ChunkMeta,
  dataPageHeader,
  fileFooter,
  type LeafColumn,
  leafColumns,
  PARQUET_MAGIC,
  type RowGroupMeta,
} from "../parquet/format";
import type { StagedPart } from "../publish";
import { type Column, ENVELOPE_COLUMNS, INSTANT } from "../schema";

const SOURCE = join(import.meta.dir, "pages.c");

/** Column kinds of pages.c. */
const Kind = { raw: 0, text: 1, int64: 2, int32: 3, bool: 4, logs: 5, segment: 6 } as const;
const SEGMENT_FIELD = 255;
const RESULT_SLOTS = 11;
/** pages.c's page record: uncompressed size, compressed size, level count (int64 each). */
const PAGE_RECORD = 3;

/** Row groups of flush parts: DuckDB's recommended size (compaction keeps it), bounded in bytes too. */
const ROW_GROUP_ROWS = 122_880;
const ROW_GROUP_LINE_BYTES = 256 * 1024 * 1024;
/** pages.c's threads: one per core (a flush pass is short and DuckDB's would take them all too). */
const threads = Math.min(8, availableParallelism());
const POLL_MS = 2;

/** Rows written per (segment, day, account, program), with the last receive time: what flush records. */
export type StagedGroup = {
  segment: string;
  day: string;
  accountId: string;
  program: string;
  attempts: number;
  lastSeen: number;
};

export type NativeFlushWriter = {
  /**
   * Writes the rows of these sealed segments (format 2) into `staging` as
   * program=<p>/day=<d>/part-<batch>-0.parquet files, fsynced, and counts them; null when pages.c
   * declined a line (the caller then lets DuckDB write the pass; nothing was written).
   */
  write(
    segments: readonly { file: string; name: string }[],
    staging: string,
    batch: string,
    options?: { rowGroupRows?: number },
  ): Promise<{ parts: StagedPart[]; groups: StagedGroup[] } | null>;
};

/** Compiles pages.c unless already built; returns an error text when it cannot. */
export function buildNativeFlushWriter(options: NativeBuildOptions = {}): string | null {
  return buildNativeLibrary(SOURCE, "pages", options);
}

/** The writer, when the library is built (buildNativeFlushWriter); null otherwise. */
export function loadNativeFlushWriter(options: NativeBuildOptions = {}): NativeFlushWriter | null {
  const path = nativeLibraryPath(SOURCE, "pages", options);
  if (!existsSync(path)) return null;
  const { symbols } = dlopen(path, {
    txw_new: { args: [], returns: FFIType.ptr },
    txw_free: { args: [FFIType.ptr], returns: FFIType.void },
    txw_columns: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    txw_add_segment: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    txw_start: { args: [FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.i64], returns: FFIType.i32 },
    txw_running: { args: [FFIType.ptr], returns: FFIType.i32 },
    txw_finish: { args: [FFIType.ptr], returns: FFIType.i64 },
    txw_available: { args: [], returns: FFIType.i32 },
    txw_job: { args: [FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    txw_job_groups: {
      args: [FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.ptr, FFIType.i64, FFIType.ptr, FFIType.i64],
      returns: FFIType.i64,
    },
  });
  if (symbols.txw_available() !== 1) return null; // no libzstd.so.1 on this machine
  const columns = ENVELOPE_COLUMNS;
  const leaves = leafColumns(columns);
  const kinds = Int32Array.from(columns.map(kindOf));
  const fields = Int32Array.from(
    columns.map((column) =>
      column.name === "spool_segment" ? SEGMENT_FIELD : SPOOL_COLUMNS.indexOf(column.name as never),
    ),
  );
  if (fields.some((field) => field < 0)) throw new Error("native flush: a lake column is missing from the spool");
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  /**
   * The (segment, account) counts of a row group; the account as the spool wrote it (JSON when it starts with a quote).
   */
  let groupSlots = new BigInt64Array(4 * 64);
  let groupText = new Uint8Array(4096);
  const groupCount = new BigInt64Array(1);
  function jobGroups(
    context: Pointer,
    job: number,
  ): { segment: number; rows: number; lastReceived: number; account: string }[] {
    let textBytes = Number(
      symbols.txw_job_groups(context, job, groupCount, groupSlots, groupSlots.length / 4, groupText, groupText.length),
    );
    if (Number(groupCount[0]) * 4 > groupSlots.length || textBytes > groupText.length) {
      groupSlots = new BigInt64Array(4 * Number(groupCount[0]));
      groupText = new Uint8Array(textBytes);
      textBytes = Number(
        symbols.txw_job_groups(
          context,
          job,
          groupCount,
          groupSlots,
          groupSlots.length / 4,
          groupText,
          groupText.length,
        ),
      );
    }
    const found = [];
    for (let i = 0, at = 0; i < Number(groupCount[0]); i++) {
      const length = Number(groupSlots[4 * i + 3]);
      const raw = decoder.decode(groupText.subarray(at, at + length));
      at += length;
      found.push({
        segment: Number(groupSlots[4 * i]),
        rows: Number(groupSlots[4 * i + 1]),
        lastReceived: Number(groupSlots[4 * i + 2]),
        account: raw.startsWith('"') ? (JSON.parse(raw) as string) : raw,
      });
    }
    return found;
  }

  return {
    async write(segments, staging, batch, { rowGroupRows = ROW_GROUP_ROWS } = {}) {
      const context = symbols.txw_new() as Pointer | null;
      if (context === null) throw new Error("native flush: out of memory");
      try {
        if (symbols.txw_columns(context, kinds, fields, columns.length) !== 0)
          throw new Error("native flush: bad column table");
        for (const segment of segments) {
          const name = encoder.encode(segment.name);
          const added = symbols.txw_add_segment(context, encoder.encode(`${segment.file}\0`), name, name.length);
          if (added === IO_ERROR) throw new Error(`native flush: cannot read ${segment.file}`);
          if (added < 0) return null;
        }
        // pages.c works on its own threads; this one keeps serving (ingest, reads) and checks back.
        const started = symbols.txw_start(context, threads, rowGroupRows, ROW_GROUP_LINE_BYTES);
        if (started === OUT_OF_MEMORY) throw new Error("native flush: out of memory");
        if (started < 0) return null;
        while (symbols.txw_running(context) > 0) await Bun.sleep(POLL_MS);
        const jobs = Number(symbols.txw_finish(context));
        if (jobs === OUT_OF_MEMORY) throw new Error("native flush: out of memory");
        if (jobs < 0) return null;
        const program = new Uint8Array(64);
        const info = new BigInt64Array(3);
        const result = new BigInt64Array(RESULT_SLOTS * columns.length);
        const files: PartFile[] = [];
        const groups: StagedGroup[] = [];
        // Row groups come sorted by day and program: each run of one partition becomes one file.
        let file: PartFile | null = null;
        for (let job = 0; job < jobs; job++) {
          symbols.txw_job(context, job, program, info, result);
          const programId = decoder.decode(program.subarray(0, Number(info[0])));
          const day = dayOf(Number(info[1]));
          const partitionDir = join(`program=${programId}`, `day=${day}`);
          if (file?.partitionDir !== partitionDir) {
            const name = `part-${batch}-0.parquet`;
            file = new PartFile(join(staging, partitionDir, name), partitionDir, name, leaves);
            files.push(file);
          }
          file.addRowGroup(Number(info[2]), result);
          for (const group of jobGroups(context, job))
            groups.push({
              segment: segments[group.segment].name,
              day,
              accountId: group.account,
              program: programId,
              attempts: group.rows,
              lastSeen: group.lastReceived,
            });
        }
        const parts = files.map((part) => part.finish());
        // A few dozen at a time: their fsyncs overlap, and a pass naming 30,000 programs never holds a descriptor each.
        for (let i = 0; i < files.length; i += 64)
          await Promise.all(files.slice(i, i + 64).map((part) => part.write()));
        return { parts, groups };
      } finally {
        symbols.txw_free(context);
      }
    },
  };
}

const OUT_OF_MEMORY = -1;
const IO_ERROR = -5;

/** The UTC date of a day number (days since 1970-01-01). */
const dayOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** One Parquet file, laid out in memory (pages stay in pages.c's memory): magic, row groups, footer. */
class PartFile {
  readonly pieces: Uint8Array[] = [PARQUET_MAGIC];
  private offset = PARQUET_MAGIC.length;
  private readonly rowGroups: RowGroupMeta[] = [];

  constructor(
    readonly path: string,
    readonly partitionDir: string,
    readonly name: string,
    private readonly leaves: LeafColumn[],
  ) {}

  /** Adds a row group's compressed pages (`result`: txw_job's slots), each after its header. */
  addRowGroup(rows: number, result: BigInt64Array): void {
    const chunks: ChunkMeta[] = [];
    for (let column = 0; column < this.leaves.length; column++) {
      const slot = result.subarray(RESULT_SLOTS * column, RESULT_SLOTS * (column + 1));
      const packed = view(slot[0], slot[1]);
      const pages = new BigInt64Array(toArrayBuffer(Number(slot[3]) as Pointer, 0, Number(slot[2]) * PAGE_RECORD * 8));
      const start = this.offset;
      let uncompressedBytes = 0;
      let compressedBytes = 0;
      for (let page = 0, at = 0; page < pages.length; page += PAGE_RECORD) {
        const [uncompressed, compressed, levels] = [
          Number(pages[page]),
          Number(pages[page + 1]),
          Number(pages[page + 2]),
        ];
        const header = dataPageHeader(uncompressed, compressed, levels);
        this.pieces.push(header, packed.subarray(at, at + compressed));
        at += compressed;
        uncompressedBytes += header.length + uncompressed;
        compressedBytes += header.length + compressed;
      }
      this.offset += compressedBytes;
      const hasStats = slot[6] !== 0n;
      chunks.push({
        offset: start,
        uncompressedBytes,
        compressedBytes,
        values: Number(slot[4]),
        nulls: Number(slot[5]),
        min: hasStats ? view(slot[7], slot[8]).slice() : null,
        max: hasStats ? view(slot[9], slot[10]).slice() : null,
      });
    }
    this.rowGroups.push({ rows, chunks });
  }

  /** Adds the footer; the part as publish expects it. */
  finish(): StagedPart {
    const footer = fileFooter(this.leaves, this.rowGroups, "txray native flush writer");
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, footer.length, true);
    this.pieces.push(footer, length, PARQUET_MAGIC);
    return {
      path: this.path,
      partitionDir: this.partitionDir,
      name: this.name,
      day: this.partitionDir.split("day=")[1],
    };
  }

  /** Writes and fsyncs the file (files are written concurrently: their fsyncs overlap). */
  async write(): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    const handle = await open(this.path, "w");
    try {
      let pieces = this.pieces;
      let position = 0;
      while (pieces.length > 0) {
        const batch = pieces.slice(0, 512);
        const total = batch.reduce((sum, piece) => sum + piece.length, 0);
        const { bytesWritten } = await handle.writev(batch, position);
        position += bytesWritten;
        // A short write leaves the rest of this batch for the next call.
        pieces = bytesWritten === total ? pieces.slice(512) : [...rest(batch, bytesWritten), ...pieces.slice(512)];
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** The pieces after the first `skip` bytes. */
function rest(pieces: Uint8Array[], skip: number): Uint8Array[] {
  const left: Uint8Array[] = [];
  for (const piece of pieces) {
    if (skip >= piece.length) skip -= piece.length;
    else {
      left.push(piece.subarray(skip));
      skip = 0;
    }
  }
  return left;
}

function kindOf(column: Column): number {
  if (column.name === "spool_segment") return Kind.segment;
  switch (column.type) {
    case "VARCHAR":
      return SPOOL_TEXT_COLUMNS.has(column.name) ? Kind.text : Kind.raw;
    case "VARCHAR[]":
      return Kind.logs;
    case "BIGINT":
    case INSTANT: // Unix milliseconds, as the spool holds them
      return Kind.int64;
    case "INTEGER":
      return Kind.int32;
    case "BOOLEAN":
      return Kind.bool;
    default:
      throw new Error(`native flush: no kind for ${column.name} ${column.type}`);
  }
}

/** C memory as bytes, without a copy (valid until txw_free). */
function view(address: bigint, length: bigint): Uint8Array {
  if (length === 0n) return new Uint8Array(0);
  return new Uint8Array(toArrayBuffer(Number(address) as Pointer, 0, Number(length)));
}
