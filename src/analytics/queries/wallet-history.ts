// wallet/{program}/{wallet}: one payer's attempts on a program in the window, newest first, keyset
// paginated (opaque signed cursor), with a Rates summary of the whole window. A page comes from
// the version's wallet pages (serving/wallet-pages.ts: one line per wallet, no DuckDB query); a
// wallet too large for a line, or a version without wallet pages, is read from `attempts`, sorted
// by wallet_key = hash(program, payer) so the read is a zone-map-pruned range. Cached per version.

import { z } from "zod";
import type { Context } from "../../context";
import { parseLimit, type CursorCodec } from "../../shared/pagination";
import { NO_COUNTS, rates, type OutcomeCounts, type Rates } from "../../shared/stats";
import { servingTables, type ServingTables } from "../serving/reader";
import { compareAttemptKeys, type WalletItemTuple } from "../serving/wallet-pages";
import type { WindowName } from "../windows";
import { address, answerKey, baseParams, type BaseParams, countsOf, parseParams, requireKnownProgram, windowRange, type CountRow, type WindowRange } from "./common";

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

/** What a page is cut from: the matching attempts newest first (at most limit + 1) and the window's counts. */
type PageSource = { items: WalletItemTuple[]; counts: OutcomeCounts };
type PageRequest = WalletPageQuery & { since: number; until: number };

// $1 wallet_key (bound as text, cast: DuckDB then prunes row groups by the sorted key's zone maps),
// $2 program, $3 payer, $4..$5 received_at window, $6 account (NULL: public).
const WALLET_FILTER = `wallet_key = $1::UBIGINT AND program = $2 AND payer = $3 AND received_at BETWEEN $4 AND $5 AND ($6::VARCHAR IS NULL OR account_id = $6)`;
const SUMMARY_SQL = `
  SELECT count(*) FILTER (WHERE outcome = 'landed') AS landed, count(*) FILTER (WHERE outcome = 'failed_onchain') AS failed_onchain,
    count(*) FILTER (WHERE outcome = 'dropped') AS dropped, count(*) FILTER (WHERE outcome = 'preflight') AS preflight
  FROM attempts WHERE ${WALLET_FILTER}`;
// $7..$8 the cursor position (sent_at, attempt key), $9 the row limit.
const ITEMS_SQL = `
  SELECT sig, sent_at, received_at, outcome, drop_class, instruction, err_name, rpc_label, attempt_key::VARCHAR AS key, account_id
  FROM attempts
  WHERE ${WALLET_FILTER} AND (sent_at < $7 OR (sent_at = $7 AND attempt_key < $8::UBIGINT))
  ORDER BY sent_at DESC, attempt_key DESC
  LIMIT $9`;
const WALLET_KEY_SQL = "SELECT hash($1::VARCHAR, $2::VARCHAR)::VARCHAR AS key";
const MAX_KEY = "18446744073709551615";

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

/** One page of a wallet's history from one serving version (its wallet pages when it has them, else `attempts`). */
export async function walletPage(tables: ServingTables, cursors: CursorCodec, query: WalletPageQuery): Promise<WalletHistoryResponse> {
  const window = windowRange(tables, query.window);
  const request: PageRequest = { ...query, since: window.since, until: window.until };
  const record = tables.walletPages ? tables.walletPages.find(query.program, query.wallet) : undefined;
  const source =
    record === null ? { items: [], counts: NO_COUNTS }
    : record && "items" in record ? pageFromItems(record.items, request)
    : await pageFromAttempts(tables, request, record?.walletKey ?? null);
  const page = source.items.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    program: query.program,
    wallet: query.wallet,
    window,
    summary: rates(source.counts),
    items: page.map(([sig, sentAt, receivedAt, outcome, dropClass, instruction, errName, rpcLabel]) => ({
      sig, sentAt, receivedAt, outcome, pending: outcome === null, dropClass, instruction, errName, rpcLabel,
    })),
    nextCursor: source.items.length > query.limit && last ? cursors.encode({ s: last[1], k: last[8] } satisfies Position) : null,
  };
}

/** A page from a wallet's line: the window's (and account's) attempts, counted, then cut after the cursor. */
function pageFromItems(all: WalletItemTuple[], request: PageRequest): PageSource {
  const counts = { landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 };
  const items: WalletItemTuple[] = [];
  for (const item of all) {
    const receivedAt = item[2];
    if (receivedAt < request.since || receivedAt > request.until) continue;
    if (request.accountId !== null && item[9] !== request.accountId) continue;
    const outcome = item[3];
    if (outcome === "landed") counts.landed++;
    else if (outcome === "failed_onchain") counts.failedOnchain++;
    else if (outcome === "dropped") counts.dropped++;
    else if (outcome === "preflight") counts.preflight++;
    if (items.length <= request.limit && after(item, request.position)) items.push(item);
  }
  return { items, counts };
}

/** Whether an item comes after the cursor position in newest-first order. */
function after(item: WalletItemTuple, position: Position | null): boolean {
  return position === null || item[1] < position.s || (item[1] === position.s && compareAttemptKeys(item[8], position.k.replace(/^0+(?=\d)/, "")) < 0);
}

/** A page read from `attempts` (wallet_key known from the wallet pages, else computed by DuckDB). */
async function pageFromAttempts(tables: ServingTables, request: PageRequest, walletKey: string | null): Promise<PageSource> {
  const key = walletKey ?? (await tables.all<{ key: string }>(WALLET_KEY_SQL, [request.program, request.wallet]))[0].key;
  const filter = [key, request.program, request.wallet, request.since, request.until, request.accountId];
  const [[summary], rows] = await Promise.all([
    tables.all<CountRow>(SUMMARY_SQL, filter),
    tables.all<{
      sig: string | null; sent_at: number; received_at: number; outcome: string | null; drop_class: string | null;
      instruction: string | null; err_name: string | null; rpc_label: string; key: string; account_id: string;
    }>(ITEMS_SQL, [...filter, request.position?.s ?? Number.MAX_SAFE_INTEGER, request.position?.k ?? MAX_KEY, request.limit + 1]),
  ]);
  return {
    counts: countsOf(summary),
    items: rows.map((r): WalletItemTuple => [r.sig, r.sent_at, r.received_at, r.outcome, r.drop_class, r.instruction, r.err_name, r.rpc_label, r.key, r.account_id]),
  };
}
