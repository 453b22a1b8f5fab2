// Writes the wallet store (format: serving/wallet-segments.ts; how it is read:
// queries/wallet-history.ts). Each refresh writes one small segment per receipt day of its new
// attempt versions (`wallet_changes`); segments of a day are merged FANOUT at a time into larger
// ones, and a day that is over into one. A write or merge costs what it rewrites, so a refresh's
// share stays in proportion to what arrived (log-structured, like the lake's compaction). Which
// segments a version reads is in the state (`wallet_files`) and in the version's manifest.

import { closeSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sqlString } from "../../lake/duckdb";
import { sqlFile } from "../sql";
import { pauser } from "../../shared/pause";
import { mergeSegments, SegmentWriter, WalletSegment, LINE_ITEMS } from "../serving/wallet-segments";
import type { StateDb } from "./state";
import { DAY_MS, HOUR_MS } from "./window-bounds";

/** Segments of one level merged into one of the next. */
export const FANOUT = 8;
/** A day's segments are merged into one once the day has been over this long (late resolutions are rare after). */
const SETTLE_MS = 2 * HOUR_MS;
/** The level of a day's single merged segment. */
const FINAL_LEVEL = 9;

export const walletsDir = (tablesDir: string) => join(tablesDir, "wallets");
export type WalletFile = { day: number; name: string; level: number; items: number; bytes: number };

/** The first wallet key (4 hex digits) of the `pass`-th of `passes` even key ranges. */
const keyBound = (pass: number, passes: number) => Math.floor((pass * 0x10000) / passes).toString(16).padStart(4, "0");

/**
 * Writes the lines of `source` (attempt rows, several versions of an attempt allowed: the resolved
 * one wins) received on `day` as one segment; null when there are none. The lines are built in key
 * ranges of about `passRows` attempts each (the aggregation holds a range's lines in memory: a
 * whole day of a large lake at once ran out of DUCKDB_MEMORY_LIMIT), then written in key order.
 */
export async function writeSegment(
  state: StateDb, tablesDir: string, source: string, day: number, version: number, level: number, suffix: string, passRows: number,
): Promise<WalletFile | null> {
  const dir = walletsDir(tablesDir);
  mkdirSync(dir, { recursive: true });
  const name = `${new Date(day * DAY_MS).toISOString().slice(0, 10)}-v${version}-${suffix}.wseg`;
  const [{ n }] = await state.all<{ n: number }>(`SELECT count(*) AS n FROM ${source} WHERE received_at // ${DAY_MS} = ${day}`);
  if (Number(n) === 0) return null;
  const passes = Math.min(0x10000, Math.max(1, Math.ceil(Number(n) / passRows)));
  const linesFiles = Array.from({ length: passes }, (_, pass) => join(dir, `${name}.lines-${pass}`));
  await state.run(sqlFile("json_text"));
  try {
    for (let pass = 0; pass < passes; pass++) {
      const key = "md5(program || '/' || payer)[1:16]";
      const range = [pass > 0 ? `${key} >= '${keyBound(pass, passes)}'` : "true", pass < passes - 1 ? `${key} < '${keyBound(pass + 1, passes)}'` : "true"].join(" AND ");
      await writeLines(state, source, day, range, version, linesFiles[pass]);
    }
    const writer = new SegmentWriter(join(dir, name), day);
    let written = 0;
    // Compressing a large day's lines takes seconds on the main thread: ingest and reads go on meanwhile.
    const pause = pauser();
    try {
      for (const file of linesFiles) {
        for (const row of readLines(file)) {
          await pause.maybe();
          const cut = row.lastIndexOf("\u0001");
          writer.add(row.slice(0, cut), Number(row.slice(cut + 1)));
          written++;
        }
      }
    } catch (error) {
      writer.abort();
      throw error;
    }
    const result = writer.close();
    if (written === 0) {
      rmSync(join(dir, name), { force: true });
      return null;
    }
    return { day, name, level, items: result.items, bytes: result.bytes };
  } finally {
    for (const file of linesFiles) rmSync(file, { force: true });
  }
}

/** One key range's lines of a day, in key order, to a text file (line \u0001 item count). */
async function writeLines(state: StateDb, source: string, day: number, range: string, version: number, linesFile: string): Promise<void> {
  await state.run("SET preserve_insertion_order = true");
  try {
    // Items of a line are not ordered (an ordered string_agg cost 5× the plain one): readers sort
    // a wallet's items. Only a wallet with more than LINE_ITEMS is ranked, to cut it into lines.
    // Text that comes from clients or IDLs goes through json_text; ids, base58 and outcomes do not need escaping.
    await state.run(`COPY (
      WITH rows AS (
        SELECT md5(program || '/' || payer)[1:16] AS key, program, payer, account_id, sent_at, attempt_key, outcome,
          '[' || coalesce('"' || sig || '"', 'null') || ',' || sent_at || ',' || received_at || ',' || coalesce('"' || outcome || '"', 'null') || ',' ||
            coalesce('"' || drop_class || '"', 'null') || ',' || json_text(instruction) || ',' || json_text(err_name) || ',' || json_text(rpc_label) || ',"' ||
            attempt_key || '",' || json_text(account_id) || ',' || ${version} || ']' AS item,
          count(*) OVER (PARTITION BY program, payer) AS wallet_items
        FROM (SELECT DISTINCT ON (attempt_key) * FROM ${source} WHERE received_at // ${DAY_MS} = ${day} AND ${range} ORDER BY attempt_key, resolved_at IS NULL)
      ), items AS (
        SELECT * EXCLUDE (wallet_items), 0 AS chunk FROM rows WHERE wallet_items <= ${LINE_ITEMS}
        UNION ALL
        SELECT * EXCLUDE (wallet_items), (row_number() OVER (PARTITION BY program, payer ORDER BY sent_at DESC, attempt_key DESC) - 1) // ${LINE_ITEMS} AS chunk
        FROM rows WHERE wallet_items > ${LINE_ITEMS}
      ), counts AS (
        SELECT key, program, payer, chunk, '{' || string_agg(json_text(account_id) || ':[' || landed || ',' || failed || ',' || dropped || ',' || preflight || ',' || pending || ']', ',') || '}' AS counts
        FROM (SELECT key, program, payer, chunk, account_id, count(*) FILTER (WHERE outcome = 'landed') AS landed,
                count(*) FILTER (WHERE outcome = 'failed_onchain') AS failed, count(*) FILTER (WHERE outcome = 'dropped') AS dropped,
                count(*) FILTER (WHERE outcome = 'preflight') AS preflight, count(*) FILTER (WHERE outcome IS NULL) AS pending
              FROM items GROUP BY ALL)
        GROUP BY ALL
      ), lines AS (
        SELECT key, program, payer, chunk, max(sent_at) AS newest, min(sent_at) AS oldest, count(*) AS n, string_agg(item, ',') AS items
        FROM items GROUP BY ALL
      )
      SELECT l.key || chr(9) || '[' || json_text(l.program) || ',' || json_text(l.payer) || ',' || l.newest || ',' || l.oldest || ',' || c.counts || ']' || chr(9) || '[' || l.items || ']' AS line, l.n
      FROM lines l JOIN counts c USING (key, program, payer, chunk)
      ORDER BY l.key, l.program, l.payer, l.chunk
    ) TO ${sqlString(linesFile)} (FORMAT csv, HEADER false, DELIMITER '\u0001', QUOTE '\u0002', ESCAPE '\u0002')`);
  } finally {
    // Not thrown: after a failed COPY the transaction is aborted, and this error would hide the COPY's.
    await state.run("SET preserve_insertion_order = false").catch(() => undefined);
  }
}

/** The lines of a text file, read 8 MiB at a time. */
function* readLines(file: string): Generator<string> {
  const fd = openSync(file, "r");
  const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
  let carry = "";
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const text = carry + buffer.toString("utf8", 0, read);
      const lines = text.split("\n");
      carry = lines.pop()!;
      yield* lines;
    }
    if (carry.length > 0) yield carry;
  } finally {
    closeSync(fd);
  }
}

/** This refresh's new versions (wallet_changes) as one segment per receipt day. */
export async function writeChanges(state: StateDb, tablesDir: string, version: number, passRows: number): Promise<WalletFile[]> {
  const days = await state.all<{ day: number }>(`SELECT DISTINCT received_at // ${DAY_MS} AS day FROM wallet_changes ORDER BY day`);
  const files: WalletFile[] = [];
  for (const { day } of days) {
    const file = await writeSegment(state, tablesDir, "wallet_changes", Number(day), version, 0, "0", passRows);
    if (file) files.push(file);
  }
  return files;
}

/**
 * Merges segments: FANOUT of a level into one of the next; every segment of a day over for
 * SETTLE_MS into one. At most `budgetItems` items are rewritten per refresh (the rest waits).
 */
export function mergePlan(files: WalletFile[], clock: number, budgetItems: number): WalletFile[][] {
  const plans: WalletFile[][] = [];
  let budget = budgetItems;
  const byDay = new Map<number, WalletFile[]>();
  for (const file of files) byDay.set(file.day, [...(byDay.get(file.day) ?? []), file]);
  for (const [day, dayFiles] of [...byDay].sort(([a], [b]) => b - a)) {
    const settled = clock >= (day + 1) * DAY_MS + SETTLE_MS;
    if (settled) {
      if (dayFiles.length > 1 || (dayFiles.length === 1 && dayFiles[0].level !== FINAL_LEVEL)) {
        const items = dayFiles.reduce((n, f) => n + f.items, 0);
        if (items <= budget || plans.length === 0) {
          plans.push(dayFiles);
          budget -= items;
        }
      }
      continue;
    }
    for (let level = 0; level < FINAL_LEVEL; level++) {
      const same = dayFiles.filter((f) => f.level === level).sort((a, b) => (a.name < b.name ? -1 : 1));
      if (same.length < FANOUT) continue;
      const group = same.slice(0, FANOUT);
      const items = group.reduce((n, f) => n + f.items, 0);
      if (items > budget && plans.length > 0) continue;
      plans.push(group);
      budget -= items;
    }
  }
  return plans;
}

/** Runs the merges of a plan; returns the files that replace them. */
export async function runMerges(tablesDir: string, plans: WalletFile[][], version: number, clock: number): Promise<{ removed: WalletFile[]; added: WalletFile[] }> {
  const dir = walletsDir(tablesDir);
  const removed: WalletFile[] = [];
  const added: WalletFile[] = [];
  for (const [i, group] of plans.entries()) {
    const day = group[0].day;
    const settled = clock >= (day + 1) * DAY_MS + SETTLE_MS;
    const level = settled ? FINAL_LEVEL : Math.max(...group.map((f) => f.level)) + 1;
    const name = `${new Date(day * DAY_MS).toISOString().slice(0, 10)}-v${version}-m${i}.wseg`;
    const inputs = group.map((f) => WalletSegment.open(join(dir, f.name)));
    try {
      const result = await mergeSegments(inputs, join(dir, name), day);
      added.push({ day, name, level, items: result.items, bytes: result.bytes });
      removed.push(...group);
    } finally {
      for (const input of inputs) input.close();
    }
  }
  return { removed, added };
}
