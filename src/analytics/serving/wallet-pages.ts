// Read side of the wallet pages: the wallet route's point lookup without DuckDB. A DuckDB query
// costs milliseconds even when zone maps prune to one row group; this is a binary search and two
// preads (tens of microseconds). Format (written by tables/wallet-pages.ts, one pair per version):
//
//   serving-<n>.wallets      one line per (program, payer) of the retained attempts, in key order:
//                            [program, payer, items, walletKey] where items = [[sig, sentAt,
//                            receivedAt, outcome, dropClass, instruction, errName, rpcLabel,
//                            attemptKey, accountId], ...] (any order), or null with the DuckDB
//                            wallet_key for a wallet too large for a line (read from `attempts`)
//   serving-<n>.wallets.idx  fixed-width records `<key:16 hex><offset:12><length:8>\n`, sorted,
//                            key = first 16 hex digits of md5("<program>/<payer>")
//
// At open only every BLOCK-th key is kept in memory (tens of thousands of short strings); a lookup
// finds the block, reads it, then reads the line. Files are read with pread on a descriptor
// closed with the version, never mapped (an unlinked file stays readable while open).

import { closeSync, existsSync, openSync, promises as fsPromises, readSync } from "node:fs";
import { TxrayError } from "../../shared/errors";

export const INDEX_RECORD_BYTES = 37;
const KEY_CHARS = 16;
const BLOCK = 64;

/** One attempt as stored in a wallet line (positional, to keep lines short). */
export type WalletItemTuple = [
  sig: string | null, sentAt: number, receivedAt: number, outcome: string | null, dropClass: string | null,
  instruction: string | null, errName: string | null, rpcLabel: string, attemptKey: string, accountId: string,
];
/** A wallet's attempts (newest first), or the DuckDB wallet_key of a wallet stored only in `attempts`. */
export type WalletRecord = { items: WalletItemTuple[] } | { walletKey: string };

export function walletPageKey(program: string, payer: string): string {
  return new Bun.CryptoHasher("md5").update(`${program}/${payer}`).digest("hex").slice(0, KEY_CHARS);
}

/** attempt keys are decimal UBIGINTs without leading zeros: compare by length, then digits. */
export function compareAttemptKeys(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/** Wallet pages order: sent_at descending, then attempt key descending (what the cursor encodes). */
export function newestFirst(a: WalletItemTuple, b: WalletItemTuple): number {
  return b[1] - a[1] || compareAttemptKeys(b[8], a[8]);
}

export class WalletPages {
  private closed = false;

  private constructor(
    private readonly dataFd: number,
    private readonly indexFd: number,
    private readonly records: number,
    /** The key of every BLOCK-th index record. */
    private readonly blockKeys: string[],
  ) {}

  /**
   * Opens a version's wallet pages; null when it has none (built before they existed) or they are
   * inconsistent. The index is read in large asynchronous chunks: opening a new version in the
   * background must not stall the requests still being answered from the current one.
   */
  static async open(files: { data: string; index: string }): Promise<WalletPages | null> {
    if (!existsSync(files.data) || !existsSync(files.index)) return null;
    const index = await fsPromises.open(files.index, "r");
    try {
      const size = (await index.stat()).size;
      if (size % INDEX_RECORD_BYTES !== 0) return null;
      const records = size / INDEX_RECORD_BYTES;
      const blockKeys: string[] = [];
      const chunkRecords = BLOCK * 1024;
      const chunk = Buffer.allocUnsafe(chunkRecords * INDEX_RECORD_BYTES);
      for (let first = 0; first < records; first += chunkRecords) {
        const count = Math.min(chunkRecords, records - first);
        const want = count * INDEX_RECORD_BYTES;
        for (let done = 0; done < want; ) {
          const { bytesRead } = await index.read(chunk, done, want - done, first * INDEX_RECORD_BYTES + done);
          if (bytesRead === 0) return null;
          done += bytesRead;
        }
        for (let r = 0; r < count; r += BLOCK) blockKeys.push(chunk.toString("latin1", r * INDEX_RECORD_BYTES, r * INDEX_RECORD_BYTES + KEY_CHARS));
      }
      return new WalletPages(openSync(files.data, "r"), openSync(files.index, "r"), records, blockKeys);
    } finally {
      await index.close();
    }
  }

  get wallets(): number {
    return this.records;
  }

  /** The wallet's record; null when the wallet has no retained attempts on the program. */
  find(program: string, payer: string): WalletRecord | null {
    if (this.closed) throw new TxrayError("unavailable", "serving tables were switched; retry");
    const key = walletPageKey(program, payer);
    // First block whose first key is >= key; matches start in the block before it at the earliest.
    let lo = 0;
    let hi = this.blockKeys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.blockKeys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    let record = Math.max(0, lo - 1) * BLOCK;
    const buffer = Buffer.allocUnsafe(2 * BLOCK * INDEX_RECORD_BYTES);
    while (record < this.records) {
      const count = Math.min(2 * BLOCK, this.records - record);
      readFully(this.indexFd, buffer, count * INDEX_RECORD_BYTES, record * INDEX_RECORD_BYTES);
      for (let i = 0; i < count; i++) {
        const at = i * INDEX_RECORD_BYTES;
        const candidate = buffer.toString("latin1", at, at + KEY_CHARS);
        if (candidate > key) return null;
        if (candidate < key) continue;
        const offset = Number(buffer.toString("latin1", at + KEY_CHARS, at + KEY_CHARS + 12));
        const length = Number(buffer.toString("latin1", at + KEY_CHARS + 12, at + KEY_CHARS + 20));
        const line = this.readLine(offset, length);
        // Keys are hash prefixes: the line names its wallet, a collision moves on to the next record.
        if (line[0] === program && line[1] === payer) return line[2] !== null ? { items: line[2].sort(newestFirst) } : { walletKey: line[3]! };
      }
      record += count;
    }
    return null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.dataFd);
    closeSync(this.indexFd);
  }

  private readLine(offset: number, length: number): [string, string, WalletItemTuple[] | null, string | null] {
    const bytes = Buffer.allocUnsafe(length);
    readFully(this.dataFd, bytes, length, offset);
    return JSON.parse(bytes.toString("utf8", 0, length - 1));
  }
}

function readFully(fd: number, buffer: Buffer, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error("wallet pages: unexpected end of file");
    done += read;
  }
}
