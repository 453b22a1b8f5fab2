// Build step of the wallet pages (format and reader: serving/wallet-pages.ts): DuckDB groups the
// attempts per (program, payer) into JSON lines and writes them and their index as two flat files
// next to the serving database, without passing rows through JavaScript. Lines are built and
// written part by part (a hash of the payer), so memory holds one part's lines, not all of them.
// The files are checked against the lengths DuckDB computed and a sample of wallets is read back;
// on any mismatch they are removed and readers of this version answer wallet pages from
// `attempts` instead (slower, same answers).

import { closeSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { sqlFile } from "../sql";
import { INDEX_RECORD_BYTES, WalletPages } from "../serving/wallet-pages";

/** Wallets with more attempts than this are read from `attempts` (a line would be too long to parse per request). */
export const WALLET_LINE_MAX_ITEMS = 1000;

/** Wallets read back after writing (plus the first and last lines). */
const VERIFY_SAMPLE = 256;

type Session = { run(sql: string): Promise<void>; all<T = Record<string, unknown>>(sql: string): Promise<T[]> };
export type WalletPagesResult = { wallets: number; bytes: number } | { skipped: string };
export type WalletPagesOptions = {
  since: number;
  until: number;
  maxItems?: number;
  /** Most attempts turned into lines by one aggregate (bounds its memory: the build derives it from DUCKDB_MEMORY_LIMIT). */
  attemptsPerPart: number;
};

export async function writeWalletPages(session: Session, files: { data: string; index: string }, options: WalletPagesOptions): Promise<WalletPagesResult> {
  await session.run(sqlFile("json_text"));
  await session.run("CREATE TEMP TABLE wallet_offsets (key VARCHAR, program VARCHAR, payer VARCHAR, line_length BIGINT, line_offset BIGINT)");
  const [window] = await session.all<{ n: number }>(`SELECT count(*) AS n FROM attempts WHERE received_at BETWEEN ${options.since} AND ${options.until}`);
  const parts = Math.max(1, Math.ceil(Number(window.n) / options.attemptsPerPart));
  const partFile = `${files.data}.part`;
  writeFileSync(files.data, "");
  let bytes = 0;
  try {
    for (let part = 0; part < parts; part++) {
      await session.run(sqlFile("wallet_lines", { since: options.since, until: options.until, maxItems: options.maxItems ?? WALLET_LINE_MAX_ITEMS, parts, part }));
      const [totals] = await session.all<{ bytes: number | null; longest: number | null }>(
        "SELECT sum(strlen(line) + 1) AS bytes, max(strlen(line) + 1) AS longest FROM wallet_lines",
      );
      // The index has 12 digits of offset and 8 of length.
      if (bytes + Number(totals.bytes ?? 0) >= 1e12 || Number(totals.longest ?? 0) >= 1e8) return await skip(session, files, "wallet lines exceed the index's field widths");
      try {
        // COPY keeps ORDER BY only with insertion order preserved (the build turns it off for speed).
        await session.run("SET preserve_insertion_order = true");
        await session.run(sqlFile("wallet_pages_files", { dataFile: partFile, base: bytes, delimiter: "\u0001", quote: "\u0002" }));
      } finally {
        await session.run("SET preserve_insertion_order = false");
      }
      await session.run("DROP TABLE wallet_lines");
      if (statSync(partFile).size !== Number(totals.bytes ?? 0)) return await skip(session, files, "wallet pages files do not have the computed sizes");
      appendFile(files.data, partFile);
      bytes += Number(totals.bytes ?? 0);
    }
    await session.run("SET preserve_insertion_order = true");
    await session.run(sqlFile("wallet_index_file", { indexFile: files.index, delimiter: "\u0001", quote: "\u0002" }));
  } finally {
    rmSync(partFile, { force: true });
    await session.run("SET preserve_insertion_order = false");
  }
  const [{ wallets }] = await session.all<{ wallets: number }>("SELECT count(*) AS wallets FROM wallet_offsets");
  if (statSync(files.data).size !== bytes || statSync(files.index).size !== Number(wallets) * INDEX_RECORD_BYTES) {
    return await skip(session, files, "wallet pages files do not have the computed sizes");
  }
  const sample = await session.all<{ program: string; payer: string }>(
    `SELECT program, payer FROM wallet_offsets WHERE rowid IN (0, ${Number(wallets) - 1}) OR hash(rowid) % ${Math.max(1, Math.ceil(Number(wallets) / VERIFY_SAMPLE))} = 0`,
  );
  if (!(await readsBack(files, sample))) return await skip(session, files, "wallet pages do not read back");
  await session.run("DROP TABLE wallet_offsets");
  return { wallets: Number(wallets), bytes };
}

/** Appends a file to another in 8 MiB reads (a part can be hundreds of megabytes). */
function appendFile(target: string, source: string): void {
  const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
  const input = openSync(source, "r");
  const output = openSync(target, "a");
  try {
    for (;;) {
      const read = readSync(input, buffer, 0, buffer.length, null);
      if (read === 0) break;
      let written = 0;
      while (written < read) written += writeSync(output, buffer, written, read - written);
    }
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

/** Whether every sampled wallet is found through the index (its offset leads to its own line). */
async function readsBack(files: { data: string; index: string }, sample: { program: string; payer: string }[]): Promise<boolean> {
  const pages = await WalletPages.open(files);
  if (!pages) return sample.length === 0;
  try {
    return sample.every((wallet) => pages.find(wallet.program, wallet.payer) !== null);
  } catch {
    return false;
  } finally {
    pages.close();
  }
}

/** Removes a version's wallet pages (a failed build, or files that did not check out). */
export function removeWalletPages(files: { data: string; index: string }): void {
  rmSync(files.data, { force: true });
  rmSync(files.index, { force: true });
}

async function skip(session: Session, files: { data: string; index: string }, reason: string): Promise<WalletPagesResult> {
  await session.run("DROP TABLE IF EXISTS wallet_lines; DROP TABLE IF EXISTS wallet_offsets");
  removeWalletPages(files);
  return { skipped: reason };
}
