// Compaction merges by size tier: a day's compacted part is not rewritten to add a few new parts
// (before, every run re-sorted a day's growing part-c with them: up to 64 MB per partition under
// load), parts of one tier merge once there are enough of them, and a day that is over is merged
// whole. A shutdown while the swaps wait for a tables build stops the run (it does not report the
// lease as held).
import { afterEach, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { withLease } from "../../src/control";
import { compactLake, isCompactedPart, sizeTier } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { createLogger } from "../../src/shared/logger";
import { Stopped } from "../../src/shared/stop";
import { makeEnvelope } from "../helpers/envelopes";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** Flushes `count` parts of 200 envelopes each into the one partition (today's: days are when parts are received); returns its directory. */
async function flushParts(server: TestServer, count: number): Promise<string> {
  const key = server.key("tiers");
  for (let i = 0; i < count; i++) {
    const envelopes = Array.from({ length: 200 }, () => makeEnvelope());
    expect((await server.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await server.server.spool!.seal();
    await flushSpool(server.ctx);
  }
  const root = server.ctx.paths.dataset("envelopes");
  const program = join(root, readdirSync(root)[0]);
  return join(program, readdirSync(program)[0]);
}

const parts = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".parquet"))
    .sort();
const bytes = (dir: string, name: string) => statSync(join(dir, name)).size;

/** A first compacted part, and a tier base between a flush part's size and its (so they are of different tiers). */
async function firstCompactedPart(server: TestServer) {
  const dir = await flushParts(server, 4);
  const flushed = Math.max(...parts(dir).map((name) => bytes(dir, name)));
  expect(await compactLake(server.ctx, { minParts: 4 })).toEqual({ partitions: 1, partsMerged: 4 });
  const [first] = parts(dir);
  expect(isCompactedPart(first)).toBe(true);
  expect(bytes(dir, first)).toBeGreaterThan(flushed * 1.5);
  const tierBaseBytes = Math.floor((flushed + bytes(dir, first)) / 2);
  expect(sizeTier(flushed, { base: tierBaseBytes, factor: 4 })).toBe(0);
  expect(sizeTier(bytes(dir, first), { base: tierBaseBytes, factor: 4 })).toBe(1);
  return { dir, first, tierBaseBytes };
}

test("a day's compacted part is left as it is while new small parts merge into parts of their own, until a tier holds enough", async () => {
  t = await testServer();
  const { dir, first, tierBaseBytes } = await firstCompactedPart(t);

  // Three more rounds of four flushes: each merges its four new parts only; the first compacted part stays.
  for (let round = 1; round <= 3; round++) {
    await flushParts(t, 4);
    expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes })).toEqual({ partitions: 1, partsMerged: 4 });
    expect(parts(dir)).toContain(first);
    expect(parts(dir).length).toBe(1 + round);
    expect(parts(dir).every(isCompactedPart)).toBe(true);
  }
  // Four compacted parts of one tier: merged into one of the next.
  expect(parts(dir).every((name) => sizeTier(bytes(dir, name), { base: tierBaseBytes, factor: 4 }) === 1)).toBe(true);
  expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes })).toEqual({ partitions: 1, partsMerged: 4 });
  expect(parts(dir).length).toBe(1);
  expect(parts(dir)).not.toContain(first);
  expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 3200, d: 3200 });
  // Still in payer order (wallet pages skip row groups by their payer range).
  const payers = (
    await t.ctx.duck.all<{ payer: string }>(`SELECT payer FROM read_parquet('${join(dir, parts(dir)[0])}')`)
  ).map((r) => r.payer);
  expect(payers).toEqual([...payers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
});

test("two tiers of one partition merged in one pass are swapped in once (a reader lists the partition anew once)", async () => {
  t = await testServer();
  const { dir, tierBaseBytes } = await firstCompactedPart(t);
  for (let round = 1; round <= 3; round++) {
    await flushParts(t, 4);
    await compactLake(t.ctx, { minParts: 4, tierBaseBytes });
  }
  // Four compacted parts of tier 1 and four new flush parts of tier 0.
  await flushParts(t, 4);
  expect(parts(dir).length).toBe(8);
  const lines: string[] = [];
  const logger = createLogger("debug", (line) => lines.push(line));
  expect(await compactLake({ ...t.ctx, logger }, { minParts: 4, tierBaseBytes })).toEqual({
    partitions: 1,
    partsMerged: 8,
  });
  expect(parts(dir).length).toBe(2);
  expect(lines.filter((line) => line.includes('"compacted partition"')).length).toBe(1);
  expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 4000, d: 4000 });
});

test("fewer small parts than a tier needs are left alone while their day goes on, and merged whole once it is over", async () => {
  t = await testServer();
  const { dir, first, tierBaseBytes } = await firstCompactedPart(t);
  await flushParts(t, 3);
  // Tier 0 holds three, tier 1 one: nothing to merge while the day goes on.
  expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes })).toEqual({ partitions: 0, partsMerged: 0 });
  expect(parts(dir).length).toBe(4);
  // An hour after the day ended, all of them become one part.
  const day = /day=(\d{4}-\d{2}-\d{2})$/.exec(dir)![1];
  const dayOver = Date.parse(`${day}T00:00:00Z`) + 86_400_000 + 3_600_000;
  expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes, now: dayOver - 1 })).toEqual({
    partitions: 0,
    partsMerged: 0,
  });
  expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes, now: dayOver })).toEqual({
    partitions: 1,
    partsMerged: 4,
  });
  expect(parts(dir).length).toBe(1);
  expect(parts(dir)).not.toContain(first);
  expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 1400, d: 1400 });
  // A settled day of one part is left as it is.
  expect(await compactLake(t.ctx, { minParts: 4, tierBaseBytes, now: dayOver })).toEqual({
    partitions: 0,
    partsMerged: 0,
  });
});

test("one merge reads at most twice the small-part size: a settled day's parts become several bounded parts", async () => {
  t = await testServer();
  const dir = await flushParts(t, 6);
  const sizes = parts(dir).map((name) => bytes(dir, name));
  expect(Math.min(...sizes)).toBeGreaterThan(0.85 * Math.max(...sizes));
  // Twice this is room for three parts, not four.
  const smallPartBytes = Math.ceil(1.6 * Math.max(...sizes));
  const day = /day=(\d{4}-\d{2}-\d{2})$/.exec(dir)![1];
  const dayOver = Date.parse(`${day}T00:00:00Z`) + 86_400_000 + 3_600_000;
  expect(await compactLake(t.ctx, { minParts: 4, smallPartBytes, now: dayOver })).toEqual({
    partitions: 1,
    partsMerged: 6,
  });
  expect(parts(dir).length).toBe(2);
  expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 1200, d: 1200 });
});

test("a shutdown while the swaps wait for a tables build stops the run: nothing swapped, staging emptied", async () => {
  t = await testServer();
  const dir = await flushParts(t, 4);
  let release!: () => void;
  let taken!: () => void;
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const build = withLease(t.ctx.control, "job:tables", async () => {
    taken();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await isTaken;
  const shutdown = new AbortController();
  const compaction = compactLake(t.ctx, {
    minParts: 4,
    signal: shutdown.signal,
    swapsWaitFor: { lease: "job:tables", waitMs: 60_000 },
  });
  const staging = () => readdirSync(t!.ctx.paths.staging).filter((name) => name.startsWith("compact-"));
  for (let waited = 0; staging().length === 0 && waited < 20_000; waited += 10) await Bun.sleep(10);
  expect(staging().length).toBe(1);
  shutdown.abort(new Stopped());
  expect(compaction).rejects.toBeInstanceOf(Stopped);
  await compaction.catch(() => {});
  expect(parts(dir).length).toBe(4);
  expect(staging()).toEqual([]);
  release();
  await build;
});
