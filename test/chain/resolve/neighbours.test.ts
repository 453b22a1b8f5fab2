// The resolver reads a run's drop neighbours from the attempt index in a compact form (full rows only
// for the drops' payer+program pairs, every other send as columns, a minute at a time). The
// classification must be exactly what the whole list of indexed neighbours gave.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { classifyDrops, classifyDropsFrom, sendCount, type Neighbour } from "../../../src/chain/resolve/drops";
import { loadNeighbours } from "../../../src/chain/resolve/resolve";
import { RECENT_SENDS_MS, RecentSends } from "../../../src/chain/resolve/recent-sends";
import { testContext } from "../../helpers/context";
import { generateRun } from "./drops-reference";

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(() => ctx.dispose());

test("compact neighbours from the index classify every drop as the whole list did", async () => {
  for (const [drops, neighbours, seed] of [[400, 9000, 21], [1500, 3000, 22]] as const) {
    ctx.control.query("DELETE FROM attempt_index").run();
    const run = generateRun(drops, neighbours, seed);
    const indexed = run.neighbours.slice(0, neighbours); // the rest are the drops themselves
    const insert = ctx.control.query(
      `INSERT INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
         cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, ?, 'acc', ?, ?, ?, ?, 'label', ?, ?, ?, NULL, NULL, '{}')`,
    );
    ctx.control.transaction(() => {
      indexed.forEach((n, i) => insert.run(`n${String(i).padStart(6, "0")}`, n.sig, n.program, n.outcome, n.payer, n.rpcHash, n.sentAt, n.sentAt + 1, n.cuPriceMicroLamports));
    })();
    // What the resolver used to classify against: every indexed send (not preflight) in time order,
    // ties in index order, then this run's drops.
    const whole: Neighbour[] = [
      ...indexed.map((n, i) => ({ n, i })).filter(({ n }) => n.outcome !== "preflight").sort((a, b) => a.n.sentAt - b.n.sentAt || a.i - b.i).map(({ n }) => n),
      ...run.neighbours.slice(neighbours),
    ];
    const compact = await loadNeighbours(ctx, run.items.map((item) => item.attempt), []);
    expect(compact.held).toBeUndefined(); // sent long before now: read from the index
    expect(compact.sends.length).toBe(whole.length);
    expect(compact.samePayerProgram.length).toBeLessThan(whole.length);
    const diagnoses = classifyDropsFrom(run.items, compact);
    expect(diagnoses).toEqual(classifyDrops(run.items, whole));
    expect(new Set(diagnoses.map((d) => d.dropClass)).size).toBeGreaterThanOrEqual(4);
  }
});

test("recent sends held between runs classify as the whole index does, as the index grows", async () => {
  const local = await testContext();
  try {
    const run = generateRun(400, 9000, 23);
    // The generated ~40 minutes moved to start 4 minutes ago, so every window (15 minutes before a
    // drop) is within the 20 minutes held, with a minute to spare for the test's own run time.
    const shift = Date.now() - 4 * 60_000 - Math.min(...run.neighbours.map((n) => n.sentAt));
    const items = run.items.map((item) => ({ ...item, attempt: { ...item.attempt, sentAt: item.attempt.sentAt + shift } }));
    const indexed = run.neighbours.slice(0, 9000).map((n) => ({ ...n, sentAt: n.sentAt + shift }));
    const drops = run.neighbours.slice(9000).map((n) => ({ ...n, sentAt: n.sentAt + shift }));
    const insert = local.control.query(
      `INSERT INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
         cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, ?, 'acc', ?, ?, ?, ?, 'label', ?, ?, ?, NULL, NULL, '{}')`,
    );
    const index = (from: number, to: number, resolvedAt: (i: number) => number) =>
      local.control.transaction(() => {
        for (let i = from; i < to; i++) {
          const n = indexed[i];
          insert.run(`n${String(i).padStart(6, "0")}`, n.sig, n.program, n.outcome, n.payer, n.rpcHash, n.sentAt, resolvedAt(i), n.cuPriceMicroLamports);
        }
      })();
    const whole = (count: number): Neighbour[] => [...indexed.slice(0, count).filter((n) => n.outcome !== "preflight").sort((a, b) => a.sentAt - b.sentAt), ...drops];
    const resolvedAt = Date.now() - 60_000;

    index(0, 4000, () => resolvedAt);
    const first = await loadNeighbours(local, items.map((item) => item.attempt), []);
    expect(first.held).toBeDefined(); // answered from the held sends (loaded on first use)
    expect(sendCount(first)).toBe(whole(4000).length);
    expect(classifyDropsFrom(items, first)).toEqual(classifyDrops(items, whole(4000)));

    // Indexed since: some at the very time of the last read (a clock that did not move), the rest later.
    index(4000, 9000, (i) => (i < 5000 ? resolvedAt : resolvedAt + 1 + (i % 3)));
    const second = await loadNeighbours(local, items.map((item) => item.attempt), []);
    expect(second.held).toBeDefined();
    expect(sendCount(second)).toBe(whole(9000).length);
    const diagnoses = classifyDropsFrom(items, second);
    expect(diagnoses).toEqual(classifyDrops(items, whole(9000)));
    expect(new Set(diagnoses.map((d) => d.dropClass)).size).toBeGreaterThanOrEqual(4);

    // Nothing new: the same answer, nothing counted twice.
    const third = await loadNeighbours(local, items.map((item) => item.attempt), []);
    expect(sendCount(third)).toBe(whole(9000).length);
  } finally {
    local.dispose();
  }
});

test("beyond the cap the newest sends are held, never splitting a send time, and earlier windows go to the index", async () => {
  const local = await testContext();
  try {
    const now = Date.now();
    const insert = local.control.query(
      `INSERT INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
         cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, NULL, 'acc', 'P1', ?, 'payer', 'rpc', 'label', ?, ?, 1000, NULL, NULL, '{}')`,
    );
    // Three sends per send time, so a cut at the cap would split a time if it were careless.
    const sentAt = (i: number) => now - 10 * 60_000 + Math.floor(i / 3) * 300;
    const index = (from: number, to: number, resolvedAt: number) =>
      local.control.transaction(() => {
        for (let i = from; i < to; i++) insert.run(`a${i}`, i % 4 === 0 ? "dropped" : "landed", sentAt(i), resolvedAt);
      })();
    const indexedSince = (from: number) => local.control.query<{ n: number }, [number]>("SELECT count(*) AS n FROM attempt_index WHERE sent_at >= ?").get(from)!.n;

    index(0, 3000, now - 1_000);
    const recent = new RecentSends(1_000);
    await recent.refresh(local.control, now);
    expect(recent.heldFrom).toBeGreaterThan(now - RECENT_SENDS_MS);
    const first = recent.range(recent.heldFrom, now)!;
    expect(first.end - first.start).toBe(indexedSince(recent.heldFrom)); // every send from heldFrom on, none split
    expect(first.end - first.start).toBeGreaterThanOrEqual(1_000);
    expect(first.end - first.start).toBeLessThan(1_003);
    expect(recent.range(recent.heldFrom - 1, now)).toBeNull(); // the window reaches before: read from the index

    index(3000, 3600, now); // indexed since the last read
    await recent.refresh(local.control, now + 1_000);
    const second = recent.range(recent.heldFrom, now + 1_000)!;
    expect(second.end - second.start).toBe(indexedSince(recent.heldFrom));
    expect(second.end - second.start).toBeLessThan(1_003);
  } finally {
    local.dispose();
  }
});
