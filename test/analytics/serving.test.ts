// The serving shortcuts answer exactly what the query path answers: precomputed public answers
// (tables/precompute-answers.ts) against the same answer functions run on request; wallet pages (read from
// the lake at query time) against the generated rows; memoised JSON; side files going with their
// versions.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineAnswers } from "../../src/analytics/queries/baseline";
import { type AnswerScope, answerSlot, type RowSource, windowRange } from "../../src/analytics/queries/common";
import { cuHeadroomAnswers } from "../../src/analytics/queries/cu-headroom";
import { providerReportAnswers } from "../../src/analytics/queries/provider-report";
import { type ReleaseDiffResponse, releaseDiffAnswers, withSources } from "../../src/analytics/queries/release-diff";
import { SEGMENTS, topIssuesAnswers } from "../../src/analytics/queries/top-issues";
import { type Position, type WalletPageQuery, walletPage } from "../../src/analytics/queries/wallet-history";
import { readPointer } from "../../src/analytics/serving/pointer";
import { PRECOMPUTED_ROUTES, type PrecomputedRoute } from "../../src/analytics/serving/precomputed-answers";
import { ServingTables } from "../../src/analytics/serving/reader";
import { answerJson, shareAnswer } from "../../src/analytics/serving/shared-answer-text";
import { walletStoreBases } from "../../src/analytics/serving/wallet-store";
import { buildServingTables } from "../../src/analytics/tables/build";
import { WINDOW_NAMES, WINDOWS, type WindowName } from "../../src/analytics/windows";
import { dataPaths } from "../../src/lake/paths";
import { randomAddress } from "../helpers/envelopes";
import { END_MS, get, makeWorld, type Row, untilVersion, type World } from "./support";

const COMPUTE: Record<PrecomputedRoute, (source: RowSource, scope: AnswerScope) => Promise<Map<string, unknown>>> = {
  baseline: baselineAnswers,
  "release-diff": releaseDiffAnswers,
  "top-issues": topIssuesAnswers,
  "cu-headroom": cuHeadroomAnswers,
  "provider-report": providerReportAnswers,
};

let world: World;
let tables: ServingTables;
beforeAll(async () => {
  world = await makeWorld(12_000);
  tables = await untilVersion(world.ctx, readPointer(world.ctx.paths)!.version);
}, 30_000);
afterAll(async () => await world.stop());

describe("precomputed answers", () => {
  test("every public answer equals the query path's answer for the same program and window", async () => {
    const programs = world.generated.programs;
    let compared = 0;
    for (const route of PRECOMPUTED_ROUTES) {
      for (const program of programs) {
        for (const window of WINDOW_NAMES) {
          const stored = tables.precomputed(route, program, window);
          const computed = (await COMPUTE[route](tables, { scope: "*", programs: [program], windows: [window] })).get(
            answerSlot(program, window),
          );
          expect(stored).not.toBeUndefined();
          expect({ route, program, window, answer: stored }).toEqual({
            route,
            program,
            window,
            answer: computed ?? null,
          });
          compared++;
        }
      }
    }
    expect(compared).toBe(PRECOMPUTED_ROUTES.length * programs.length * WINDOW_NAMES.length);
  });

  test("routes answer public requests from them: top-issues heads per segment and limit, release-diff 404 without a deploy", async () => {
    const program = world.generated.programs[0];
    for (const window of WINDOW_NAMES) {
      expect((await get(world, `/v1/baseline/${program}?window=${window}`)).body).toEqual(
        tables.precomputed("baseline", program, window),
      );
      expect((await get(world, `/v1/cu-headroom/${program}?window=${window}`)).body).toEqual(
        tables.precomputed("cu-headroom", program, window),
      );
      expect((await get(world, `/v1/provider-report/${program}?window=${window}`)).body).toEqual(
        tables.precomputed("provider-report", program, window),
      );
      for (const segment of [null, ...SEGMENTS]) {
        for (const limit of [1, 3, 50, 500]) {
          const { body } = await get(
            world,
            `/v1/top-issues/${program}?window=${window}&limit=${limit}${segment ? `&segment=${segment}` : ""}`,
          );
          // The query path with a LIMIT per segment, as the route computed it before precomputation.
          const full = (
            await topIssuesAnswers(tables, { scope: "*", programs: [program], windows: [window] }, segment)
          ).get(answerSlot(program, window))!;
          expect(body.segment).toBe(segment);
          for (const name of SEGMENTS)
            expect(body.segments[name]).toEqual(
              segment === null || segment === name ? full.segments[name].slice(0, limit) : [],
            );
        }
      }
    }
    const withDeploy = world.generated.deploys[0].program;
    const latest = Math.max(...world.generated.deploys.filter((d) => d.program === withDeploy).map((d) => d.slot));
    const { body } = await get(world, `/v1/release-diff/${withDeploy}?window=7d`);
    // The precomputed answer, with each deploy's verified-build source read when answering.
    const precomputed = tables.precomputed<ReleaseDiffResponse>("release-diff", withDeploy, "7d")!;
    expect(body).toEqual(withSources(world.ctx.paths.root, precomputed));
    expect((await get(world, `/v1/release-diff/${withDeploy}?window=7d&deploy=${latest}`)).body).toEqual(body);
    const withoutDeploy = world.generated.programs.find((p) => !world.generated.deploys.some((d) => d.program === p));
    if (withoutDeploy) {
      expect(tables.precomputed("release-diff", withoutDeploy, "7d")).toBeNull();
      const missing = await get(world, `/v1/release-diff/${withoutDeploy}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toContain("no deploy observed yet");
    }
  });

  test("their JSON is the text the tables job stored, produced once", async () => {
    const program = world.generated.programs[1];
    const answer = tables.precomputed("release-diff", program, "30d") ?? tables.precomputed("baseline", program, "30d");
    expect(answerJson(answer)).toBe(JSON.stringify(answer));
    const shared = shareAnswer({ a: 1, b: [0.1, 2] });
    expect(answerJson(shared)).toBe('{"a":1,"b":[0.1,2]}');
    expect(answerJson(shared)).toBe(answerJson(shared));
    expect(answerJson({ unshared: true })).toBe('{"unshared":true}');
    expect(answerJson(null)).toBe("null");
  });
});

/** Every page of a wallet, following the cursors. */
async function allPages(query: Omit<WalletPageQuery, "position">) {
  const pages = [];
  let position: Position | null = null;
  for (let i = 0; i < 1000; i++) {
    const page = await walletPage(world.ctx, { ...query, position });
    pages.push(page);
    if (!page.nextCursor) break;
    position = world.ctx.cursors.decode(
      page.nextCursor,
      (value): value is Position => typeof value === "object" && value !== null,
    );
  }
  return pages;
}

/** Wallets of a program, busiest first, then a spread of quiet ones. */
function sampleWallets(program: string, count: number): string[] {
  const counts = new Map<string, number>();
  for (const r of world.rows) if (r.program === program) counts.set(r.payer, (counts.get(r.payer) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([payer]) => payer);
  const step = Math.max(1, Math.floor(sorted.length / count));
  return [...new Set([...sorted.slice(0, 5), ...sorted.filter((_, i) => i % step === 0)])].slice(0, count);
}

function expectedPage(rows: Row[], program: string, wallet: string, window: WindowName, accountId: string | null) {
  const mine = rows.filter(
    (r) =>
      r.program === program &&
      r.payer === wallet &&
      r.received_at >= END_MS - WINDOWS[window] &&
      r.received_at <= END_MS &&
      (accountId === null || r.account_id === accountId),
  );
  const count = (outcome: string) => mine.filter((r) => r.outcome === outcome).length;
  return {
    summary: {
      landed: count("landed"),
      failedOnchain: count("failed_onchain"),
      dropped: count("dropped"),
      preflight: count("preflight"),
    },
    sentAts: mine.map((r) => r.sent_at).sort((a, b) => b - a),
  };
}

describe("versions", () => {
  test("a question of several queries keeps its version open when the tables job switches between them", async () => {
    const pointer = readPointer(world.ctx.paths)!;
    const version = await ServingTables.open(world.ctx.paths.tables, pointer, world.ctx.duckOptions("test-retire"));
    const answer = await version.cached("two-queries", async () => {
      const [first] = await version.all<{ n: number }>("SELECT 1 AS n");
      version.retire(); // what a switch to a newer version does to the one being read
      const [second] = await version.all<{ n: number }>("SELECT 2 AS n");
      return first.n + second.n;
    });
    expect(answer).toBe(3);
    // Retired and done: no new query is taken.
    await expect(version.all("SELECT 1")).rejects.toThrow("serving tables were switched");
  });
});

describe("wallet pages", () => {
  test("pages equal the lake, for every window, scope and cursor", async () => {
    const program = world.generated.programs[0];
    let seen = 0;
    // (Each page is a query of the lake: a dozen wallets, pages of 25 and 500.)
    for (const wallet of [...sampleWallets(program, 12), randomAddress()]) {
      for (const window of WINDOW_NAMES) {
        for (const accountId of [null, world.accounts.a]) {
          for (const limit of [25, 500]) {
            const pages = await allPages({ program, wallet, window: windowRange(tables, window), accountId, limit });
            const expected = expectedPage(world.rows, program, wallet, window, accountId);
            for (const page of pages) expect(page.summary).toMatchObject(expected.summary);
            expect(pages.flatMap((p) => p.items.map((i) => i.sentAt))).toEqual(expected.sentAts);
            seen += expected.sentAts.length;
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(0);
  }, 60_000);

  test("an item carries its envelope's signature and its resolution's outcome, pending until resolved", async () => {
    const program = world.generated.programs[0];
    const [wallet] = sampleWallets(program, 1);
    const items = (
      await allPages({ program, wallet, window: windowRange(tables, "30d"), accountId: null, limit: 500 })
    ).flatMap((page) => page.items);
    // (A signature sent through several providers is several attempts: compare whole items.)
    const key = (
      sig: string | null,
      sentAt: number,
      rpcLabel: string,
      outcome: string | null,
      dropClass: string | null,
      errName: string | null,
    ) => JSON.stringify([sig, sentAt, rpcLabel, outcome, dropClass, errName]);
    const expected = world.rows
      .filter(
        (r) =>
          r.program === program &&
          r.payer === wallet &&
          r.received_at >= END_MS - WINDOWS["30d"] &&
          r.received_at <= END_MS,
      )
      .map((r) => key(r.sig, r.sent_at, r.rpc_label, r.outcome, r.drop_class, r.err_name));
    expect(items.length).toBeGreaterThan(0);
    expect(items.map((i) => key(i.sig, i.sentAt, i.rpcLabel, i.outcome, i.dropClass, i.errName)).sort()).toEqual(
      expected.sort(),
    );
    for (const item of items) expect(item.pending).toBe(item.outcome === null);
    expect(items.some((i) => i.outcome === null) && items.some((i) => i.outcome !== null)).toBe(true);
  }, 30_000);

  test("pages are the same over parts of every lake version: without payer_bucket, with it sorted in small row groups, and with it null in some rows", async () => {
    // A copy of one program's lake where each resolution part is rewritten one of three ways, as an
    // upgraded deployment holds them: as version 3 wrote it (no column), as compaction writes it
    // now (sorted by bucket, row groups small enough that most are skipped), and as a compaction
    // merging both leaves it (null in the older rows).
    const program = world.generated.programs[1];
    const copy = mkdtempSync(join(tmpdir(), "txray-wallet-versions-"));
    try {
      const paths = dataPaths(copy);
      cpSync(
        join(world.ctx.paths.lake, "envelopes", `program=${program}`),
        join(paths.lake, "envelopes", `program=${program}`),
        { recursive: true },
      );
      const source = join(world.ctx.paths.lake, "resolutions", `program=${program}`);
      const shapes = [
        (file: string) => `SELECT * EXCLUDE (payer_bucket) FROM read_parquet('${file}')`,
        (file: string) => `SELECT * FROM read_parquet('${file}') ORDER BY payer_bucket, attempt_id`,
        (file: string) =>
          `SELECT * REPLACE (CASE WHEN hash(attempt_id) % 2 = 0 THEN NULL ELSE payer_bucket END AS payer_bucket) FROM read_parquet('${file}')`,
      ];
      let n = 0;
      for (const day of readdirSync(source)) {
        mkdirSync(join(paths.lake, "resolutions", `program=${program}`, day), { recursive: true });
        for (const part of readdirSync(join(source, day))) {
          const target = join(paths.lake, "resolutions", `program=${program}`, day, `part-v${n % 3}-${n}.parquet`);
          await world.ctx.duck.run(
            `COPY (${shapes[n++ % 3](join(source, day, part))}) TO '${target}' (FORMAT parquet, ROW_GROUP_SIZE 64)`,
          );
        }
      }
      expect(n).toBeGreaterThanOrEqual(3);
      const ctx = { ...world.ctx, paths };
      let seen = 0;
      for (const wallet of sampleWallets(program, 8)) {
        for (const window of ["7d", "30d"] as const) {
          const query = {
            program,
            wallet,
            window: windowRange(tables, window),
            accountId: null,
            limit: 500,
            position: null,
          };
          const page = await walletPage(ctx, query);
          const expected = expectedPage(world.rows, program, wallet, window, null);
          expect(page.summary).toMatchObject(expected.summary);
          expect(page.items.map((i) => i.sentAt)).toEqual(expected.sentAts.slice(0, 500));
          // The same page as from the generated parts (every row with its bucket).
          expect(page).toEqual(await walletPage(world.ctx, query));
          seen += expected.sentAts.length;
        }
      }
      expect(seen).toBeGreaterThan(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);

  test("a version's side files go with it; one wallet-page store, none of the old layout", async () => {
    const before = readPointer(world.ctx.paths)!.version;
    await buildServingTables(world.ctx);
    await buildServingTables(world.ctx);
    const current = readPointer(world.ctx.paths)!.version;
    const files = readdirSync(world.ctx.paths.tables)
      .filter((name) => name.startsWith("serving-"))
      .sort();
    const versionFiles = (v: number) => [`serving-${v}.answers`, `serving-${v}.duckdb`];
    expect(files).toEqual([...versionFiles(current - 1), ...versionFiles(current)].sort());
    expect(current).toBeGreaterThan(before);
    expect(existsSync(join(world.ctx.paths.tables, "wallets"))).toBe(false);
    expect(walletStoreBases(world.ctx.paths.tables)).toHaveLength(1);
    tables = await untilVersion(world.ctx, current);
  }, 30_000);
});
