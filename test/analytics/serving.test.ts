// The serving shortcuts answer exactly what the query path answers: precomputed public answers
// (tables/answers.ts) against the same answer functions run on request; wallet pages (flat side
// files) against `attempts` and against the lake rows; the wallet pages reader on hand-made files
// (hash collisions, absent wallets); memoised JSON; side files going with their versions.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineAnswers } from "../../src/analytics/queries/baseline";
import { answerSlot, type AnswerScope, type RowSource } from "../../src/analytics/queries/common";
import { cuHeadroomAnswers } from "../../src/analytics/queries/cu-headroom";
import { providerReportAnswers } from "../../src/analytics/queries/provider-report";
import { releaseDiffAnswers } from "../../src/analytics/queries/release-diff";
import { SEGMENTS, topIssuesAnswers } from "../../src/analytics/queries/top-issues";
import { walletPage, type Position, type WalletPageQuery } from "../../src/analytics/queries/wallet-history";
import { answerJson, shareAnswer } from "../../src/analytics/serving/answer-json";
import { PRECOMPUTED_ROUTES, type PrecomputedRoute } from "../../src/analytics/serving/answers";
import { readPointer } from "../../src/analytics/serving/pointer";
import { ServingTables } from "../../src/analytics/serving/reader";
import { INDEX_RECORD_BYTES, WalletPages, walletPageKey } from "../../src/analytics/serving/wallet-pages";
import { buildServingTables } from "../../src/analytics/tables/build";
import { WINDOW_NAMES, WINDOWS, type WindowName } from "../../src/analytics/windows";
import { randomAddress } from "../helpers/envelopes";
import { END_MS, get, makeWorld, untilVersion, type Row, type World } from "./support";

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
          const computed = (await COMPUTE[route](tables, { scope: "*", programs: [program], windows: [window] })).get(answerSlot(program, window));
          expect(stored).not.toBeUndefined();
          expect({ route, program, window, answer: stored }).toEqual({ route, program, window, answer: computed ?? null });
          compared++;
        }
      }
    }
    expect(compared).toBe(PRECOMPUTED_ROUTES.length * programs.length * WINDOW_NAMES.length);
  });

  test("routes answer public requests from them: top-issues heads per segment and limit, release-diff 404 without a deploy", async () => {
    const program = world.generated.programs[0];
    for (const window of WINDOW_NAMES) {
      expect((await get(world, `/v1/baseline/${program}?window=${window}`)).body).toEqual(tables.precomputed("baseline", program, window));
      expect((await get(world, `/v1/cu-headroom/${program}?window=${window}`)).body).toEqual(tables.precomputed("cu-headroom", program, window));
      expect((await get(world, `/v1/provider-report/${program}?window=${window}`)).body).toEqual(tables.precomputed("provider-report", program, window));
      for (const segment of [null, ...SEGMENTS]) {
        for (const limit of [1, 3, 50, 500]) {
          const { body } = await get(world, `/v1/top-issues/${program}?window=${window}&limit=${limit}${segment ? `&segment=${segment}` : ""}`);
          // The query path with a LIMIT per segment, as the route computed it before precomputation.
          const full = (await topIssuesAnswers(tables, { scope: "*", programs: [program], windows: [window] }, segment)).get(answerSlot(program, window))!;
          expect(body.segment).toBe(segment);
          for (const name of SEGMENTS) expect(body.segments[name]).toEqual(segment === null || segment === name ? full.segments[name].slice(0, limit) : []);
        }
      }
    }
    const withDeploy = world.generated.deploys[0].program;
    const latest = Math.max(...world.generated.deploys.filter((d) => d.program === withDeploy).map((d) => d.slot));
    const { body } = await get(world, `/v1/release-diff/${withDeploy}?window=7d`);
    expect(body).toEqual(tables.precomputed("release-diff", withDeploy, "7d"));
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
async function allPages(source: ServingTables, query: Omit<WalletPageQuery, "position">) {
  const pages = [];
  let position: Position | null = null;
  for (let i = 0; i < 1000; i++) {
    const page = await walletPage(source, world.ctx.cursors, { ...query, position });
    pages.push(page);
    if (!page.nextCursor) break;
    position = world.ctx.cursors.decode(page.nextCursor, (value): value is Position => typeof value === "object" && value !== null);
  }
  return pages;
}

/** A second reader of the same version that has no wallet pages: every page comes from `attempts`. */
async function attemptsOnly(): Promise<ServingTables> {
  const plain = await ServingTables.open(world.ctx.paths.tables, readPointer(world.ctx.paths)!);
  plain.walletPages?.close();
  plain.walletPages = null;
  return plain;
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
    (r) => r.program === program && r.payer === wallet && r.received_at >= END_MS - WINDOWS[window] && r.received_at <= END_MS && (accountId === null || r.account_id === accountId),
  );
  const count = (outcome: string) => mine.filter((r) => r.outcome === outcome).length;
  return {
    summary: { landed: count("landed"), failedOnchain: count("failed_onchain"), dropped: count("dropped"), preflight: count("preflight") },
    sentAts: mine.map((r) => r.sent_at).sort((a, b) => b - a),
  };
}

describe("wallet pages", () => {
  test("pages equal the attempts path and the lake, for every window, scope and cursor", async () => {
    expect(tables.walletPages).not.toBeNull();
    const plain = await attemptsOnly();
    try {
      const program = world.generated.programs[0];
      for (const wallet of [...sampleWallets(program, 30), randomAddress()]) {
        for (const window of WINDOW_NAMES) {
          for (const accountId of [null, world.accounts.a]) {
            const query = { program, wallet, window, accountId, limit: 25 };
            const fromPages = await allPages(tables, query);
            expect(fromPages).toEqual(await allPages(plain, query));
            const expected = expectedPage(world.rows, program, wallet, window, accountId);
            expect(fromPages[0].summary).toMatchObject(expected.summary);
            expect(fromPages.flatMap((p) => p.items.map((i) => i.sentAt))).toEqual(expected.sentAts);
          }
        }
      }
    } finally {
      plain.retire();
    }
  }, 60_000);

  test("wallets over the line limit are read from attempts; lines built in parts; side files go with their versions", async () => {
    const before = readPointer(world.ctx.paths)!.version;
    // Small parts: the lines come from several aggregates (bounded memory) and must still be every wallet once.
    const built = await buildServingTables(world.ctx, { walletLineMaxItems: 20, walletAttemptsPerPart: 2_000 });
    const walletCount = (result: typeof built.walletPages) => ("wallets" in result ? result.wallets : -1);
    const partedWallets = walletCount(built.walletPages); // read before toMatchObject (Bun's writes its matcher into the object)
    expect(built.walletPages).toMatchObject({ wallets: expect.any(Number) });
    const small = await untilVersion(world.ctx, built.version);
    const program = world.generated.programs[1];
    const wallets = sampleWallets(program, 12);
    let big = 0;
    for (const wallet of wallets) {
      const record = small.walletPages!.find(program, wallet)!;
      if ("walletKey" in record) big++;
      for (const window of WINDOW_NAMES) {
        const pages = await allPages(small, { program, wallet, window, accountId: null, limit: 9 });
        const expected = expectedPage(world.rows, program, wallet, window, null);
        expect(pages[0].summary).toMatchObject(expected.summary);
        expect(pages.flatMap((p) => p.items.map((i) => i.sentAt))).toEqual(expected.sentAts);
      }
    }
    expect(big).toBeGreaterThan(0);
    const whole = await buildServingTables(world.ctx);
    expect(walletCount(whole.walletPages)).toBe(partedWallets);
    expect(built.steps.wallet_lines).toBeGreaterThanOrEqual(0);
    const current = readPointer(world.ctx.paths)!.version;
    const files = readdirSync(world.ctx.paths.tables).filter((name) => name.startsWith("serving-")).sort();
    const versionFiles = (v: number) => [`serving-${v}.duckdb`, `serving-${v}.answers`, `serving-${v}.wallets`, `serving-${v}.wallets.idx`];
    expect(files).toEqual([...versionFiles(current - 1), ...versionFiles(current)].sort());
    expect(current).toBeGreaterThan(before);
    tables = await untilVersion(world.ctx, current);
  }, 30_000);

  test("the reader follows hash collisions to the right line and answers null for absent wallets", async () => {
    const dir = mkdtempSync(join(tmpdir(), "txray-wallet-pages-"));
    try {
      const program = randomAddress();
      const wallets = Array.from({ length: 300 }, () => randomAddress());
      const item = (i: number) => [`sig${i}`, 1000 + i, 2000 + i, "landed", null, "swap", null, "helius", String(10 + i), "acc"];
      const lines = wallets.map((wallet, i) => JSON.stringify([program, wallet, [item(i), item(i + 1000)], null]));
      // A collision: a second record under wallet 7's key that leads to wallet 8's line, sorted first.
      const records = wallets.map((wallet, i) => ({ key: walletPageKey(program, wallet), line: i, order: 1 }));
      records.push({ key: walletPageKey(program, wallets[7]), line: 8, order: 0 });
      records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.order - b.order));
      const offsets: number[] = [];
      let offset = 0;
      for (const line of lines) {
        offsets.push(offset);
        offset += Buffer.byteLength(line) + 1;
      }
      const files = { data: join(dir, "w.wallets"), index: join(dir, "w.wallets.idx") };
      writeFileSync(files.data, lines.map((line) => line + "\n").join(""));
      writeFileSync(
        files.index,
        records.map((r) => `${r.key}${String(offsets[r.line]).padStart(12, "0")}${String(Buffer.byteLength(lines[r.line]) + 1).padStart(8, "0")}\n`).join(""),
      );
      const pages = (await WalletPages.open(files))!;
      expect(pages.wallets).toBe(301);
      for (const [i, wallet] of wallets.entries()) {
        const record = pages.find(program, wallet);
        expect(record).toEqual({ items: [item(i + 1000), item(i)] as never }); // newest first
      }
      expect(pages.find(program, randomAddress())).toBeNull();
      pages.close();
      writeFileSync(files.index, "0".repeat(INDEX_RECORD_BYTES - 1));
      expect(await WalletPages.open(files)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
