// The resolver classifies a run's drops against the resolved sends around them: held in memory
// between runs (recent-sends.ts, fed by each run's resolutions), or read from the lake (envelopes ⋈
// resolutions) when the window reaches before what is held. Either way the classification must be
// exactly what the whole list of neighbours gives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Resolution } from "../../../src/chain/resolve";
import {
  classifyDrops,
  classifyDropsFrom,
  NEIGHBOUR_WINDOW_MS,
  type Neighbour,
  sendCount,
} from "../../../src/chain/resolve/drops";
import { RECENT_SENDS_MS, RecentSends } from "../../../src/chain/resolve/recent-sends";
import { loadNeighbours } from "../../../src/chain/resolve/resolve";
import { ResolverState } from "../../../src/chain/resolve/state";
import { sqlString } from "../../../src/lake/duckdb";
import { instantSql } from "../../../src/lake/schema";
import { testContext } from "../../helpers/context";
import { generateRun } from "./drops-reference";

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(() => ctx.dispose());

/** A test on a data directory of its own (its lake holds only what it writes). */
async function inOwnContext(work: (local: typeof ctx) => Promise<void>): Promise<void> {
  const local = await testContext();
  try {
    await work(local);
  } finally {
    local.dispose();
  }
}

/** Resolved neighbours written to the lake as a data team would find them: envelopes and their resolutions. */
async function writeLake(local: typeof ctx, neighbours: Neighbour[]): Promise<void> {
  const staging = join(local.paths.staging, "neighbours");
  mkdirSync(staging, { recursive: true });
  const rows = neighbours.map((n, i) => ({
    attempt_id: `n${String(i).padStart(6, "0")}`,
    sig: n.sig,
    program: n.program,
    payer: n.payer,
    rpc_hash: n.rpcHash,
    sent_at: n.sentAt,
    cu_price_micro_lamports: n.cuPriceMicroLamports,
    outcome: n.outcome,
  }));
  const file = join(staging, "rows.ndjson");
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
  const source = `read_json(${sqlString(file)}, format = 'newline_delimited', columns = {attempt_id: 'VARCHAR', sig: 'VARCHAR', program: 'VARCHAR', payer: 'VARCHAR', rpc_hash: 'VARCHAR', sent_at: 'BIGINT', cu_price_micro_lamports: 'BIGINT', outcome: 'VARCHAR'})`;
  const day = "strftime(make_timestamp(sent_at * 1000), '%Y-%m-%d') AS day";
  await local.duck.run(`COPY (SELECT attempt_id, sig, payer, rpc_hash, ${instantSql("sent_at")} AS sent_at, ${instantSql("sent_at")} AS received_at, cu_price_micro_lamports, program, ${day} FROM ${source})
    TO ${sqlString(local.paths.dataset("envelopes"))} (FORMAT parquet, PARTITION_BY (program, day), OVERWRITE_OR_IGNORE)`);
  await local.duck.run(`COPY (SELECT attempt_id, outcome, ${instantSql("sent_at + 1")} AS resolved_at, program, ${day} FROM ${source})
    TO ${sqlString(local.paths.dataset("resolutions"))} (FORMAT parquet, PARTITION_BY (program, day), OVERWRITE_OR_IGNORE)`);
}

/** A neighbour as the resolver holds a committed resolution. */
const resolutionOf = (n: Neighbour) =>
  ({
    attempt: {
      sentAt: n.sentAt,
      rpcHash: n.rpcHash,
      program: n.program,
      cuPriceMicroLamports: n.cuPriceMicroLamports,
      payer: n.payer,
      sig: n.sig,
    },
    outcome: n.outcome,
  }) as unknown as Resolution;

test("neighbours read from the lake (a window before what is held) classify every drop as the whole list did", async () => {
  const run = generateRun(400, 9000, 21);
  const resolved = run.neighbours.slice(0, 9000); // the rest are the drops themselves
  await writeLake(ctx, resolved);
  const whole: Neighbour[] = [
    ...resolved
      .map((n, i) => ({ n, i }))
      .filter(({ n }) => n.outcome !== "preflight")
      .sort((a, b) => a.n.sentAt - b.n.sentAt || a.i - b.i)
      .map(({ n }) => n),
    ...run.neighbours.slice(9000),
  ];
  const compact = await loadNeighbours(
    ctx,
    new ResolverState(),
    run.items.map((item) => item.attempt),
    [],
    Date.now(),
  );
  expect(compact.held).toBeUndefined(); // sent long before now: read from the lake
  expect(compact.sends.length).toBe(whole.length);
  expect(compact.samePayerProgram.length).toBeLessThan(whole.length);
  const diagnoses = classifyDropsFrom(run.items, compact);
  expect(diagnoses).toEqual(classifyDrops(run.items, whole));
  expect(new Set(diagnoses.map((d) => d.dropClass)).size).toBeGreaterThanOrEqual(4);
});

test("recent sends held between runs classify as the whole list does, as runs add to them", async () => {
  await inOwnContext(async (local) => {
    const run = generateRun(400, 9000, 23);
    // The generated ~40 minutes moved to end just now, so every window of the drops (sent in the
    // last minutes) is within the 20 minutes held.
    const shift = Date.now() - 60_000 - Math.max(...run.neighbours.map((n) => n.sentAt));
    const items = run.items.map((item) => ({
      ...item,
      attempt: { ...item.attempt, sentAt: item.attempt.sentAt + shift },
    }));
    const resolved = run.neighbours.slice(0, 9000).map((n) => ({ ...n, sentAt: n.sentAt + shift }));
    const drops = run.neighbours.slice(9000).map((n) => ({ ...n, sentAt: n.sentAt + shift }));
    // Drops whose retry window (±90 s) lies within the payers held (the last 4 minutes).
    const recent = new Set(
      items.map((item, i) => (item.attempt.sentAt > Date.now() - 2 * 60_000 ? i : -1)).filter((i) => i >= 0),
    );
    const recentItems = items.filter((_, i) => recent.has(i));
    const recentDrops = drops.filter((_, i) => recent.has(i)); // a run's own drops count among their neighbours
    const whole = (count: number): Neighbour[] => [
      ...resolved
        .slice(0, count)
        .filter((n) => n.outcome !== "preflight")
        .sort((a, b) => a.sentAt - b.sentAt),
      ...recentDrops,
    ];
    const inWindow = (list: Neighbour[]) => list.filter((n) => n.sentAt >= Date.now() - RECENT_SENDS_MS);

    const state = new ResolverState();
    await state.recent.ensureLoaded(local, Date.now()); // an empty lake: nothing held yet
    state.recent.add(resolved.slice(0, 4000).map(resolutionOf), Date.now());
    const first = await loadNeighbours(
      local,
      state,
      recentItems.map((item) => item.attempt),
      [],
      Date.now(),
    );
    expect(first.held).toBeDefined(); // answered from the held sends
    expect(classifyDropsFrom(recentItems, first)).toEqual(classifyDrops(recentItems, inWindow(whole(4000))));

    // The next runs' resolutions, in any order of send time.
    state.recent.add(resolved.slice(4000, 9000).reverse().map(resolutionOf), Date.now());
    const second = await loadNeighbours(
      local,
      state,
      recentItems.map((item) => item.attempt),
      [],
      Date.now(),
    );
    const first_ = Math.min(...recentItems.map((item) => item.attempt.sentAt));
    const last = Math.max(...recentItems.map((item) => item.attempt.sentAt));
    const around = resolved.filter(
      (n) =>
        n.outcome !== "preflight" && n.sentAt >= first_ - NEIGHBOUR_WINDOW_MS && n.sentAt <= last + NEIGHBOUR_WINDOW_MS,
    );
    expect(sendCount(second)).toBe(around.length + recentDrops.length); // every held send of the drops' windows, and the drops
    const diagnoses = classifyDropsFrom(recentItems, second);
    expect(diagnoses).toEqual(classifyDrops(recentItems, inWindow(whole(9000))));
    expect(new Set(diagnoses.map((d) => d.dropClass)).size).toBeGreaterThanOrEqual(3);
  });
});

test("beyond the cap the newest sends are held, never splitting a send time, and earlier windows go to the lake", async () => {
  await inOwnContext(async (local) => {
    const now = Date.now();
    // Three sends per send time, so a cut at the cap would split a time if it were careless.
    const sentAt = (i: number) => now - 10 * 60_000 + Math.floor(i / 3) * 300;
    const send = (i: number): Neighbour => ({
      sig: null,
      payer: "payer",
      program: "P1",
      rpcHash: "rpc",
      sentAt: sentAt(i),
      outcome: i % 4 === 0 ? "dropped" : "landed",
      cuPriceMicroLamports: 1000,
    });
    const recent = new RecentSends(1_000);
    await recent.ensureLoaded(local, now);
    recent.add(
      Array.from({ length: 3000 }, (_, i) => resolutionOf(send(i))),
      now,
    );
    expect(recent.heldFrom).toBeGreaterThan(now - RECENT_SENDS_MS);
    const heldSince = (from: number) =>
      Array.from({ length: 3600 }, (_, i) => sentAt(i)).filter((t, i) => (i < 3000 || recentlyAdded) && t >= from)
        .length;
    let recentlyAdded = false;
    const heldIn = (range: { from: number; to: number } | null) => recent.sends.window(range!.from, range!.to).count;
    const first = recent.range(recent.heldFrom, now)!;
    expect(heldIn(first)).toBe(heldSince(recent.heldFrom)); // every send from heldFrom on, none split
    expect(heldIn(first)).toBeGreaterThanOrEqual(1_000);
    expect(heldIn(first)).toBeLessThan(1_003);
    expect(recent.range(recent.heldFrom - 1, now)).toBeNull(); // the window reaches before what is held
    expect(recent.capped).toBe(true); // … because of the cap: the resolver's windows are then what is held

    recent.add(
      Array.from({ length: 600 }, (_, k) => resolutionOf(send(3000 + k))),
      now + 1_000,
    );
    recentlyAdded = true;
    const second = recent.range(recent.heldFrom, now + 1_000)!;
    expect(heldIn(second)).toBe(heldSince(recent.heldFrom));
    expect(heldIn(second)).toBeLessThan(1_003);
  });
});

test("a busy instance (more sends than the cap) classifies against what it holds; a drop decided late reads only its payers' sends from the lake", async () => {
  await inOwnContext(async (local) => {
    const now = Date.now();
    const run = generateRun(400, 9000, 27);
    // The generated ~40 minutes end 5 minutes ago: the drops were decided late (the payers and
    // signatures held are the last 4 minutes'), and more sends than the cap are within 20 minutes.
    const shift = now - 5 * 60_000 - Math.max(...run.neighbours.map((n) => n.sentAt));
    const resolved = run.neighbours.slice(0, 9000).map((n) => ({ ...n, sentAt: n.sentAt + shift }));
    await writeLake(local, resolved);
    const recent = new ResolverState();
    (recent as { recent: RecentSends }).recent = new RecentSends(2_000);
    await recent.recent.ensureLoaded(local, now);
    expect(recent.recent.capped).toBe(true);
    const heldFrom = recent.recent.heldFrom;
    expect(heldFrom).toBeGreaterThan(now - RECENT_SENDS_MS);

    // The drops whose retry window lies within what is held.
    const picked = run.items
      .map((item, i) => ({
        item: { ...item, attempt: { ...item.attempt, sentAt: item.attempt.sentAt + shift } },
        drop: { ...run.neighbours[9000 + i], sentAt: run.neighbours[9000 + i].sentAt + shift },
      }))
      .filter(({ item }) => item.attempt.sentAt >= heldFrom + 90_000);
    expect(picked.length).toBeGreaterThan(20);
    const items = picked.map((p) => p.item);
    const compact = await loadNeighbours(
      local,
      recent,
      items.map((item) => item.attempt),
      [],
      now,
    );
    expect(compact.held).toBeDefined(); // the held sends, not the lake's 20 minutes
    const held = resolved
      .filter((n) => n.outcome !== "preflight" && n.sentAt >= heldFrom)
      .sort((a, b) => a.sentAt - b.sentAt);
    expect(sendCount(compact)).toBe(
      held.filter((n) => n.sentAt <= Math.max(...items.map((i) => i.attempt.sentAt)) + NEIGHBOUR_WINDOW_MS).length +
        picked.length,
    );
    const diagnoses = classifyDropsFrom(items, compact);
    expect(diagnoses).toEqual(classifyDrops(items, [...held, ...picked.map((p) => p.drop)]));
    expect(diagnoses.some((d) => d.dropClass === "superseded_by_retry")).toBe(true); // the payers' sends came from the lake
  });
});

test("a resolver minutes behind still holds the payers of the sends it takes in (the retry hold follows the sends, not the clock)", async () => {
  await inOwnContext(async (local) => {
    const now = Date.now();
    const recent = new RecentSends();
    await recent.ensureLoaded(local, now); // an empty lake
    // Sends of 10 to 6 minutes ago, taken in now (the resolver is ~6 minutes behind).
    const sends: Neighbour[] = Array.from({ length: 240 }, (_, i) => ({
      sig: `s${i}`,
      payer: `payer${i % 4}`,
      program: "P1",
      rpcHash: "rpc",
      sentAt: now - 10 * 60_000 + i * 1_000,
      outcome: "landed",
      cuPriceMicroLamports: null,
    }));
    recent.add(sends.map(resolutionOf), now);
    const held = recent.heldPairs(now - 8 * 60_000, now - 7 * 60_000);
    expect(held).not.toBeNull(); // before: null (older than 4 minutes of the clock), so a lake read
    expect(held!.sends.pairSends("payer1\u0000P1", held!.from, held!.to).sigs).toEqual(
      sends
        .filter((s) => s.payer === "payer1" && s.sentAt >= now - 8 * 60_000 && s.sentAt <= now - 7 * 60_000)
        .map((s) => s.sig),
    );
    expect(recent.heldPairs(now - 11 * 60_000, now - 9 * 60_000)).toBeNull(); // beyond 4 minutes of sends
  });
});

test("a resolver minutes behind classifies against the sends it holds: the window follows the sends taken in, not the clock", async () => {
  await inOwnContext(async (local) => {
    const now = Date.now();
    const recent = new RecentSends();
    // Started 30 minutes ago (an empty lake), and fell behind: each minute's sends are taken in 7
    // minutes after they were sent.
    await recent.ensureLoaded(local, now - 30 * 60_000);
    const sends: Neighbour[] = Array.from({ length: 1380 }, (_, i) => ({
      sig: `s${i}`,
      payer: `payer${i % 4}`,
      program: "P1",
      rpcHash: "rpc",
      sentAt: now - 30 * 60_000 + i * 1_000,
      outcome: i % 5 === 0 ? "dropped" : "landed",
      cuPriceMicroLamports: null,
    }));
    for (let minute = 0; minute < 23; minute++)
      recent.add(
        sends.slice(minute * 60, (minute + 1) * 60).map(resolutionOf),
        now - 30 * 60_000 + (minute + 8) * 60_000,
      );
    // A drop sent 8 minutes ago: its 15-minute window starts 23 minutes ago, before the clock's last 20.
    const range = recent.range(now - 23 * 60_000, now + 7 * 60_000);
    expect(range).not.toBeNull(); // before: null, so a lake read of 30 minutes of sends every run
    expect(recent.sends.window(range!.from, range!.to).count).toBe(
      sends.filter((s) => s.sentAt >= now - 23 * 60_000).length,
    );
    expect(recent.range(now - 28 * 60_000, now)).toBeNull(); // beyond 20 minutes of sends: the lake
  });
});
