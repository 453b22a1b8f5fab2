// The wallet store's files (docs/serving.md#wallet-store): a wallet page is read from a few of these
// with a Bloom filter test, a binary search and one zstd block, never through DuckDB (a DuckDB
// query over a month of Parquet files cost 15–50 ms; this costs tens of microseconds per file).
// One segment holds the attempts received on one UTC day (all of them once the day is merged; a
// refresh's new ones before), grouped per wallet (program, payer) in lines sorted by key:
//
//   <key>\t<header>\t<items>\n
//   key     first 16 hex digits of md5("<program>/<payer>")
//   header  [program, payer, newestSentAt, oldestSentAt, {accountId: [landed, failedOnchain, dropped, preflight, pending]}]
//   items   [[sig, sentAt, receivedAt, outcome, dropClass, instruction, errName, rpcLabel, attemptKey, accountId, version], ...]
//           in no particular order (readers sort them: newest first is sentAt, then attemptKey,
//           descending); at most LINE_ITEMS per line: a larger wallet's newest LINE_ITEMS first,
//           the next ones in the line after it (same key)
//
// File: "TXWSEG1\n", zstd-compressed blocks of whole lines (~BLOCK_BYTES raw), then a JSON footer
// { day, items, wallets, blocks: [[firstKey, offset, length]], bloom: base64, bloomBits }, its
// length (u32 LE) and "TXWSEG1\n" again. Files are written to a temporary name and renamed; a
// version lists the files it reads (serving/reader.ts).

import { closeSync, fsyncSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { TxrayError } from "../../shared/errors";
import { detachedString } from "../../shared/intern";
import { pauser } from "../../shared/pause";

export const LINE_ITEMS = 500;
const MAGIC = Buffer.from("TXWSEG1\n");
const BLOCK_BYTES = 32 * 1024;
const BLOOM_BITS_PER_WALLET = 10;
const BLOOM_HASHES = 7;

/** One attempt in a line (positional, to keep lines short). */
export type WalletItemTuple = [
  sig: string | null, sentAt: number, receivedAt: number, outcome: string | null, dropClass: string | null,
  instruction: string | null, errName: string | null, rpcLabel: string, attemptKey: string, accountId: string, version: number,
];
/** Per account: [landed, failedOnchain, dropped, preflight, pending]. */
export type WalletCounts = Record<string, [number, number, number, number, number]>;
export type WalletLineHeader = [program: string, payer: string, newestSentAt: number, oldestSentAt: number, counts: WalletCounts];
export type WalletLine = { key: string; header: WalletLineHeader; items: () => WalletItemTuple[]; text: string };

export function walletKey(program: string, payer: string): string {
  return new Bun.CryptoHasher("md5").update(`${program}/${payer}`).digest("hex").slice(0, 16);
}

/** attempt keys are decimal UBIGINTs without leading zeros: compare by length, then digits. */
export function compareAttemptKeys(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/** Newest first: sentAt descending, then attempt key descending (what a wallet cursor encodes). */
export function newestFirst(a: WalletItemTuple, b: WalletItemTuple): number {
  return b[1] - a[1] || compareAttemptKeys(b[8], a[8]);
}

/** Two 32-bit halves of a key (double hashing). */
function keyHalves(key: string): [h1: number, h2: number] {
  return [Number.parseInt(key.slice(0, 8), 16), (Number.parseInt(key.slice(8, 16), 16) | 1) >>> 0];
}

function bloomPositions(key: string, bits: number): number[] {
  const [h1, h2] = keyHalves(key);
  return positionsOf(h1, h2, bits);
}

function positionsOf(h1: number, h2: number, bits: number): number[] {
  // The halves' combinations stay exact in a double.
  const out: number[] = [];
  for (let i = 0; i < BLOOM_HASHES; i++) out.push((h1 + i * h2) % bits);
  return out;
}

type Footer = { day: number; items: number; wallets: number; blocks: [string, number, number][]; bloom: string; bloomBits: number };

/** Writes a segment from lines given in key order. */
export class SegmentWriter {
  private readonly fd: number;
  private offset = MAGIC.length;
  private readonly blocks: [string, number, number][] = [];
  private pending: string[] = [];
  private pendingBytes = 0;
  private pendingFirstKey: string | null = null;
  /** Each wallet key's two halves (bloomPositions' hashes): a key sliced from a line would keep its block alive until close. */
  private readonly keyHalves: number[] = [];
  private lastKey = "";
  private items = 0;

  constructor(private readonly path: string, private readonly day: number) {
    this.fd = openSync(`${path}.tmp`, "w");
    writeSync(this.fd, MAGIC);
  }

  /** A line `key\theader\titems` (no newline), in key order; `items`: how many attempts it holds. */
  add(line: string, items: number): void {
    const key = line.slice(0, 16);
    if (key < this.lastKey) throw new Error(`wallet segment ${this.path}: lines out of key order`);
    if (key !== this.lastKey) this.keyHalves.push(...keyHalves(key));
    this.lastKey = key;
    this.pendingFirstKey ??= detachedString(key);
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    this.items += items;
    if (this.pendingBytes >= BLOCK_BYTES) this.flushBlock();
  }

  private flushBlock(): void {
    if (this.pending.length === 0) return;
    const compressed = Bun.zstdCompressSync(Buffer.from(this.pending.join("\n") + "\n"), { level: 3 });
    writeAll(this.fd, compressed);
    this.blocks.push([this.pendingFirstKey!, this.offset, compressed.length]);
    this.offset += compressed.length;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingFirstKey = null;
  }

  /** Finishes the file (fsync, rename); returns its size, wallets and items. */
  close(): { bytes: number; wallets: number; items: number } {
    this.flushBlock();
    const wallets = this.keyHalves.length / 2;
    const bloomBits = Math.max(1024, wallets * BLOOM_BITS_PER_WALLET);
    const bloom = new Uint8Array(Math.ceil(bloomBits / 8));
    for (let k = 0; k < this.keyHalves.length; k += 2) {
      for (const bit of positionsOf(this.keyHalves[k], this.keyHalves[k + 1], bloomBits)) bloom[bit >> 3] |= 1 << (bit & 7);
    }
    const footer: Footer = { day: this.day, items: this.items, wallets, blocks: this.blocks, bloom: Buffer.from(bloom).toString("base64"), bloomBits };
    const text = Buffer.from(JSON.stringify(footer));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(text.length);
    writeAll(this.fd, text);
    writeAll(this.fd, length);
    writeAll(this.fd, MAGIC);
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(`${this.path}.tmp`, this.path);
    return { bytes: this.offset + text.length + 4 + MAGIC.length, wallets, items: this.items };
  }

  abort(): void {
    try {
      closeSync(this.fd);
    } catch {}
  }
}

function writeAll(fd: number, buffer: Uint8Array): void {
  let done = 0;
  while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error("wallet segment: unexpected end of file");
    done += read;
  }
  return buffer;
}

export function parseLine(text: string): WalletLine {
  const first = text.indexOf("\t");
  const second = text.indexOf("\t", first + 1);
  let items: WalletItemTuple[] | null = null;
  return {
    key: text.slice(0, first),
    header: JSON.parse(text.slice(first + 1, second)) as WalletLineHeader,
    items: () => (items ??= JSON.parse(text.slice(second + 1)) as WalletItemTuple[]),
    text,
  };
}

/** A segment opened for reading (a descriptor, its block index and Bloom filter in memory). */
export class WalletSegment {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly footer: Footer,
    private readonly bloom: Buffer,
  ) {}

  static open(path: string): WalletSegment {
    const fd = openSync(path, "r");
    try {
      const size = Bun.file(path).size;
      const tail = readAt(fd, 4 + MAGIC.length, size - 4 - MAGIC.length);
      if (!tail.subarray(4).equals(MAGIC)) throw new Error(`${path}: not a wallet segment`);
      const length = tail.readUInt32LE(0);
      const footer = JSON.parse(readAt(fd, length, size - 4 - MAGIC.length - length).toString("utf8")) as Footer;
      return new WalletSegment(path, fd, footer, Buffer.from(footer.bloom, "base64"));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  get day(): number {
    return this.footer.day;
  }

  get items(): number {
    return this.footer.items;
  }

  mayHave(key: string): boolean {
    return bloomPositions(key, this.footer.bloomBits).every((bit) => (this.bloom[bit >> 3] & (1 << (bit & 7))) !== 0);
  }

  private block(index: number): string[] {
    if (this.closed) throw new TxrayError("unavailable", "serving tables were switched; retry");
    const [, offset, length] = this.footer.blocks[index];
    const text = Bun.zstdDecompressSync(readAt(this.fd, length, offset)).toString("utf8");
    return text.slice(0, -1).split("\n");
  }

  /** The lines of a wallet (in file order: newest items first). */
  find(program: string, payer: string, key = walletKey(program, payer)): WalletLine[] {
    if (!this.mayHave(key)) return [];
    const blocks = this.footer.blocks;
    // First block whose first key is >= key; the wallet may start in the block before it.
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (blocks[mid][0] < key) lo = mid + 1;
      else hi = mid;
    }
    const out: WalletLine[] = [];
    for (let index = Math.max(0, lo - 1); index < blocks.length && blocks[index][0] <= key; index++) {
      for (const text of this.block(index)) {
        const lineKey = text.slice(0, 16);
        if (lineKey < key) continue;
        if (lineKey > key) return out;
        const line = parseLine(text);
        // Keys are hash prefixes: a line names its wallet, so a collision is skipped.
        if (line.header[0] === program && line.header[1] === payer) out.push(line);
      }
    }
    return out;
  }

  /** Every line in key order (merges read segments this way). */
  *lines(): Generator<string> {
    for (let index = 0; index < this.footer.blocks.length; index++) yield* this.block(index);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** How many items a line holds (the sum of its header's counts). */
export function itemsOf(header: WalletLineHeader): number {
  let n = 0;
  for (const counts of Object.values(header[4])) for (const c of counts) n += c;
  return n;
}

/** Counts of items by account and outcome (a line's header). */
export function countItems(items: WalletItemTuple[]): WalletCounts {
  const counts: WalletCounts = {};
  for (const item of items) {
    const c = (counts[item[9]] ??= [0, 0, 0, 0, 0]);
    const outcome = item[3];
    c[outcome === "landed" ? 0 : outcome === "failed_onchain" ? 1 : outcome === "dropped" ? 2 : outcome === "preflight" ? 3 : 4]++;
  }
  return counts;
}

/** The lines of one wallet's items (newest first), LINE_ITEMS at a time, with how many items each holds. */
export function walletLines(key: string, program: string, payer: string, items: WalletItemTuple[]): { text: string; items: number }[] {
  const out: { text: string; items: number }[] = [];
  for (let at = 0; at < items.length; at += LINE_ITEMS) {
    const chunk = items.slice(at, at + LINE_ITEMS);
    const header: WalletLineHeader = [program, payer, chunk[0][1], chunk[chunk.length - 1][1], countItems(chunk)];
    out.push({ text: `${key}\t${JSON.stringify(header)}\t${JSON.stringify(chunk)}`, items: chunk.length });
  }
  return out;
}

/**
 * Merges segments into one (the wallet store's compaction): lines in key order; a wallet found in
 * several keeps each attempt once, in its newest version.
 */
export async function mergeSegments(inputs: WalletSegment[], path: string, day: number): Promise<{ bytes: number; wallets: number; items: number }> {
  const writer = new SegmentWriter(path, day);
  // A day's merge of a busy lake takes seconds on the main thread: ingest and reads go on meanwhile.
  const pause = pauser();
  try {
    const iterators = inputs.map((segment) => segment.lines()[Symbol.iterator]());
    const heads: (string | null)[] = iterators.map((it) => it.next().value ?? null);
    const wallet = (text: string) => {
      const first = text.indexOf("\t");
      const header = text.slice(first + 1, text.indexOf("\t", first + 1));
      // key, then program and payer (the header's first two fields) decide the order.
      return `${text.slice(0, 16)}\t${header.slice(1, header.indexOf(",", header.indexOf(",") + 1))}`;
    };
    for (;;) {
      await pause.maybe();
      let smallest: string | null = null;
      for (const head of heads) if (head !== null && (smallest === null || wallet(head) < smallest)) smallest = wallet(head);
      if (smallest === null) break;
      // Every line of that wallet from every input.
      const lines: string[][] = [];
      for (let i = 0; i < heads.length; i++) {
        const mine: string[] = [];
        while (heads[i] !== null && wallet(heads[i]!) === smallest) {
          mine.push(heads[i]!);
          heads[i] = iterators[i].next().value ?? null;
        }
        if (mine.length > 0) lines.push(mine);
      }
      if (lines.length === 1) {
        for (const text of lines[0]) writer.add(text, itemsOf(parseLine(text).header));
        continue;
      }
      const newest = new Map<string, WalletItemTuple>();
      let program = "";
      let payer = "";
      for (const text of lines.flat()) {
        const line = parseLine(text);
        [program, payer] = line.header;
        for (const item of line.items()) {
          const seen = newest.get(item[8]);
          if (!seen || item[10] > seen[10]) newest.set(item[8], item);
        }
      }
      const items = [...newest.values()].sort(newestFirst);
      for (const line of walletLines(smallest.slice(0, 16), program, payer, items)) writer.add(line.text, line.items);
    }
    return writer.close();
  } catch (error) {
    writer.abort();
    throw error;
  }
}
