// The incremental refresh against a full rebuild (issue 23): a generated world is refreshed as data
// arrives the way it does in production — envelopes first, their resolutions a refresh later, a
// partition compacted with parts taken in and not yet taken in, the clock moving by minutes and
// across midnight (windows' starts pass attempts, new start days are read back) — and then rebuilt
// from the whole lake at the same clock. Every answer of every route, scope and window is equal,
// wallet pages and bot scores included. Each incremental run reads only what it had not read.
// Days the retention job removes are forgotten without a rebuild when no window covers them; a
// state of an older schema is upgraded in place as far as upgrades go, then rebuilt. Along the way, wallet pages from the wallet-page store
// equal those read from the lake (pending attempts, their resolution, a rebuild, retention).

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import {
  baseline,
  cuHeadroom,
  ecosystem,
  issueDetail,
  issueSummary,
  payerFeatures,
  providerReport,
  recentActivity,
  releaseDiff,
  topIssues,
  walletHistory,
} from "../../src/analytics/queries";
import { windowRange } from "../../src/analytics/queries/common";
import { storedWalletPage } from "../../src/analytics/queries/wallet-history";
import { payerKey } from "../../src/analytics/serving/payer-key";
import { servingTables } from "../../src/analytics/serving/reader";
import { WalletStoreReader, walletStoreBases, walletStoreFile } from "../../src/analytics/serving/wallet-store";
import { buildServingTables } from "../../src/analytics/tables/build";
import { openState } from "../../src/analytics/tables/state";
import { PAYER_TABLES, upgradeState } from "../../src/analytics/tables/upgrade";
import { STATE_SCHEMA } from "../../src/analytics/tables/versions";
import { WINDOW_NAMES } from "../../src/analytics/windows";
import { loadIdls } from "../../src/chain/idl";
import { createAccountKey } from "../../src/control";
import { sqlString } from "../../src/lake/duckdb";
import { applyRetention } from "../../src/ops/retention";
import { testContext } from "../helpers/context";
import { END_MS, untilVersion } from "./support";
import { expectStoreEqualsLake, walletsOf } from "./wallet-store-support";

/** The newest schema an older state reaches by upgrades in place (upgrade.ts); from it, a rebuild. */
const LAST_UPGRADABLE_SCHEMA = 10;
const HEAVY_MS = 240_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let ctx: Awaited<ReturnType<typeof testContext>>;
let world: GenerateResult;
let clock = END_MS;
const accounts: string[] = [];
const scratch: string[] = [];

beforeAll(async () => {
  ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => clock;
  for (const name of ["team-a", "team-b"])
    accounts.push(createAccountKey(ctx.control, name, "read", END_MS).record.accountId);
  world = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 12_000,
    programs: 4,
    days: 30,
    seed: 5,
    endMs: END_MS,
    accounts,
    threads: 2,
  });
}, HEAVY_MS);
afterAll(() => {
  ctx.dispose();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Envelopes (and resolutions) of a generated append, written aside; moved into the lake dataset by dataset. */
async function arriving(variant: number, envelopes: number, endMs: number, spanMs: number) {
  const dir = mkdtempSync(join(tmpdir(), "txray-arriving-"));
  scratch.push(dir);
  await generateLake({
    dataDir: dir,
    envelopes,
    programs: 4,
    days: spanMs / 86_400_000,
    seed: 5,
    endMs,
    accounts,
    threads: 2,
    append: { variant },
  });
  return {
    moveIn(dataset: "envelopes" | "resolutions") {
      cpSync(join(dir, "lake", dataset), ctx.paths.dataset(dataset), { recursive: true });
    },
  };
}

/** What compaction does to a partition: its parts merged into one, swapped in. */
async function compactPartition(dataset: "envelopes" | "resolutions", program: string, day: string) {
  const dir = join(ctx.paths.dataset(dataset), `program=${program}`, `day=${day}`);
  const parts = readdirSync(dir).filter((name) => name.endsWith(".parquet"));
  const merged = join(dir, `part-c-${Bun.randomUUIDv7()}-0.parquet`);
  await ctx.duck.run(
    `COPY (SELECT * FROM read_parquet([${parts.map((p) => sqlString(join(dir, p))).join(", ")}], hive_partitioning = false)) TO ${sqlString(merged)} (FORMAT parquet)`,
  );
  for (const part of parts) rmSync(join(dir, part));
  return parts.length;
}

async function refresh(options: { full?: boolean; chunkRows?: number; maxRows?: number } = {}) {
  const result = await buildServingTables(ctx, options);
  await untilVersion(ctx, result.version);
  return result;
}

/** Refreshes until none of what arrived is left for a next one (a burst larger than `maxRows`). */
async function refreshThroughBacklog(maxRows: number) {
  const runs = [await refresh({ maxRows })];
  while (runs.at(-1)!.backlog) {
    runs.push(await refresh({ maxRows }));
    expect(runs.length).toBeLessThan(50);
  }
  return runs;
}

/** Every answer a surface can ask for, for every program, window and scope, plus wallets, bot scores and issue summaries. */
async function everything() {
  const out: Record<string, unknown> = {};
  const scopes = [null, ...accounts];
  const idls = loadIdls(ctx.paths.root);
  for (const program of world.programs) {
    for (const window of WINDOW_NAMES) {
      for (const accountId of scopes) {
        const at = `${program}/${window}/${accountId}`;
        out[`baseline/${at}`] = await baseline(ctx, { program, window, accountId });
        out[`top-issues/${at}`] = await topIssues(ctx, { program, window, accountId, limit: 500 });
        out[`cu-headroom/${at}`] = await cuHeadroom(ctx, { program, window, accountId });
        out[`provider-report/${at}`] = await providerReport(ctx, { program, window, accountId });
        for (const minutes of [1, 7, 90, 1440])
          out[`recent/${at}/${minutes}`] = await recentActivity(ctx, { program, accountId, minutes });
        for (const deploy of world.deploys.filter((d) => d.program === program)) {
          out[`release-diff/${at}/${deploy.slot}`] = await releaseDiff(ctx, {
            program,
            window,
            accountId,
            deploy: deploy.slot,
          });
        }
      }
    }
    const payers = await ctx.duck.all<{ payer: string }>(
      `SELECT payer, count(*) AS n FROM read_parquet('${ctx.paths.dataset("envelopes")}/program=${program}/**/*.parquet') GROUP BY payer ORDER BY n DESC, payer LIMIT 12`,
    );
    for (const { payer } of payers) {
      for (const window of WINDOW_NAMES)
        out[`wallet/${program}/${payer}/${window}`] = await walletHistory(ctx, {
          program,
          wallet: payer,
          window,
          accountId: null,
          limit: 500,
        });
      out[`bot/${payer}`] = await payerFeatures(ctx, payer);
    }
  }
  for (const window of WINDOW_NAMES) out[`ecosystem/${window}`] = await ecosystem(ctx, { window, limit: "500" });
  const fingerprints = await ctx.duck.all<{ fingerprint: string }>(
    `SELECT DISTINCT fingerprint FROM read_parquet('${ctx.paths.datasetGlob("resolutions")}') WHERE fingerprint IS NOT NULL ORDER BY fingerprint LIMIT 40`,
  );
  for (const { fingerprint } of fingerprints) {
    out[`issue-summary/${fingerprint}`] = await issueSummary(ctx, fingerprint);
    for (const window of WINDOW_NAMES) {
      for (const accountId of scopes)
        out[`issue/${fingerprint}/${window}/${accountId}`] = await issueDetail(
          ctx,
          { idls },
          { fingerprint, window, accountId },
        ).catch((error) => String(error));
    }
  }
  return out;
}

/** Resolved attempts and failures per issue of the lake received at or after `since`. */
async function lakeRecent(program: string, since: number) {
  const rows = await ctx.duck.all<{ outcome: string; fingerprint: string | null; n: number }>(
    `SELECT r.outcome, r.fingerprint, count(*)::INTEGER AS n
     FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true) e JOIN read_parquet('${ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true, union_by_name = true) r USING (attempt_id)
     WHERE e.program = ${sqlString(program)} AND epoch_ms(e.received_at) >= ${since} GROUP BY ALL`,
  );
  const count = (outcome: string) => rows.filter((r) => r.outcome === outcome).reduce((sum, r) => sum + r.n, 0);
  const issues = new Map<string, number>();
  for (const row of rows)
    if (row.fingerprint !== null) issues.set(row.fingerprint, (issues.get(row.fingerprint) ?? 0) + row.n);
  return {
    landed: count("landed"),
    failedOnchain: count("failed_onchain"),
    dropped: count("dropped"),
    preflight: count("preflight"),
    issues,
  };
}

test(
  "incremental refreshes give the answers of a full rebuild, reading only what arrived",
  async () => {
    const first = await refresh();
    expect(first.full).toBe(true);
    // Recent activity: whole minutes from the one holding clock − N minutes, as the lake counts them.
    for (const minutes of [317, 1440]) {
      const recent = await recentActivity(ctx, { program: world.programs[1], accountId: null, minutes });
      expect(recent.since).toBe(Math.floor((END_MS - minutes * MINUTE) / MINUTE) * MINUTE);
      const lake = await lakeRecent(world.programs[1], recent.since);
      expect(recent.rates).toMatchObject({
        landed: lake.landed,
        failedOnchain: lake.failedOnchain,
        dropped: lake.dropped,
        preflight: lake.preflight,
      });
      expect(new Map(recent.issues.map((i) => [i.fingerprint, i.count]))).toEqual(lake.issues);
      expect(recent.rates.attempts).toBeGreaterThan(minutes === 317 ? 0 : 100);
    }
    const unchanged = await refresh();
    expect(unchanged).toMatchObject({ full: false, partsRead: 0, attempts: 0, resolutions: 0 });

    // Envelopes of the last two hours; their resolutions only at the next refresh.
    const program = world.programs[0];
    const before = await baseline(ctx, { program, window: "1d", accountId: null });
    const a = await arriving(1, 3_000, END_MS + 2 * HOUR, 2 * HOUR);
    a.moveIn("envelopes");
    clock = END_MS + 2 * HOUR;
    const arrived = await refresh();
    expect(arrived).toMatchObject({ full: false, attempts: 3_000, resolutions: 0 });
    const pending = await baseline(ctx, { program, window: "1d", accountId: null });
    expect(pending.pending).toBeGreaterThan(before.pending);
    const storeOptions = { programs: [program], accountId: accounts[0] };
    const pendingItems = await expectStoreEqualsLake(ctx, await servingTables(ctx), storeOptions);
    expect(pendingItems.some((item) => item.pending)).toBe(true);
    // The refresh leaves the store's write-ahead log checkpointed and empty, though a reader has it open.
    const [storeBase] = walletStoreBases(ctx.paths.tables);
    const log = `${walletStoreFile(ctx.paths.tables, storeBase)}-wal`;
    expect(existsSync(log) ? statSync(log).size : 0).toBe(0);

    a.moveIn("resolutions");
    // Compaction of a partition of today: once over parts all taken in, once with a part not taken in yet.
    const today = new Date(clock).toISOString().slice(0, 10);
    expect(await compactPartition("envelopes", world.programs[1], today)).toBeGreaterThan(1);
    const b = await arriving(2, 1_500, END_MS + 2 * HOUR + 10 * MINUTE, 10 * MINUTE);
    b.moveIn("envelopes");
    await compactPartition("envelopes", world.programs[2], today);
    clock = END_MS + 2 * HOUR + 20 * MINUTE;
    const resolved = await refresh();
    expect(resolved.full).toBe(false);
    expect(resolved.attempts).toBe(1_500);
    expect(resolved.resolutions).toBeGreaterThan(2_000);
    const after = await baseline(ctx, { program, window: "1d", accountId: null });
    expect(after.rates.attempts).toBeGreaterThan(pending.rates.attempts);
    // A resolution replaces the pending row; the version read before keeps its own rows.
    const resolvedTables = await servingTables(ctx);
    await expectStoreEqualsLake(ctx, resolvedTables, storeOptions);
    const previousStore = WalletStoreReader.open(ctx.paths.tables, arrived.version);
    try {
      const pendingIn = (walletStore: WalletStoreReader | null, wallet: string) =>
        storedWalletPage(
          ctx,
          { walletStore },
          { program, wallet, window: windowRange(resolvedTables, "1d"), accountId: null, limit: 500, position: null },
        )!.items.filter((item) => item.pending).length;
      const wallets = await walletsOf(ctx, program, END_MS - 30 * 24 * HOUR);
      const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
      expect(sum(wallets.map((wallet) => pendingIn(previousStore, wallet)))).toBeGreaterThan(
        sum(wallets.map((wallet) => pendingIn(resolvedTables.walletStore, wallet))),
      );
    } finally {
      previousStore?.close();
    }

    // A burst larger than one refresh takes in (maxRows): three 5-minute slices published one after
    // another, taken in over several refreshes in the order they were published, each refresh
    // reporting what it left (a slice's sends to every program at once, so no payer's sends interleave;
    // in the order of programs instead, a bot's send gaps differ from a rebuild's).
    const slices = [];
    for (const [i, variant] of [4, 5, 6].entries())
      slices.push(await arriving(variant, 400, END_MS + 2 * HOUR + (25 + 5 * i) * MINUTE, 5 * MINUTE));
    for (const slice of slices) {
      slice.moveIn("envelopes");
      slice.moveIn("resolutions");
      await Bun.sleep(5); // publish times in order
    }
    // A partition compacted over parts taken in and not: deferred whole while the slices go in first.
    // (Resolutions: an envelope partition's would interleave a bot's sends across refreshes, which
    // compaction never does in production: it leaves parts not taken in alone.)
    expect(await compactPartition("resolutions", world.programs[3], today)).toBeGreaterThan(3);
    clock = END_MS + 2 * HOUR + 35 * MINUTE;
    const runs = await refreshThroughBacklog(400);
    expect(runs.length).toBeGreaterThan(3);
    expect(runs.every((run) => !run.full)).toBe(true);
    expect(runs.slice(0, -1).every((run) => run.backlog && run.deferredRows > 0)).toBe(true);
    expect(runs.at(-1)).toMatchObject({ backlog: false, deferredRows: 0 });
    // Parts in publication order, resolutions among them: a refresh that is behind shows attempts resolved, not only pending.
    // Each slice's envelopes whole (a publish batch is never split), then its resolutions before the
    // next slice's envelopes.
    expect(runs.slice(0, 4).map((run) => run.attempts)).toEqual([400, 0, 400, 0]);
    expect(runs[1].resolutions).toBeGreaterThan(0);
    expect(runs.reduce((n, run) => n + run.resolutions, 0)).toBeGreaterThan(500);

    // A day later: the windows' starts moved past many attempts and onto new days.
    b.moveIn("resolutions");
    const c = await arriving(3, 2_000, END_MS + 26 * HOUR, 3 * HOUR);
    c.moveIn("envelopes");
    c.moveIn("resolutions");
    clock = END_MS + 26 * HOUR;
    const nextDay = await refresh();
    expect(nextDay.full).toBe(false);
    expect(nextDay.daysLoaded).toBeGreaterThan(0);

    // Resolutions published before their envelopes (what a compaction's newer part can make of an
    // envelope partition): held by the state, then the envelopes arrive resolved.
    const d = await arriving(7, 600, END_MS + 26 * HOUR + 30 * MINUTE, 20 * MINUTE);
    d.moveIn("resolutions");
    clock = END_MS + 26 * HOUR + 30 * MINUTE;
    const held = await refresh();
    expect(held).toMatchObject({ full: false, attempts: 0, resolutions: 0 });
    expect(held.partsRead).toBeGreaterThan(0);
    d.moveIn("envelopes");
    const paired = await refresh();
    expect(paired.attempts).toBe(600);
    expect(paired.resolutions).toBeGreaterThan(300);

    const incremental = await everything();
    // Small steps: a day per chunk, a day's wallet lines written in several key ranges.
    const full = await refresh({ full: true, chunkRows: 1_000 });
    expect(full.full).toBe(true);
    const rebuilt = await everything();
    expect(Object.keys(incremental).length).toBeGreaterThan(300);
    for (const key of Object.keys(rebuilt))
      expect({ key, answer: incremental[key] }).toEqual({ key, answer: rebuilt[key] });
  },
  HEAVY_MS,
);

test(
  "days retention removes before every window are forgotten without a rebuild; the answers equal a rebuild's",
  async () => {
    // Days later: the oldest generated days are now before the 30-day window and the day before it.
    clock = END_MS + 5 * 24 * HOUR;
    expect(await refresh()).toMatchObject({ full: false });
    const lakeDays = () =>
      new Set(
        readdirSync(ctx.paths.dataset("envelopes")).flatMap((program) =>
          readdirSync(join(ctx.paths.dataset("envelopes"), program)),
        ),
      );
    const before = lakeDays();
    const removed = await applyRetention(ctx, { days: 31 });
    expect((removed as { partitionsRemoved: number }).partitionsRemoved).toBeGreaterThan(0);
    expect(lakeDays().size).toBeLessThan(before.size);

    const forgotten = await refresh();
    expect(forgotten).toMatchObject({ full: false, partsRead: 0 });
    // The store forgot what is before its kept days, and only the store the kept versions read is left.
    await expectStoreEqualsLake(ctx, await servingTables(ctx), {
      programs: world.programs.slice(0, 1),
      accountId: accounts[0],
      windows: ["30d"],
    });
    const stores = walletStoreBases(ctx.paths.tables);
    expect(stores).toHaveLength(1);
    const store = new Database(walletStoreFile(ctx.paths.tables, stores[0]), { readonly: true });
    try {
      const count = store.query<{ n: number }, [number]>("SELECT count(*) AS n FROM attempts WHERE received_at < ?");
      expect(count.get(Number.MAX_SAFE_INTEGER)?.n).toBeGreaterThan(0);
      expect(count.get((Math.floor(clock / (24 * HOUR)) - 31) * 24 * HOUR)?.n).toBe(0);
    } finally {
      store.close();
    }
    const incremental = await everything();
    const [storeBefore] = walletStoreBases(ctx.paths.tables);
    const rebuiltRun = await refresh({ full: true });
    expect(rebuiltRun).toMatchObject({ full: true });
    // A rebuild writes a new store; the previous version still reads the one before.
    expect(walletStoreBases(ctx.paths.tables)).toEqual([storeBefore, rebuiltRun.version]);
    await expectStoreEqualsLake(ctx, await servingTables(ctx), {
      programs: world.programs.slice(0, 1),
      accountId: accounts[0],
      windows: ["30d"],
    });
    const rebuilt = await everything();
    for (const key of Object.keys(rebuilt))
      expect({ key, answer: incremental[key] }).toEqual({ key, answer: rebuilt[key] });

    // Removing a day a window still covers starts over.
    const program = world.programs[0];
    const covered = join(
      ctx.paths.dataset("envelopes"),
      `program=${program}`,
      `day=${new Date(END_MS - 24 * HOUR).toISOString().slice(0, 10)}`,
    );
    expect(readdirSync(covered).length).toBeGreaterThan(0);
    rmSync(covered, { recursive: true });
    expect(await refresh()).toMatchObject({ full: true });
  },
  HEAVY_MS,
);

test(
  "a state of an older schema is upgraded in place as far as upgrades go, then rebuilt",
  async () => {
    const before = await everything();
    // What schema 6 had: no per-segment issue figures; until 8, the wallet store's tables and files;
    // until 9, payer addresses where the payer tables now hold their keys.
    const state = await openState(ctx.paths.tables, ctx.duckOptions("test"));
    await state.run("DELETE FROM issue_windows");
    await state.run(
      "CREATE TABLE wallet_changes (attempt_key UBIGINT); CREATE TABLE wallet_files (day INTEGER, name VARCHAR)",
    );
    await state.run(`CREATE TEMP TABLE address_of AS SELECT DISTINCT ${payerKey("payer")} AS key, payer AS address
    FROM read_parquet(${sqlString(join(ctx.paths.dataset("envelopes"), "**", "*.parquet"))})`);
    for (const table of PAYER_TABLES) {
      await state.run(`CREATE TABLE ${table}_v8 AS SELECT t.* REPLACE (a.address AS payer) FROM ${table} t JOIN address_of a ON a.key = t.payer;
      DROP TABLE ${table}; ALTER TABLE ${table}_v8 RENAME TO ${table}`);
    }
    const [{ keyed }] = await state.all<{ keyed: number }>(
      "SELECT count(*) AS keyed FROM duckdb_columns() WHERE column_name = 'payer' AND data_type = 'UBIGINT'",
    );
    expect(Number(keyed)).toBe(0);
    await state.setMeta({ schema: 6 });
    // 6 → 10 in place.
    expect(await upgradeState(state, LAST_UPGRADABLE_SCHEMA)).toBe(true);
    expect(await state.meta("schema")).toBe(String(LAST_UPGRADABLE_SCHEMA));
    const leftovers = await state.all<{ name: string }>(
      "SELECT table_name AS name FROM duckdb_tables() WHERE table_name LIKE 'wallet_%'",
    );
    expect(leftovers).toEqual([]);
    const [{ rekeyed }] = await state.all<{ rekeyed: number }>(
      "SELECT count(*) AS rekeyed FROM duckdb_columns() WHERE column_name = 'payer' AND data_type = 'UBIGINT'",
    );
    expect(Number(rekeyed)).toBeGreaterThan(0);
    const [{ windows }] = await state.all<{ windows: number }>("SELECT count(*) AS windows FROM issue_windows");
    expect(Number(windows)).toBeGreaterThan(0);
    state.close();
    mkdirSync(join(ctx.paths.tables, "wallets"), { recursive: true });
    writeFileSync(join(ctx.paths.tables, "wallets", "2025-11-20-v1-full.wseg"), "a segment of the old store");
    // 10 → 11 changes what the units hold (time to land's measure, the requested limits' exact
    // values, the compute units' minimum), and 11 → 12 adds what the state cannot give either (each
    // payer's units per account, the wallet-page store, the attempts' slots): the next refresh rebuilds.
    const rebuilt = await refresh();
    expect(rebuilt).toMatchObject({ full: true });
    expect(existsSync(join(ctx.paths.tables, "wallets"))).toBe(false);
    const rebuiltState = await openState(ctx.paths.tables, ctx.duckOptions("test"));
    expect(await rebuiltState.meta("schema")).toBe(String(STATE_SCHEMA));
    rebuiltState.close();
    const after = await everything();
    for (const key of Object.keys(before)) expect({ key, answer: after[key] }).toEqual({ key, answer: before[key] });
  },
  HEAVY_MS,
);
