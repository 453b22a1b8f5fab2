// The held sends keep drop classification's counts up to date as sends come (in any order of send
// time) and go (the oldest, and payers past the retry hold). Whatever the sequence, every count must
// be what filtering the rows held at that moment gives: for one sorted store, and for the two a
// resolver holds (sends newer than all held appended to one, the late merged into the other).
import { expect, test } from "bun:test";
import { type PriceRun, payerProgramKey } from "../../../src/chain/resolve/drops";
import { type HistoryRow, SendHistory, SortedSends } from "../../../src/chain/resolve/send-history";
import type { Outcome } from "../../../src/chain/resolve/types";
import { seeded as random } from "./drops-reference";

const OUTCOMES: Outcome[] = ["landed", "landed", "failed_onchain", "dropped"];

/** A program's landed sends as (time, price) pairs ordered by both: what the fee check reads of its runs (a multiset). */
function landedPairs(runs: PriceRun[] | { times: number[]; prices: (number | null)[] }): [number, number][] {
  const list = Array.isArray(runs) ? runs : [{ ...runs, start: 0, end: runs.times.length }];
  const pairs: [number, number][] = [];
  for (const run of list) for (let k = run.start; k < run.end; k++) pairs.push([run.times[k], run.prices[k] as number]);
  return pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** What filtering the rows gives for every question the index answers. */
function expected(rows: HistoryRow[], from: number, to: number, rpcHash: string, program: string, keys: Set<string>) {
  const inRange = rows.filter((r) => r.sentAt >= from && r.sentAt <= to);
  const counts = (list: HistoryRow[]) => ({
    count: list.length,
    drops: list.filter((r) => r.outcome === "dropped").length,
  });
  const landed = inRange.filter((r) => r.program === program && r.outcome !== "dropped" && r.price !== null);
  return {
    window: counts(inRange),
    provider: counts(inRange.filter((r) => r.rpcHash === rpcHash)),
    landed: { times: landed.map((r) => r.sentAt), prices: landed.map((r) => r.price) },
    pairs: [...keys].map((key) => {
      const same = rows.filter(
        (r) => r.payer !== null && payerProgramKey(r.payer, r.program) === key && r.sentAt >= from && r.sentAt <= to,
      );
      return { times: same.map((r) => r.sentAt), sigs: same.map((r) => r.sig), outcomes: same.map((r) => r.outcome) };
    }),
  };
}

/** Every question classification asks, over [from, to] for a provider, a program and two pairs picked at random, against filtering `rows`. */
function expectAnswers(
  held: SortedSends | SendHistory,
  rows: HistoryRow[],
  from: number,
  to: number,
  pick: <T>(list: readonly T[]) => T,
): void {
  const rpcHash = pick(["rpcA", "rpcB", "rpcC", "rpcD"]);
  const program = pick(["P1", "P2", "P3"]);
  const keys = new Set([
    payerProgramKey(pick(["w1", "w2", "w3", "w4", "w5"]), pick(["P1", "P2"])),
    payerProgramKey(pick(["w1", "w2", "w3"]), "P1"),
  ]);
  const want = expected(rows, from, to, rpcHash, program, keys);
  expect(held.window(from, to)).toEqual(want.window);
  expect(held.providerWindow(rpcHash, from, to)).toEqual(want.provider);
  expect(landedPairs(held.landedPrices(program, from, to))).toEqual(landedPairs(want.landed));
  expect([...keys].map((key) => held.pairSends(key, from, to))).toEqual(want.pairs);
}

for (const seed of [1, 2, 3, 4, 5]) {
  test(`counts follow sends added out of order and let go from the front (seed ${seed})`, () => {
    const next = random(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const held = new SortedSends();
    let rows: HistoryRow[] = []; // the model: what is held, in send-time order
    let clock = 1_000_000;
    let detailFrom = 0;
    let sig = 0;
    const newRow = (sentAt: number): HistoryRow => ({
      sentAt,
      rpcHash: pick(["rpcA", "rpcB", "rpcC"]),
      program: pick(["P1", "P2"]),
      outcome: pick(OUTCOMES),
      price: next() < 0.2 ? null : Math.floor(next() * 50),
      payer: pick(["w1", "w2", "w3", "w4", "w5"]),
      sig: `s${sig++}`,
    });
    for (let step = 0; step < 300; step++) {
      const action = next();
      if (action < 0.6) {
        // A run's resolutions: mostly the latest, some sent before the newest held one.
        clock += Math.floor(next() * 20);
        // Sends before the retry hold come without their payers (as recent-sends.ts adds them).
        const batch = Array.from({ length: 1 + Math.floor(next() * 12) }, () => newRow(clock - Math.floor(next() * 60)))
          .map((r) => (r.sentAt < detailFrom ? { ...r, payer: null, sig: null } : r))
          .sort((a, b) => a.sentAt - b.sentAt);
        held.insert(batch);
        // The model: a stable merge by send time (rows held first on equal times).
        rows = [...rows, ...batch]
          .map((row, order) => ({ row, order }))
          .sort((a, b) => a.row.sentAt - b.row.sentAt || a.order - b.order)
          .map(({ row }) => row);
      } else if (action < 0.8) {
        // The retry hold moves on: payers of sends before it are let go.
        const newDetailFrom = Math.max(detailFrom, clock - 100 + Math.floor(next() * 60));
        const index = (time: number) => {
          const i = rows.findIndex((r) => r.sentAt >= time);
          return i < 0 ? rows.length : i;
        };
        held.forgetDetailsBefore(index(detailFrom), index(newDetailFrom));
        detailFrom = newDetailFrom;
        rows = rows.map((r) => (r.sentAt < detailFrom ? { ...r, payer: null, sig: null } : r));
      } else {
        // The window moves on: the oldest rows go.
        const k = Math.floor(next() * Math.min(rows.length, 20));
        held.dropFront(k);
        rows = rows.slice(k);
      }
      expect(held.length).toBe(rows.length);
      expect([...held.times]).toEqual(rows.map((r) => r.sentAt));
      expect(held.sigs).toEqual(rows.map((r) => r.sig)); // equal send times in the order they came
      // Each row's columns as they came (providers and programs by number, a missing price as NaN).
      expect(Array.from({ length: held.length }, (_, i) => held.row(i))).toEqual(
        rows.map(({ sentAt, rpcHash, program, outcome, price }) => ({ sentAt, rpcHash, program, outcome, price })),
      );
      const landedRows = rows.filter((r) => r.outcome !== "dropped" && r.price !== null).length;
      expect(held.footprint()).toEqual({
        providers: rows.length,
        landed: landedRows,
        pairs: rows.filter((r) => r.payer !== null).length,
      });
      // Questions over a random window of time.
      const from = clock - Math.floor(next() * 400);
      const to = from + Math.floor(next() * 400);
      expectAnswers(held, rows, from, to, pick);
    }
  });
}

for (const seed of [11, 12, 13, 14, 15]) {
  test(`two stores answer as one: runs' late sends (drops decided a minute on) merged among the late only (seed ${seed})`, () => {
    const next = random(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const held = new SendHistory();
    let rows: HistoryRow[] = []; // the model: every row added, in send-time order (equal times in the order they came)
    let clock = 1_000_000;
    let detailFrom = 0;
    let heldFrom = 0; // rows before it may or may not be held still: questions start from it
    let sig = 0;
    const newRow = (sentAt: number): HistoryRow => ({
      sentAt,
      rpcHash: pick(["rpcA", "rpcB", "rpcC"]),
      program: pick(["P1", "P2"]),
      outcome: pick(OUTCOMES),
      price: next() < 0.2 ? null : Math.floor(next() * 50),
      payer: pick(["w1", "w2", "w3", "w4", "w5"]),
      sig: `s${sig++}`,
    });
    let appendedOnly = 0;
    for (let step = 0; step < 300; step++) {
      const action = next();
      if (action < 0.6) {
        // A run: the newest sends, and some drops sent up to a minute before (late).
        clock += 1 + Math.floor(next() * 20);
        const fresh = Array.from({ length: 1 + Math.floor(next() * 12) }, () => newRow(clock - Math.floor(next() * 3)));
        const late =
          next() < 0.5
            ? Array.from({ length: Math.floor(next() * 4) }, () => ({
                ...newRow(clock - 20 - Math.floor(next() * 60)),
                outcome: "dropped" as Outcome,
              }))
            : [];
        const batch = [...fresh, ...late]
          .map((r) => (r.sentAt < detailFrom ? { ...r, payer: null, sig: null } : r))
          .sort((a, b) => a.sentAt - b.sentAt);
        if (late.length === 0) appendedOnly++;
        held.insert(batch);
        rows = [...rows, ...batch]
          .map((row, order) => ({ row, order }))
          .sort((a, b) => a.row.sentAt - b.row.sentAt || a.order - b.order)
          .map(({ row }) => row);
      } else if (action < 0.8) {
        const newDetailFrom = Math.max(detailFrom, clock - 100 + Math.floor(next() * 60));
        held.forgetDetails(detailFrom, newDetailFrom);
        detailFrom = newDetailFrom;
        rows = rows.map((r) => (r.sentAt < detailFrom ? { ...r, payer: null, sig: null } : r));
      } else {
        heldFrom = Math.max(heldFrom, clock - 150 - Math.floor(next() * 100));
        held.dropBefore(heldFrom);
      }
      const kept = rows.filter((r) => r.sentAt >= heldFrom);
      expect(held.countFrom(heldFrom)).toBe(kept.length);
      const k = 1 + Math.floor(next() * kept.length);
      if (kept.length > 0) expect(held.newestAt(k)).toBe(kept[kept.length - k].sentAt);
      expect(held.newestAt(held.length + 1)).toBe(-Infinity);
      expect(held.newest).toBe(rows.length === 0 ? -Infinity : rows[rows.length - 1].sentAt);
      const from = heldFrom + Math.floor(next() * 200);
      const to = from + Math.floor(next() * 400);
      expectAnswers(held, kept, from, to, pick);
    }
    // Both stores were used: most runs brought late sends, and those merged only among the late.
    expect(held.late.length).toBeGreaterThan(0);
    expect(held.appended.length).toBeGreaterThan(held.late.length);
    expect(appendedOnly).toBeGreaterThan(0);
  });
}
