// The wallet-page store (docs/serving.md#wallet-pages) against the lake-reading query on a small
// generated world: every page (items, order, cursors, summary, window) the store answers equals the
// one read from the lake, after the first build, after a refresh that takes in pending attempts
// and one that resolves them (a pending row replaced), after retention removed days and the store
// forgot them, and after a rebuild (`--full`) into a new store file.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { windowRange } from "../../src/analytics/queries/common";
import {
  type Position,
  storedWalletPage,
  type WalletHistoryResponse,
  type WalletPageQuery,
  walletPage,
} from "../../src/analytics/queries/wallet-history";
import type { ServingTables } from "../../src/analytics/serving/reader";
import { WalletStoreReader, walletStoreBases, walletStoreFile } from "../../src/analytics/serving/wallet-store";
import { buildServingTables } from "../../src/analytics/tables/build";
import type { WindowName } from "../../src/analytics/windows";
import { createAccountKey } from "../../src/control";
import { applyRetention } from "../../src/ops/retention";
import { testContext } from "../helpers/context";
import { END_MS, untilVersion } from "./support";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ctx: Awaited<ReturnType<typeof testContext>>;
let clock = END_MS;
let programs: string[] = [];
const accounts: string[] = [];
let hidden: { from: string; to: string }[] = [];

beforeAll(async () => {
  ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => clock;
  for (const name of ["team-a", "team-b"])
    accounts.push(createAccountKey(ctx.control, name, "read", END_MS).record.accountId);
  const world = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 1_500,
    programs: 2,
    days: 8,
    seed: 11,
    endMs: END_MS,
    accounts,
    threads: 2,
  });
  programs = world.programs;
  // The last day's resolutions arrive a refresh later: its attempts are pending until then.
  const day = new Date(END_MS).toISOString().slice(0, 10);
  hidden = programs.map((program) => ({
    from: join(ctx.paths.dataset("resolutions"), `program=${program}`, `day=${day}`),
    to: join(ctx.config.dataDir, `resolutions-${program}-${day}`),
  }));
  for (const { from, to } of hidden) renameSync(from, to);
  await refresh();
}, 60_000);
afterAll(() => ctx.dispose());

async function refresh(options: { full?: boolean } = {}) {
  const result = await buildServingTables(ctx, options);
  return { result, tables: await untilVersion(ctx, result.version) };
}

/**
 * Payers of a program since a time (from the lake): the busiest with at most a few pages of attempts, a quiet one,
 * and one without attempts.
 */
async function walletsOf(program: string, sinceMs: number): Promise<string[]> {
  const rows = await ctx.duck.all<{ payer: string }>(
    `SELECT payer FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)
     WHERE program = '${program}' AND epoch_ms(received_at) >= ${sinceMs} GROUP BY payer HAVING count(*) <= 12
     ORDER BY count(*) DESC, payer`,
  );
  const payers = rows.map((row) => row.payer);
  return [payers[0], payers.at(-1)!, "11111111111111111111111111111111"];
}

const decode = (cursor: string | null): Position | null =>
  cursor === null
    ? null
    : ctx.cursors.decode(cursor, (value): value is Position => typeof value === "object" && value !== null);

/** Every page of a query, following the cursors, from one source. */
async function pagesFrom(
  source: (query: WalletPageQuery) => Promise<WalletHistoryResponse>,
  query: Omit<WalletPageQuery, "position">,
): Promise<WalletHistoryResponse[]> {
  const pages: WalletHistoryResponse[] = [];
  let position: Position | null = null;
  do {
    const page = await source({ ...query, position });
    pages.push(page);
    position = decode(page.nextCursor);
  } while (position !== null && pages.length < 200);
  return pages;
}

/** The store's pages equal the lake's for a few wallets, windows and scopes; returns their items. */
async function expectStoreEqualsLake(tables: ServingTables, windows: WindowName[] = ["1d", "30d"]) {
  const items: WalletHistoryResponse["items"] = [];
  for (const program of programs) {
    for (const wallet of await walletsOf(program, tables.clock - 30 * DAY)) {
      for (const window of windows) {
        for (const accountId of [null, accounts[0]]) {
          const query = { program, wallet, window: windowRange(tables, window), accountId, limit: 4 };
          const stored = await pagesFrom(async (q) => {
            const page = storedWalletPage(ctx, tables, q);
            if (page === null) throw new Error("the store did not answer");
            return page;
          }, query);
          const lake = await pagesFrom((q) => walletPage(ctx, q), query);
          expect({ wallet, window, accountId, pages: stored }).toEqual({ wallet, window, accountId, pages: lake });
          items.push(...stored.flatMap((page) => page.items));
        }
      }
    }
  }
  expect(items.length).toBeGreaterThan(10);
  return items;
}

test("the store's pages equal the lake's, pending attempts included: cursors, counts and windows", async () => {
  const tables = await untilVersion(ctx, 1);
  expect(tables.walletStore).not.toBeNull();
  const items = await expectStoreEqualsLake(tables, ["1d", "7d", "30d"]);
  expect(items.some((item) => item.pending)).toBe(true);
});

test("a refresh that resolves pending attempts replaces their rows; the version read before keeps its own", async () => {
  const pending = await untilVersion(ctx, 1);
  const pendingSigs = new Set(
    (await expectStoreEqualsLake(pending, ["1d"])).filter((item) => item.pending).map((item) => item.sig),
  );
  for (const { from, to } of hidden) renameSync(to, from);
  const resolved = await refresh();
  const after = await expectStoreEqualsLake(resolved.tables);
  expect(after.filter((item) => pendingSigs.has(item.sig) && !item.pending).length).toBeGreaterThan(0);
  // The previous version still reads its pending rows from the same store (closed, not gone).
  const previous = WalletStoreReader.open(ctx.paths.tables, 1);
  try {
    const program = programs[0];
    const pendingOf = (walletStore: WalletStoreReader | null, wallet: string) =>
      storedWalletPage(
        ctx,
        { walletStore },
        { program, wallet, window: windowRange(pending, "1d"), accountId: null, limit: 500, position: null },
      )!.items.filter((item) => item.pending).length;
    const wallets = await walletsOf(program, END_MS - 86_400_000);
    const before = wallets.map((wallet) => pendingOf(previous, wallet));
    const now = wallets.map((wallet) => pendingOf(resolved.tables.walletStore, wallet));
    expect(before.reduce((a, b) => a + b)).toBeGreaterThan(now.reduce((a, b) => a + b));
  } finally {
    previous?.close();
  }
});

test("--full rebuilds into a new store file, equal to the lake", async () => {
  const [oldBase] = walletStoreBases(ctx.paths.tables);
  const { result, tables } = await refresh({ full: true });
  expect(result.full).toBe(true);
  // The previous version still reads the old file.
  expect(walletStoreBases(ctx.paths.tables)).toEqual([oldBase, result.version]);
  await expectStoreEqualsLake(tables, ["30d"]);
});

test("days retention removes are forgotten by the store; its pages still equal the lake's", async () => {
  clock = END_MS + 25 * DAY;
  const removed = await applyRetention(ctx, { days: 31 });
  expect((removed as { partitionsRemoved: number }).partitionsRemoved).toBeGreaterThan(0);
  const { result, tables } = await refresh();
  expect(result.full).toBe(false);
  await expectStoreEqualsLake(tables, ["30d"]);
  // One store left (no kept version reads the one before the rebuild), without the days before the kept ones.
  const bases = walletStoreBases(ctx.paths.tables);
  expect(bases).toHaveLength(1);
  const store = new Database(walletStoreFile(ctx.paths.tables, bases[0]), { readonly: true });
  try {
    const old = store.query<{ n: number }, [number]>("SELECT count(*) AS n FROM attempts WHERE received_at < ?");
    expect(old.get(Math.floor(clock / DAY - 31) * DAY)?.n).toBe(0);
    const all = store.query<{ n: number }, []>("SELECT count(*) AS n FROM attempts");
    expect(all.get()?.n).toBeGreaterThan(0);
  } finally {
    store.close();
  }
});
