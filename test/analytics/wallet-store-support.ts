// Wallet pages from the wallet-page store (docs/serving.md#wallet-pages) against the lake-reading
// query: every page (items, order, cursors, summary, window) of a few wallets, windows and scopes.

import { expect } from "bun:test";
import { windowRange } from "../../src/analytics/queries/common";
import {
  type Position,
  storedWalletPage,
  type WalletHistoryResponse,
  type WalletPageQuery,
  walletPage,
} from "../../src/analytics/queries/wallet-history";
import type { ServingTables } from "../../src/analytics/serving/reader";
import type { WindowName } from "../../src/analytics/windows";
import type { Context } from "../../src/context";

/** A payer without attempts anywhere. */
const NOBODY = "11111111111111111111111111111111";

/**
 * Payers of a program received since a time (from the lake): the busiest with at most a few pages
 * of attempts, the quietest, and one without attempts.
 */
export async function walletsOf(ctx: Context, program: string, sinceMs: number): Promise<string[]> {
  const rows = await ctx.duck.all<{ payer: string }>(
    `SELECT payer FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)
     WHERE program = '${program}' AND epoch_ms(received_at) >= ${sinceMs} GROUP BY payer HAVING count(*) <= 12
     ORDER BY count(*) DESC, payer`,
  );
  const payers = rows.map((row) => row.payer);
  return [...new Set([payers[0], payers.at(-1)!])].filter(Boolean).concat(NOBODY);
}

/** Every page of a query, following the cursors, from one source. */
async function pagesFrom(
  ctx: Context,
  source: (query: WalletPageQuery) => Promise<WalletHistoryResponse>,
  query: Omit<WalletPageQuery, "position">,
): Promise<WalletHistoryResponse[]> {
  const pages: WalletHistoryResponse[] = [];
  let position: Position | null = null;
  do {
    const page = await source({ ...query, position });
    pages.push(page);
    position =
      page.nextCursor === null
        ? null
        : ctx.cursors.decode(
            page.nextCursor,
            (value): value is Position => typeof value === "object" && value !== null,
          );
  } while (position !== null && pages.length < 200);
  return pages;
}

/** The store's pages of the version equal the lake's, for a few wallets per program; returns their items. */
export async function expectStoreEqualsLake(
  ctx: Context,
  tables: ServingTables,
  options: { programs: string[]; accountId: string; windows?: WindowName[] },
): Promise<WalletHistoryResponse["items"]> {
  expect(tables.walletStore).not.toBeNull();
  const items: WalletHistoryResponse["items"] = [];
  for (const program of options.programs) {
    for (const wallet of await walletsOf(ctx, program, tables.clock - 30 * 86_400_000)) {
      for (const window of options.windows ?? ["1d", "30d"]) {
        for (const accountId of [null, options.accountId]) {
          const query = { program, wallet, window: windowRange(tables, window), accountId, limit: 4 };
          const stored = await pagesFrom(
            ctx,
            async (q) => {
              const page = storedWalletPage(ctx, tables, q);
              if (page === null) throw new Error("the store did not answer");
              return page;
            },
            query,
          );
          const lake = await pagesFrom(ctx, (q) => walletPage(ctx, q), query);
          expect({ wallet, window, accountId, pages: stored }).toEqual({ wallet, window, accountId, pages: lake });
          items.push(...stored.flatMap((page) => page.items));
        }
      }
    }
  }
  expect(items.length).toBeGreaterThan(5);
  return items;
}
