// The serving shortcuts answer exactly what the query path answers: precomputed public answers
// (tables/answers.ts) against the same answer functions run on request; wallet pages from the
// wallet store against the lake rows; the segment reader and merge on hand-made files (hash
// collisions, absent wallets, long histories, newer versions); memoised JSON; side files going with
// their versions.

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
import { readPointer, walletManifestFile } from "../../src/analytics/serving/pointer";
import { ServingTables } from "../../src/analytics/serving/reader";
import { mergeSegments, newestFirst, SegmentWriter, WalletSegment, walletKey, walletLines, type WalletItemTuple } from "../../src/analytics/serving/wallet-segments";
import { readWalletManifest, walletsDir } from "../../src/analytics/serving/wallets";
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

describe("wallet store", () => {
  test("pages equal the lake, for every window, scope and cursor", async () => {
    expect(tables.wallets?.count).toBeGreaterThan(0);
    const program = world.generated.programs[0];
    for (const wallet of [...sampleWallets(program, 30), randomAddress()]) {
      for (const window of WINDOW_NAMES) {
        for (const accountId of [null, world.accounts.a]) {
          for (const limit of [3, 25]) {
            const pages = await allPages(tables, { program, wallet, window, accountId, limit });
            const expected = expectedPage(world.rows, program, wallet, window, accountId);
            for (const page of pages) expect(page.summary).toMatchObject(expected.summary);
            expect(pages.flatMap((p) => p.items.map((i) => i.sentAt))).toEqual(expected.sentAts);
          }
        }
      }
    }
  }, 60_000);

  test("a version's side files go with it; segments stay while a kept version names them", async () => {
    const before = readPointer(world.ctx.paths)!.version;
    await buildServingTables(world.ctx);
    await buildServingTables(world.ctx);
    const current = readPointer(world.ctx.paths)!.version;
    const files = readdirSync(world.ctx.paths.tables).filter((name) => name.startsWith("serving-")).sort();
    const versionFiles = (v: number) => [`serving-${v}.answers`, `serving-${v}.duckdb`, `serving-${v}.wallets.json`];
    expect(files).toEqual([...versionFiles(current - 1), ...versionFiles(current)].sort());
    expect(current).toBeGreaterThan(before);
    const named = new Set([current - 1, current].flatMap((v) => readWalletManifest(walletManifestFile(world.ctx.paths.tables, v))!.segments.map((s) => s.name)));
    expect(readdirSync(walletsDir(world.ctx.paths.tables)).sort()).toEqual([...named].sort());
    tables = await untilVersion(world.ctx, current);
  }, 30_000);

  test("segments: hash collisions lead to the right wallet, absent wallets find nothing, long histories span lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "txray-wallet-segments-"));
    try {
      const program = randomAddress();
      const item = (i: number, version = 1): WalletItemTuple => [`sig${i}`, 1000 + i, 2000 + i, "landed", null, "swap", null, "helius", String(10 + i), "acc", version];
      const wallets = Array.from({ length: 300 }, () => randomAddress());
      // Lines in key order; wallet 7's key also carries a second wallet (a hash collision), and
      // wallet 8 has more items than one line holds.
      const lines: { key: string; program: string; wallet: string; items: WalletItemTuple[] }[] = wallets.map((wallet, i) => ({
        key: walletKey(program, wallet), program, wallet, items: i === 8 ? Array.from({ length: 1200 }, (_, k) => item(5000 + k)).sort(newestFirst) : [item(i + 1000), item(i)],
      }));
      const collider = randomAddress();
      const collidingKey = lines[7].key;
      lines.push({ key: collidingKey, program, wallet: collider, items: [item(99)] });
      lines.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.wallet < b.wallet ? -1 : 1));
      const writer = new SegmentWriter(join(dir, "a.wseg"), 20_000);
      for (const line of lines) for (const text of walletLines(line.key, line.program, line.wallet, line.items)) writer.add(text.text, text.items);
      expect(writer.close().wallets).toBe(300);
      const segment = WalletSegment.open(join(dir, "a.wseg"));
      for (const [i, wallet] of wallets.entries()) {
        const found = segment.find(program, wallet).flatMap((line) => line.items());
        if (i === 8) expect(found).toEqual(lines.find((l) => l.wallet === wallet)!.items);
        else expect(found).toEqual([item(i + 1000), item(i)]); // newest first
      }
      expect(segment.find(program, wallets[8]).length).toBe(3); // 500 + 500 + 200
      // (A real collision is two wallets whose md5 prefixes agree; here the key is given.)
      expect(segment.find(program, collider, collidingKey).flatMap((line) => line.items())).toEqual([item(99)]);
      expect(segment.find(program, randomAddress())).toEqual([]);
      // Merging keeps each attempt once, in its newest version.
      const second = new SegmentWriter(join(dir, "b.wseg"), 20_000);
      for (const text of walletLines(walletKey(program, wallets[3]), program, wallets[3], [item(1003, 2), item(3, 2)])) second.add(text.text, text.items);
      second.close();
      const b = WalletSegment.open(join(dir, "b.wseg"));
      await mergeSegments([segment, b], join(dir, "m.wseg"), 20_000);
      const merged = WalletSegment.open(join(dir, "m.wseg"));
      expect(merged.find(program, wallets[3]).flatMap((line) => line.items())).toEqual([item(1003, 2), item(3, 2)]);
      expect(merged.find(program, wallets[8]).flatMap((line) => line.items()).length).toBe(1200);
      expect(merged.items).toBe(segment.items);
      for (const s of [segment, b, merged]) s.close();
      writeFileSync(join(dir, "broken.wseg"), "not a segment");
      expect(() => WalletSegment.open(join(dir, "broken.wseg"))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a large merge lets the event loop run meanwhile (the server's requests are not held for its length)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "txray-wallet-merge-"));
    try {
      const program = randomAddress();
      const inputs = ["a", "b"].map((name, half) => {
        const writer = new SegmentWriter(join(dir, `${name}.wseg`), 20_000);
        const wallets = Array.from({ length: 20_000 }, () => randomAddress()).map((payer) => ({ payer, key: walletKey(program, payer) }));
        wallets.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
        for (const { payer, key } of wallets) {
          const items: WalletItemTuple[] = [0, 1, 2].map((i) => [`sig-${payer}-${half}-${i}`, 1000 + i, 2000 + i, "landed", null, "swap", null, "helius", String(half * 10 + i + 1), "acc", 1]);
          for (const text of walletLines(key, program, payer, items)) writer.add(text.text, text.items);
        }
        writer.close();
        return WalletSegment.open(join(dir, `${name}.wseg`));
      });
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const merged = await mergeSegments(inputs, join(dir, "m.wseg"), 20_000);
      clearInterval(timer);
      expect(merged.items).toBe(120_000);
      // Without pauses the timer could not fire before the merge's promise settled.
      expect(ticks).toBeGreaterThan(0);
      for (const input of inputs) input.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
