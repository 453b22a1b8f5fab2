// One run of the signature index (docs/scaling.md, "Finding a signature"): an immutable file of
// entries sorted by signature. Layout, front to back:
//   blocks        each up to BLOCK_ENTRIES lines `sig \t attemptId \t value-json`, zstd-compressed
//   block index   zstd of JSON [[first sig's first 16 characters, offset, length], ...]
//   Bloom filter  bloom.ts: one 64-byte block decides whether the run may hold a signature
//   footer        JSON (RunFooter), then its length as u32 LE and the magic "TXSI"
// A look-up reads the filter block (64 bytes), and only when it says "maybe" one compressed block
// (about 20 KB). Written to a temporary name, fsynced and renamed (the directory synced after), so a
// reader never sees half a run and a run written stays written.

import { closeSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { syncDirectory } from "../shared/durable-files";
import { detachedString } from "../shared/intern";
import { BLOOM_BLOCK_BYTES, BloomFilter, bloomBlockMayHold, bloomBlockOf } from "./bloom";

export type IndexEntry = { sig: string; attemptId: string; value: unknown };

/** What a run says about itself. `lo`/`hi`: the write sequence numbers it covers (newer runs cover higher ones). */
export type RunFooter = {
  format: 1;
  entries: number;
  lo: number;
  hi: number;
  /** How many first-level runs were merged into it (1 for a run written by the resolver). */
  weight: number;
  /** Earliest and latest `at` of its entries (retention drops a run whose latest is too old). */
  minAt: number;
  maxAt: number;
  /** The resolution batch whose commit it belongs to (removed with the batch when that never commits). */
  batch: string | null;
  blocksIndex: { offset: number; length: number };
  bloom: { offset: number; blocks: number };
};

const MAGIC = "TXSI";
const BLOCK_ENTRIES = 256;
const BLOCK_RAW_BYTES = 256 * 1024;
const PREFIX = 16;
const TAIL_BYTES = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One line per entry: the value's JSON never holds a raw tab or newline. */
export const entryLine = (e: IndexEntry) => `${e.sig}\t${e.attemptId}\t${JSON.stringify(e.value)}`;

export function compareEntries(a: { sig: string; attemptId: string }, b: { sig: string; attemptId: string }): number {
  return a.sig < b.sig ? -1 : a.sig > b.sig ? 1 : a.attemptId < b.attemptId ? -1 : a.attemptId > b.attemptId ? 1 : 0;
}

export type FooterFields = Pick<RunFooter, "lo" | "hi" | "weight" | "batch" | "minAt" | "maxAt">;

/**
 * Writes a run line by line (lines in signature, then attempt id, order; `sig\tattemptId\tjson`)
 * to `path + ".tmp"`, and `finish` fsyncs it and renames it to `path`. `maxEntries` sizes its Bloom
 * filter, which it fills as lines come: the lines of a write, the sum of a merge's inputs.
 */
export class RunWriter {
  private readonly temporary: string;
  private readonly fd: number;
  private offset = 0;
  private readonly index: [string, number, number][] = [];
  private readonly bloom: BloomFilter;
  private entries = 0;
  private block: string[] = [];
  private blockBytes = 0;
  private first = "";

  constructor(
    private readonly path: string,
    maxEntries: number,
  ) {
    this.bloom = new BloomFilter(maxEntries);
    this.temporary = `${path}.tmp`;
    this.fd = openSync(this.temporary, "w");
  }

  /** Blocks written so far (a long merge pauses for the event loop every few). */
  get blocks(): number {
    return this.index.length;
  }

  add(sig: string, text: string): void {
    if (this.block.length === 0) this.first = sig;
    this.block.push(text);
    this.blockBytes += text.length;
    this.bloom.add(sig);
    this.entries++;
    if (this.block.length >= BLOCK_ENTRIES || this.blockBytes >= BLOCK_RAW_BYTES) this.flushBlock();
  }

  finish(footer: FooterFields): RunFooter {
    try {
      this.flushBlock();
      const indexBytes = Bun.zstdCompressSync(encoder.encode(JSON.stringify(this.index)), { level: 1 });
      const blocksIndex = { offset: this.offset, length: indexBytes.length };
      this.write(indexBytes);
      const bloom = { offset: this.offset, blocks: this.bloom.blocks };
      this.write(this.bloom.bytes);
      const full: RunFooter = { format: 1, entries: this.entries, ...footer, blocksIndex, bloom };
      const footerBytes = encoder.encode(JSON.stringify(full));
      this.write(footerBytes);
      const tail = new Uint8Array(TAIL_BYTES);
      new DataView(tail.buffer).setUint32(0, footerBytes.length, true);
      tail.set(encoder.encode(MAGIC), 4);
      this.write(tail);
      fsyncSync(this.fd);
      closeSync(this.fd);
      renameSync(this.temporary, this.path);
      // The rename survives a power loss only once the directory is synced; a merge removes its
      // inputs after this, so their entries are never only in a run whose name was lost.
      syncDirectory(dirname(this.path));
      return full;
    } catch (error) {
      this.abandon();
      throw error;
    }
  }

  /** Closes and removes the temporary file (a failed or stopped write). */
  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {}
    try {
      unlinkSync(this.temporary);
    } catch {}
  }

  private write(bytes: Uint8Array): void {
    writeSync(this.fd, bytes);
    this.offset += bytes.length;
  }

  private flushBlock(): void {
    if (this.block.length === 0) return;
    const compressed = Bun.zstdCompressSync(encoder.encode(this.block.join("\n")), { level: 1 });
    this.index.push([detachedString(this.first.slice(0, PREFIX)), this.offset, compressed.length]);
    this.write(compressed);
    this.block = [];
    this.blockBytes = 0;
  }
}

/** Writes entry lines (`entryLine`, any order) as a run: sorted by signature, then attempt id. */
export function writeRunLines(path: string, lines: string[], footer: FooterFields): RunFooter {
  const keyed = sortLines(lines);
  const writer = new RunWriter(path, keyed.length);
  for (const { key, text } of keyed) writer.add(key.sig, text);
  return writer.finish(footer);
}

/** An entry line with its key (lineKey). */
type KeyedLine = { key: { sig: string; attemptId: string }; text: string };

/** The first SORT_PREFIX_CHARS characters of an ASCII key as one number, in the key's order (7 bits each: 49 bits). */
const SORT_PREFIX_CHARS = 7;
function asciiPrefix(key: string): number {
  let prefix = 0;
  for (let i = 0; i < SORT_PREFIX_CHARS; i++) {
    const code = i < key.length ? key.charCodeAt(i) : 0;
    if (code > 127) return -1;
    prefix = prefix * 128 + code;
  }
  return prefix;
}

/**
 * Lines in entry order (compareEntries). Real signatures are random base58 (ASCII): their first 7
 * characters as one number decide almost every comparison, and sorting a run of ~160,000 resolver
 * entries took 0.7 µs an entry instead of 3.3–5.5 comparing the strings. Keys that share their
 * first characters (the load tools' generated signatures share all but their last 4) gain nothing
 * from the number, and carrying it made their sort slower (larger objects): so the number is used
 * only when a sample of the keys' prefixes are nearly all different. A key that is not ASCII
 * (never written by txray) sorts the whole run by the strings alone.
 */
export function sortLines(lines: readonly string[]): KeyedLine[] {
  const byStrings = (a: KeyedLine, b: KeyedLine) => compareEntries(a.key, b.key);
  if (!prefixesDiffer(lines)) return lines.map((text) => ({ key: lineKey(text), text })).sort(byStrings);
  let ascii = true;
  const keyed = lines.map((text) => {
    const key = lineKey(text);
    const prefix = asciiPrefix(key.sig);
    if (prefix < 0) ascii = false;
    return { key, text, prefix };
  });
  return ascii ? keyed.sort((a, b) => a.prefix - b.prefix || compareEntries(a.key, b.key)) : keyed.sort(byStrings);
}

/**
 * Whether PREFIX_SAMPLE keys spread over the run are ASCII with nearly all different prefixes
 * (99%): random signatures' 7-character prefixes (2^41 of them) practically never repeat among a
 * thousand, while the load tools' signatures (a few thousand shared prefixes) repeat a tenth of the
 * time or more.
 */
const PREFIX_SAMPLE = 1_024;
function prefixesDiffer(lines: readonly string[]): boolean {
  const sample = Math.min(lines.length, PREFIX_SAMPLE);
  const stride = lines.length / sample;
  const distinct = new Set<number>();
  for (let i = 0; i < sample; i++) {
    const prefix = asciiPrefix(lineKey(lines[Math.floor(i * stride)]).sig);
    if (prefix < 0) return false;
    distinct.add(prefix);
  }
  return distinct.size >= 0.99 * sample;
}

/** An open run: its footer and block index in memory, its file kept open for look-ups. */
export class RunReader {
  private constructor(
    readonly path: string,
    readonly footer: RunFooter,
    private readonly fd: number,
    private readonly index: [string, number, number][],
  ) {}

  static open(path: string): RunReader {
    const fd = openSync(path, "r");
    try {
      const size = Bun.file(path).size;
      const tail = new Uint8Array(TAIL_BYTES);
      readSync(fd, tail, 0, TAIL_BYTES, size - TAIL_BYTES);
      if (decoder.decode(tail.subarray(4)) !== MAGIC) throw new Error(`not a signature index run: ${path}`);
      const footerLength = new DataView(tail.buffer).getUint32(0, true);
      const footerBytes = new Uint8Array(footerLength);
      readSync(fd, footerBytes, 0, footerLength, size - TAIL_BYTES - footerLength);
      const footer = JSON.parse(decoder.decode(footerBytes)) as RunFooter;
      const indexBytes = new Uint8Array(footer.blocksIndex.length);
      readSync(fd, indexBytes, 0, indexBytes.length, footer.blocksIndex.offset);
      const index = JSON.parse(decoder.decode(Bun.zstdDecompressSync(indexBytes))) as [string, number, number][];
      return new RunReader(path, footer, fd, index);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {}
  }

  /** The lines holding `sig` (`sig\tattemptId\tjson`), in attempt id order; [] when the run has none. */
  lookup(sig: string): string[] {
    if (this.footer.entries === 0) return [];
    const { offset, blocks } = this.footer.bloom;
    const filterBlock = new Uint8Array(BLOOM_BLOCK_BYTES);
    readSync(this.fd, filterBlock, 0, BLOOM_BLOCK_BYTES, offset + bloomBlockOf(sig, blocks) * BLOOM_BLOCK_BYTES);
    if (!bloomBlockMayHold(filterBlock, sig, blocks)) return [];
    const prefix = sig.slice(0, PREFIX);
    // Blocks that may hold it: the last one starting before its prefix, and every one starting with it.
    let lo = 0;
    let hi = this.index.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.index[mid][0] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: string[] = [];
    for (let b = Math.max(0, lo - 1); b < this.index.length && (b < lo || this.index[b][0] === prefix); b++) {
      // The block's lines for `sig`, found in its text without splitting every line.
      const text = `\n${this.blockText(b)}\n`;
      for (let at = text.indexOf(`\n${sig}\t`); at >= 0; at = text.indexOf(`\n${sig}\t`, at + 1))
        found.push(text.slice(at + 1, text.indexOf("\n", at + 1)));
    }
    return found;
  }

  /** Every line of the run in order (merges read runs whole). */
  *lines(): Generator<string> {
    for (let b = 0; b < this.index.length; b++) yield* this.blockLines(b);
  }

  private blockLines(b: number): string[] {
    return this.blockText(b).split("\n");
  }

  private blockText(b: number): string {
    const [, offset, length] = this.index[b];
    const bytes = new Uint8Array(length);
    readSync(this.fd, bytes, 0, length, offset);
    return decoder.decode(Bun.zstdDecompressSync(bytes));
  }
}

/** A line's parts. */
export function parseLine(text: string): IndexEntry {
  const a = text.indexOf("\t");
  const b = text.indexOf("\t", a + 1);
  return { sig: text.slice(0, a), attemptId: text.slice(a + 1, b), value: JSON.parse(text.slice(b + 1)) };
}

/** The sort key of a line (signature, attempt id) without parsing its value. */
export function lineKey(text: string): { sig: string; attemptId: string } {
  const a = text.indexOf("\t");
  const b = text.indexOf("\t", a + 1);
  return { sig: text.slice(0, a), attemptId: text.slice(a + 1, b) };
}
