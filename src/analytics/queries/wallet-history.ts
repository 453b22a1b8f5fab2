// wallet/{program}/{wallet}: one payer's attempts on a program in the window, newest first, keyset
// paginated (opaque signed cursor: sent_at, then the attempt key), with a Rates summary of the whole
// window. Read from the wallet-page store the tables job keeps (docs/serving.md#wallet-pages): one
// index range of the payer's rows on the program as the serving version has them, so a page is two
// prepared SQLite statements (the page, the window's counts), tens of microseconds. A version built
// before the store, or one whose replaced rows were already collected (a reader that has not switched
// to a newer version), reads the lake instead (walletPage below): the program's envelope partitions
// of the window's days, filtered on the payer, joined on attempt_id with the resolutions of those
// days and the few after, ~100–300 ms of CPU. Both answer the same items, order, cursor and counts
// for what the version took in. Cached per serving version (the window ends at its clock).

import { z } from "zod";
import type { Context } from "../../context";
import { filesWithCompleteColumn } from "../../lake/column-presence";
import { readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { addDays, partitionFiles } from "../../lake/partitions";
import { utcDay } from "../../lake/paths";
import { payerBucketSql, readLakeSql } from "../../lake/schema";
import { parseLimit } from "../../shared/pagination";
import { type Rates, rates } from "../../shared/stats";
import { payerKeyOf } from "../serving/payer-key";
import { type ServingTables, servingTables } from "../serving/reader";
import { RESOLUTION_LAG_DAYS } from "./attempt-evidence";
import {
  address,
  answerKey,
  type BaseParams,
  baseParams,
  parseParams,
  requireKnownProgram,
  type WindowRange,
  windowRange,
} from "./common";

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
export type WalletHistoryResponse = {
  program: string;
  wallet: string;
  window: WindowRange;
  summary: Rates;
  items: WalletItem[];
  nextCursor: string | null;
};

const walletParams = baseParams.extend({
  wallet: address("wallet address"),
  limit: z.union([z.number().int().min(1).max(500), z.string()]).nullish(),
  cursor: z.string().nullish(),
});
export type WalletHistoryParams = BaseParams & {
  wallet: string;
  limit?: string | number | null;
  cursor?: string | null;
};

/** A cursor: the last item's sent_at and attempt key (DuckDB's `hash(attempt_id)`, a decimal UBIGINT). */
export type Position = { s: number; k: string };
const isPosition = (value: unknown): value is Position =>
  typeof value === "object" &&
  value !== null &&
  Number.isSafeInteger((value as Position).s) &&
  /^\d{1,20}$/.test(String((value as Position).k));

export async function walletHistory(ctx: Context, input: WalletHistoryParams): Promise<WalletHistoryResponse> {
  const params = parseParams(walletParams, input);
  const limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  const position = ctx.cursors.decode(params.cursor, isPosition);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  const window = windowRange(tables, params.window);
  return tables.cached(walletAnswerKey(params, limit), async () => {
    const query = {
      program: params.program,
      wallet: params.wallet,
      window,
      accountId: params.accountId,
      limit,
      position,
    };
    return storedWalletPage(ctx, tables, query) ?? (await walletPage(ctx, query));
  });
}

/** The page from the version's wallet-page store; null when it cannot answer it (the lake then). */
export function storedWalletPage(
  ctx: Pick<Context, "cursors">,
  tables: Pick<ServingTables, "walletStore">,
  query: WalletPageQuery,
): WalletHistoryResponse | null {
  const page = tables.walletStore?.page({
    payer: payerKeyOf(query.wallet),
    program: query.program,
    accountId: query.accountId,
    since: query.window.since,
    until: query.window.until,
    after: query.position === null ? null : { sentAt: query.position.s, attemptKey: query.position.k },
    rows: query.limit + 1,
  });
  if (!page) return null;
  const shown = page.items.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    program: query.program,
    wallet: query.wallet,
    window: query.window,
    summary: rates(page.counts),
    items: shown.map((item) => ({
      sig: item.sig,
      sentAt: item.sentAt,
      receivedAt: item.receivedAt,
      outcome: item.outcome,
      pending: item.outcome === null,
      dropClass: item.dropClass,
      instruction: item.instruction,
      errName: item.errName,
      rpcLabel: item.rpcLabel,
    })),
    nextCursor:
      page.items.length > query.limit && last
        ? ctx.cursors.encode({ s: last.sentAt, k: last.attemptKey } satisfies Position)
        : null,
  };
}

const walletAnswerKey = (params: z.output<typeof walletParams>, limit: number) =>
  answerKey("wallet", { ...params, limit });

const WALLET_PATH = /^\/v1\/wallet\/([^/]+)\/([^/]+)$/;

/**
 * Tokens of the public rate limit a request takes (PUBLIC_LAKE_READ_COST, docs/api.md#limits): a
 * wallet page that may read the lake takes `lakeReadCost` (a DuckDB scan of the payer's window,
 * ~100–300 ms of CPU); every other request, and every page of a version with a wallet-page store
 * (one indexed read, tens of microseconds), 1. A request the route will refuse (a malformed address
 * or window) takes 1: it reads nothing.
 */
export async function publicRequestCost(ctx: Context, url: URL, lakeReadCost: number): Promise<number> {
  const match = WALLET_PATH.exec(url.pathname);
  if (!match || lakeReadCost <= 1) return 1;
  let tables: Awaited<ReturnType<typeof servingTables>>;
  try {
    tables = await servingTables(ctx);
  } catch {
    return 1; // no version yet: the route answers 503 without reading
  }
  // With a store every page costs 1: the request's parameters need not be read here.
  if (tables.walletStore !== null) return 1;
  let params: z.output<typeof walletParams>;
  let limit: number;
  try {
    params = parseParams(walletParams, {
      program: decodeURIComponent(match[1]),
      wallet: decodeURIComponent(match[2]),
      window: url.searchParams.get("window"),
      limit: url.searchParams.get("limit"),
      cursor: url.searchParams.get("cursor"),
      accountId: null,
    });
    limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  } catch {
    return 1;
  }
  const accountScoped = url.searchParams.get("scope") === "account";
  return walletPageCost(tables, accountScoped ? null : walletAnswerKey(params, limit), lakeReadCost);
}

/**
 * What one wallet page costs the public limit: 1 with a wallet-page store or a cached answer; else
 * `lakeReadCost`. `answerKey` null: an account-scoped page, whose answer is known only once its key is checked.
 */
export function walletPageCost(
  tables: Pick<ServingTables, "walletStore" | "hasAnswer">,
  answerKey: string | null,
  lakeReadCost: number,
): number {
  if (tables.walletStore !== null) return 1;
  return answerKey !== null && tables.hasAnswer(answerKey) ? 1 : lakeReadCost;
}

export type WalletPageQuery = {
  program: string;
  wallet: string;
  window: WindowRange;
  accountId: string | null;
  limit: number;
  position: Position | null;
};

type WalletRow = {
  attempt_id: string | null;
  part: string | null;
  row_number: number | null;
  sent_at: number;
  attempt_key: string;
  outcome: string | null;
  drop_class: string | null;
  instruction: string | null;
  err_name: string | null;
  landed: number;
  failed_onchain: number;
  dropped: number;
  preflight: number;
};
/** What a page shows of an envelope beyond what the window's scan reads: read from the page's rows only. */
type PageDetails = { attempt_id: string; sig: string | null; received_at: number; rpc_label: string };

/**
 * One page of a wallet's history, read from the lake in two steps: the window's attempts of the
 * wallet (the columns the counts and the order need), then the page's own rows of the parts they
 * are in (signature, receive time, provider). The signature is the widest column of an envelope
 * (random, ~60 bytes compressed): read for every envelope of the window, it was half of a page's
 * CPU (~0.6 of ~1.2 s on 4M envelopes of a program's day).
 */
export async function walletPage(
  ctx: Pick<Context, "duck" | "paths" | "cursors">,
  query: WalletPageQuery,
): Promise<WalletHistoryResponse> {
  const { window } = query;
  const days: string[] = [];
  for (let day = utcDay(window.since); day <= utcDay(window.until); day = addDays(day, 1)) days.push(day);
  const read = async () => {
    // Listed at each read: compaction may swap a partition in between (readAgainAfterSwap).
    const envelopes = days.flatMap((day) => partitionFiles(ctx.paths.partition("envelopes", query.program, day)));
    if (envelopes.length === 0) return { rows: [] as WalletRow[], details: new Map<string, PageDetails>() };
    const resolutionDays = [
      ...days,
      ...Array.from({ length: RESOLUTION_LAG_DAYS }, (_, k) => addDays(days[days.length - 1], k + 1)),
    ];
    const resolutions = resolutionDays.flatMap((day) =>
      partitionFiles(ctx.paths.partition("resolutions", query.program, day)),
    );
    const bucketed = await filesWithCompleteColumn(ctx.duck, resolutions, "payer_bucket");
    const split = {
      bucketed: resolutions.filter((file) => bucketed.has(file)),
      others: resolutions.filter((file) => !bucketed.has(file)),
    };
    const rows = await ctx.duck.all<WalletRow>(walletHistorySql(envelopes, split, query));
    const pageRows = rows.filter((row) => row.attempt_key !== null).slice(0, query.limit);
    const details =
      pageRows.length === 0 ? [] : await ctx.duck.all<PageDetails>(pageDetailsSql(pageRows, query.wallet));
    return { rows, details: new Map(details.map((row) => [row.attempt_id, row])) };
  };
  const { rows, details } = await readAgainAfterSwap(read);
  const summary = rows[0] ?? { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 };
  const page = rows.filter((row) => row.attempt_key !== null);
  const shown = page.slice(0, query.limit).map((row) => {
    const more = details.get(row.attempt_id!);
    // Cannot happen: a part is never rewritten under its name (one swapped away in between fails the second read, and
    // both are read again).
    if (!more) throw new Error(`wallet page: attempt ${row.attempt_id} not found again in its part`);
    return { ...row, ...more };
  });
  const last = shown[shown.length - 1];
  return {
    program: query.program,
    wallet: query.wallet,
    window,
    summary: rates({
      landed: Number(summary.landed),
      failedOnchain: Number(summary.failed_onchain),
      dropped: Number(summary.dropped),
      preflight: Number(summary.preflight),
    }),
    items: shown.map((row) => ({
      sig: row.sig,
      sentAt: row.sent_at,
      receivedAt: row.received_at,
      outcome: row.outcome,
      pending: row.outcome === null,
      dropClass: row.drop_class,
      instruction: row.instruction,
      errName: row.err_name,
      rpcLabel: row.rpc_label,
    })),
    nextCursor:
      page.length > query.limit && last
        ? ctx.cursors.encode({ s: last.sent_at, k: last.attempt_key } satisfies Position)
        : null,
  };
}

/**
 * The page (limit + 1 rows after the cursor, newest first: sent_at, then attempt key, descending),
 * each row carrying the window's counts per outcome; one row of counts alone when the page is empty.
 */
function walletHistorySql(
  envelopes: string[],
  resolutions: { bucketed: string[]; others: string[] },
  query: WalletPageQuery,
): string {
  // The scan reads no more columns than the counts and the order need (pageDetailsSql reads the rest for the page).
  const list = (files: string[]) => `[${files.map(sqlString).join(", ")}]`;
  const account = query.accountId === null ? "" : ` AND account_id = ${sqlString(query.accountId)}`;
  // Parts with every row's payer bucket (lake version 4) are filtered on the wallet's: in a compacted
  // part, sorted by bucket, only the row groups that can hold it are read. Older parts are read whole.
  const branch = (files: string[], filter: string) =>
    `SELECT attempt_id, outcome, drop_class, instruction, err_name FROM read_parquet(${list(files)}, union_by_name = true)
     WHERE ${filter}attempt_id IN (SELECT attempt_id FROM sent)`;
  const branches = [
    ...(resolutions.bucketed.length > 0
      ? [branch(resolutions.bucketed, `payer_bucket = ${payerBucketSql(sqlString(query.wallet))} AND `)]
      : []),
    ...(resolutions.others.length > 0 ? [branch(resolutions.others, "")] : []),
  ];
  const resolved =
    branches.length === 0
      ? "SELECT NULL::VARCHAR AS attempt_id, NULL::VARCHAR AS outcome, NULL::VARCHAR AS drop_class, NULL::VARCHAR AS instruction, NULL::VARCHAR AS err_name WHERE false"
      : `SELECT DISTINCT ON (attempt_id) * FROM (${branches.join("\n UNION ALL\n")})`;
  const after =
    query.position === null
      ? "true"
      : `sent_at < ${query.position.s} OR (sent_at = ${query.position.s} AND attempt_key < ${sqlString(query.position.k)}::UBIGINT)`;
  return `WITH sent AS MATERIALIZED (
      SELECT attempt_id, sent_at, kind, filename AS part, file_row_number AS row_number
      FROM ${readLakeSql("envelopes", list(envelopes), "union_by_name = true, filename = true, file_row_number = true")}
      WHERE payer = ${sqlString(query.wallet)} AND received_at BETWEEN ${query.window.since} AND ${query.window.until}${account}
    ),
    attempts AS MATERIALIZED (
      SELECT s.attempt_id, s.part, s.row_number, s.sent_at, hash(s.attempt_id) AS attempt_key,
        -- A preflight failure reported by the client is one without a resolution (as in the tables: edges.ts).
        coalesce(r.outcome, CASE WHEN s.kind = 'preflight' THEN 'preflight' END) AS outcome, r.drop_class, r.instruction, r.err_name
      FROM sent s LEFT JOIN (${resolved}) r USING (attempt_id)
    ),
    counts AS (
      SELECT count(*) FILTER (WHERE outcome = 'landed') AS landed, count(*) FILTER (WHERE outcome = 'failed_onchain') AS failed_onchain,
        count(*) FILTER (WHERE outcome = 'dropped') AS dropped, count(*) FILTER (WHERE outcome = 'preflight') AS preflight
      FROM attempts
    ),
    page AS (
      SELECT * FROM attempts WHERE ${after} ORDER BY sent_at DESC, attempt_key DESC LIMIT ${query.limit + 1}
    )
    SELECT p.attempt_id, p.part, p.row_number, p.sent_at, p.attempt_key::VARCHAR AS attempt_key, p.outcome, p.drop_class, p.instruction, p.err_name, c.*
    FROM counts c LEFT JOIN page p ON true
    ORDER BY p.sent_at DESC, p.attempt_key DESC`;
}

/**
 * The page's rows of their parts, by row number within each part. The payer filter (the rows are the
 * wallet's) is what lets a compacted part's row groups without them be skipped: DuckDB prunes on its
 * min/max, not on row numbers (on 7 days of 880,000 envelopes each, 17 rows: 176–289 → ~60 ms of CPU).
 */
function pageDetailsSql(rows: WalletRow[], wallet: string): string {
  const byPart = new Map<string, number[]>();
  for (const row of rows) {
    const list = byPart.get(row.part!) ?? [];
    list.push(Number(row.row_number));
    byPart.set(row.part!, list);
  }
  return [...byPart]
    .map(
      ([part, numbers]) =>
        `SELECT attempt_id, sig, received_at, rpc_label FROM ${readLakeSql("envelopes", sqlString(part), "file_row_number = true")} WHERE payer = ${sqlString(wallet)} AND file_row_number IN (${numbers.join(", ")})`,
    )
    .join("\nUNION ALL\n");
}
