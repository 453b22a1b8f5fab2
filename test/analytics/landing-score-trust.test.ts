// The Landing Score's listing rules and poisoning guard on a hand-built lake: what counts (sends
// in the window, decided within the grace period), the minimum of 100 counted sends, and the two
// account settings: LANDING_SCORE_MIN_ACCOUNTS leaves out a program with too few reporters and
// LANDING_SCORE_MAX_ACCOUNT_SHARE cuts a flooding account down to the cap (its lowest-hash sends).

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { runLandingScore, type Snapshot } from "../../src/analytics/landing-score";
import {
  type Attempt,
  md5Hex,
  programId,
  readJson,
  type ScoreContext,
  scoreContext,
  wilsonReference,
  writeLake,
} from "./landing-score-support";
import { END_MS } from "./support";

const DATE = "2025-11-20";
const SINCE = Date.UTC(2025, 10, 14);
const UNTIL = Date.UTC(2025, 10, 21);
const HOUR = 3_600_000;

const SOLO = programId(1); // one reporter
const FLOODED = programId(2); // two honest reporters and one flooding fake drops
const EDGES = programId(3); // exactly 100 counted sends, plus attempts that must not count
const SHORT = programId(4); // 99 counted sends

let ctx: ScoreContext;
const attempts: Attempt[] = [];
const flood: Attempt[] = [];

function add(program: string, account: string, n: number, outcome: Attempt["outcome"], extra: Partial<Attempt> = {}) {
  for (let i = 0; i < n; i++) {
    const attempt_id = `${program.slice(0, 6)}-${account}-${outcome}-${attempts.length}`;
    attempts.push({
      attempt_id,
      account_id: account,
      program,
      received_at: SINCE + ((attempts.length * 7919) % (6 * 24)) * HOUR,
      rpc_label: "helius",
      kind: "send",
      outcome,
      ...extra,
    });
  }
}

beforeAll(async () => {
  ctx = await scoreContext(END_MS);
  add(SOLO, "acc_solo", 140, "landed");
  add(SOLO, "acc_solo", 10, "failed_onchain");
  add(FLOODED, "acc_a", 110, "landed");
  add(FLOODED, "acc_a", 10, "failed_onchain", { rpc_label: null });
  add(FLOODED, "acc_b", 120, "landed", { rpc_label: "triton" });
  add(FLOODED, "acc_b", 10, "dropped", { rpc_label: "triton" });
  // The flood: 900 fake drops and 100 landed (so which of its sends the cap keeps shows in the counts).
  const before = attempts.length;
  add(FLOODED, "acc_flood", 900, "dropped", { rpc_label: "public" });
  add(FLOODED, "acc_flood", 100, "landed", { rpc_label: "public" });
  flood.push(...attempts.slice(before));
  // EDGES: 100 that count (the first exactly at the window's start), then five that must not.
  add(EDGES, "acc_a", 99, "landed");
  add(EDGES, "acc_b", 1, "dropped", { received_at: SINCE });
  add(EDGES, "acc_a", 1, "preflight", { kind: "preflight" }); // never sent
  add(EDGES, "acc_a", 1, null); // still pending
  add(EDGES, "acc_a", 1, "landed", { received_at: UNTIL - 1000, resolved_at: UNTIL + 15 * 60_000 }); // decided after the grace period
  add(EDGES, "acc_a", 1, "landed", { received_at: SINCE - 1 }); // before the window
  add(EDGES, "acc_a", 1, "landed", { received_at: UNTIL }); // after the window
  add(EDGES, "acc_b", 1, "dropped", { received_at: UNTIL - 1000, resolved_at: UNTIL + 15 * 60_000 - 1 }); // just in time: counts
  add(SHORT, "acc_a", 50, "landed");
  add(SHORT, "acc_b", 49, "landed");
  await writeLake(ctx, attempts);
}, 30_000);
afterAll(() => ctx.dispose());

async function score(settings: {
  LANDING_SCORE_MIN_ACCOUNTS?: number;
  LANDING_SCORE_MAX_ACCOUNT_SHARE?: number;
}): Promise<Snapshot> {
  // The account settings alone: the limit of drops by confirmed sends has its own test (public-weights.test.ts).
  Object.assign(ctx.config, {
    LANDING_SCORE_MIN_ACCOUNTS: 1,
    LANDING_SCORE_MAX_ACCOUNT_SHARE: 1,
    PUBLIC_UNCONFIRMED_PER_CONFIRMED: Number.POSITIVE_INFINITY,
    ...settings,
  });
  await runLandingScore(ctx, { date: DATE });
  return readJson(`${ctx.dir}/${DATE}.json`);
}

const row = (snapshot: Snapshot, program: string) => snapshot.programs.find((r) => r.program === program);

test("only sends in the window decided within the grace period count; 100 counted sends are listed, 99 are not", async () => {
  const snapshot = await score({});
  const edges = row(snapshot, EDGES)!;
  expect(edges).toMatchObject({ sends: 101, landed: 99, dropped: 2, failedOnchain: 0, accounts: 2 });
  expect(row(snapshot, SHORT)).toBeUndefined();
  expect(snapshot.programs.map((r) => r.program).sort()).toEqual([SOLO, FLOODED, EDGES].sort());
  // A missing rpc_label is reported as "unknown".
  expect(row(snapshot, FLOODED)!.providers.find((p) => p.rpcLabel === "unknown")?.sends).toBe(10);
});

test("without a cap the flooding account dominates, and the row says so", async () => {
  const snapshot = await score({});
  const flooded = row(snapshot, FLOODED)!;
  expect(flooded).toMatchObject({ sends: 1250, landed: 330, dropped: 910, failedOnchain: 10, accounts: 3 });
  expect(flooded.topAccountShare).toBeCloseTo(1000 / 1250, 12);
  expect(snapshot.trust).toEqual({ minimumAccounts: 1, maxAccountShare: 1 });
});

test("LANDING_SCORE_MIN_ACCOUNTS=2 leaves out the program with one reporter", async () => {
  const snapshot = await score({ LANDING_SCORE_MIN_ACCOUNTS: 2 });
  expect(row(snapshot, SOLO)).toBeUndefined();
  expect(row(snapshot, FLOODED)).toBeDefined();
  expect(snapshot.trust.minimumAccounts).toBe(2);
  expect(snapshot.methodology).toContain("at least 2 accounts");
  const three = await score({ LANDING_SCORE_MIN_ACCOUNTS: 3 });
  expect(three.programs.map((r) => r.program)).toEqual([FLOODED]);
});

test("LANDING_SCORE_MAX_ACCOUNT_SHARE=0.5 cuts the flooding account to half the counted sends, keeping its lowest-hash sends", async () => {
  const snapshot = await score({ LANDING_SCORE_MAX_ACCOUNT_SHARE: 0.5 });
  const flooded = row(snapshot, FLOODED)!;
  // Honest reporters: 250 sends. The flood may carry at most as many: 250 of its 1000, those with
  // the lowest md5(attempt_id).
  const kept = [...flood].sort((a, b) => (md5Hex(a.attempt_id) < md5Hex(b.attempt_id) ? -1 : 1)).slice(0, 250);
  const keptLanded = kept.filter((a) => a.outcome === "landed").length;
  expect(keptLanded).toBeGreaterThan(0);
  expect(flooded).toMatchObject({
    sends: 500,
    landed: 230 + keptLanded,
    failedOnchain: 10,
    dropped: 10 + 250 - keptLanded,
    accounts: 3,
  });
  expect(flooded.topAccountShare).toBe(0.5);
  expect(flooded.landingRate).toBeCloseTo((230 + keptLanded) / 500, 12);
  expect(flooded.ci95[0]).toBeCloseTo(wilsonReference(230 + keptLanded, 500)[0], 12);
  expect(flooded.providers.find((p) => p.rpcLabel === "public")?.sends).toBe(250);
  expect(snapshot.trust.maxAccountShare).toBe(0.5);
  expect(snapshot.methodology).toContain("more than 50%");
  // A program reported almost only by one account is cut down below the minimum (EDGES: 99 of 101
  // sends from one account keep 2), and one account alone can never be at most half: both go.
  expect(row(snapshot, EDGES)).toBeUndefined();
  expect(row(snapshot, SOLO)).toBeUndefined();
});

test("a cap below 1 / accounts leaves no room: with 30% a program needs at least four reporters", async () => {
  const snapshot = await score({ LANDING_SCORE_MAX_ACCOUNT_SHARE: 0.3 });
  expect(snapshot.programs).toEqual([]);
});

test("a compaction swapping parts while the job reads: it lists the lake again and gets the same answer", async () => {
  const expected = await score({});
  const dir = join(ctx.paths.lake, "envelopes", `program=${FLOODED}`);
  const days = readdirSync(dir);
  const real = ctx.duck;
  let swapped = false;
  // Between listing the parts and reading them, one partition's part is replaced by a renamed copy.
  (ctx as { duck: typeof real }).duck = {
    ...real,
    connect: async () => {
      if (!swapped) {
        swapped = true;
        const partition = join(dir, days[0]);
        for (const name of readdirSync(partition)) renameSync(join(partition, name), join(partition, `part-c-${name}`));
      }
      return real.connect();
    },
  };
  try {
    await runLandingScore(ctx, { date: DATE });
  } finally {
    (ctx as { duck: typeof real }).duck = real;
  }
  expect(swapped).toBe(true);
  expect(readJson(`${ctx.dir}/${DATE}.json`)).toEqual(expected);
});
