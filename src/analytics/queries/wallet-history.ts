// wallet/{program}/{wallet}: one payer's attempts on a program in the window, newest first, keyset
// paginated (opaque signed cursor), with a Rates summary of the whole window. Read from the
// version's wallet store (serving/wallets.ts, serving/wallet-segments.ts), never through DuckDB:
// each receipt day's segments are tested (Bloom filter) and searched (one zstd block); the summary
// comes from the lines' counts, and items are parsed only for the lines that can reach the page
// (and for the days where counts are not enough: the window's first day, which it may cut, and a
// day whose attempts are still in several segments, which may hold two versions of an attempt).
// Cached per version.

import { z } from "zod";
import type { Context } from "../../context";
import { parseLimit, type CursorCodec } from "../../shared/pagination";
import { rates, type OutcomeCounts, type Rates } from "../../shared/stats";
import { servingTables, type ServingTables } from "../serving/reader";
import { compareAttemptKeys, newestFirst, walletKey, type WalletItemTuple, type WalletLine } from "../serving/wallet-segments";
import type { WindowName } from "../windows";
import { address, answerKey, baseParams, type BaseParams, parseParams, requireKnownProgram, windowRange, type WindowRange } from "./common";

export type WalletItem = {
  sig: string | null;
  sentAt: number;
  receivedAt: number;
  outcome: string | null;
  pending: boolean;
  dropClass: string | null;
  instruction: string | null;
  errName: string | null;
  rpcLabel: string;
};
export type WalletHistoryResponse = { program: string; wallet: string; window: WindowRange; summary: Rates; items: WalletItem[]; nextCursor: string | null };

const walletParams = baseParams.extend({
  wallet: address("wallet address"),
  limit: z.union([z.number().int().min(1).max(500), z.string()]).nullish(),
  cursor: z.string().nullish(),
});
export type WalletHistoryParams = BaseParams & { wallet: string; limit?: string | number | null; cursor?: string | null };

/** A cursor: the last item's sent_at and attempt key (decimal UBIGINT). */
export type Position = { s: number; k: string };
const isPosition = (value: unknown): value is Position =>
  typeof value === "object" && value !== null && Number.isSafeInteger((value as Position).s) && /^\d{1,20}$/.test(String((value as Position).k));

export async function walletHistory(ctx: Context, input: WalletHistoryParams): Promise<WalletHistoryResponse> {
  const params = parseParams(walletParams, input);
  const limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  const position = ctx.cursors.decode(params.cursor, isPosition);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  return tables.cached(answerKey("wallet", { ...params, limit }), () =>
    walletPage(tables, ctx.cursors, { program: params.program, wallet: params.wallet, window: params.window, accountId: params.accountId, limit, position }),
  );
}

export type WalletPageQuery = { program: string; wallet: string; window: WindowName; accountId: string | null; limit: number; position: Position | null };

const DAY_MS = 86_400_000;

/** A run of items that are newest first, with the newest's send time (for cutting the page early). */
type Source = { newest: number; items: () => WalletItemTuple[] };

/** One page of a wallet's history from one serving version's wallet store. */
export async function walletPage(tables: ServingTables, cursors: CursorCodec, query: WalletPageQuery): Promise<WalletHistoryResponse> {
  const window = windowRange(tables, query.window);
  const counts: OutcomeCounts = { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 };
  const sources: Source[] = [];
  const inWindow = (item: WalletItemTuple) =>
    item[2] >= window.since && item[2] <= window.until && (query.accountId === null || item[9] === query.accountId);
  const segments = tables.wallets?.between(Math.floor(window.since / DAY_MS), Math.floor(window.until / DAY_MS)) ?? [];
  const key = walletKey(query.program, query.wallet);
  const byDay = new Map<number, WalletLine[][]>();
  for (const segment of segments) {
    const lines = segment.find(query.program, query.wallet, key);
    if (lines.length > 0) byDay.set(segment.day, [...(byDay.get(segment.day) ?? []), lines]);
  }
  for (const [day, perSegment] of byDay) {
    const cut = day * DAY_MS < window.since; // the window's first day: items before its start are left out
    if (perSegment.length === 1 && !cut) {
      // One segment: every attempt once, all in the window; its lines' counts are the summary.
      for (const line of perSegment[0]) {
        addCounts(counts, line.header[4], query.accountId);
        sources.push({ newest: line.header[2], items: () => line.items().filter(inWindow) });
      }
      continue;
    }
    const newest = new Map<string, WalletItemTuple>();
    for (const line of perSegment.flat()) {
      for (const item of line.items()) {
        const seen = newest.get(item[8]);
        if (!seen || item[10] > seen[10]) newest.set(item[8], item);
      }
    }
    const items = [...newest.values()].filter(inWindow).sort(newestFirst);
    for (const item of items) countItem(counts, item[3]);
    if (items.length > 0) sources.push({ newest: items[0][1], items: () => items });
  }

  // The page: sources newest first; one whose newest item is older than the page's last can stop.
  sources.sort((a, b) => b.newest - a.newest);
  const want = query.limit + 1;
  let page: WalletItemTuple[] = [];
  for (const source of sources) {
    if (page.length >= want && source.newest < page[want - 1][1]) break;
    for (const item of source.items()) if (after(item, query.position)) page.push(item);
    page.sort(newestFirst);
    if (page.length > want) page = page.slice(0, want);
  }
  const shown = page.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return {
    program: query.program,
    wallet: query.wallet,
    window,
    summary: rates(counts),
    items: shown.map(([sig, sentAt, receivedAt, outcome, dropClass, instruction, errName, rpcLabel]) => ({
      sig, sentAt, receivedAt, outcome, pending: outcome === null, dropClass, instruction, errName, rpcLabel,
    })),
    nextCursor: page.length > query.limit && last ? cursors.encode({ s: last[1], k: last[8] } satisfies Position) : null,
  };
}

function addCounts(counts: OutcomeCounts, byAccount: Record<string, number[]>, accountId: string | null): void {
  for (const [account, [landed, failed, dropped, preflight]] of Object.entries(byAccount)) {
    if (accountId !== null && account !== accountId) continue;
    counts.landed += landed;
    counts.failedOnchain += failed;
    counts.dropped += dropped;
    counts.preflight += preflight;
  }
}

function countItem(counts: OutcomeCounts, outcome: string | null): void {
  if (outcome === "landed") counts.landed++;
  else if (outcome === "failed_onchain") counts.failedOnchain++;
  else if (outcome === "dropped") counts.dropped++;
  else if (outcome === "preflight") counts.preflight++;
}

/** Whether an item comes after the cursor position in newest-first order. */
function after(item: WalletItemTuple, position: Position | null): boolean {
  return position === null || item[1] < position.s || (item[1] === position.s && compareAttemptKeys(item[8], position.k.replace(/^0+(?=\d)/, "")) < 0);
}
