// Public figures that one account cannot move (docs/serving.md#public-figures): an account reports
// 200 drops of a program that the chain never saw (random signatures) naming the other accounts'
// payers as a script, 40 more that make an issue of their own after the program's deploy, 30 sends
// still pending, and no send of it the chain confirmed there. The program's public baseline (its
// pending count included), provider report, diagnose-drop's provider figure, top issues and the
// named payers' bot scores, release diff, ecosystem row and program total, and its Landing Score row
// stay where the other accounts' real traffic puts them; the forging account's own view shows
// everything it sent. And the public limit weighs a request by its cost: a wallet page is one
// indexed read of the version's wallet-page store and takes one request; only where it may read the
// lake (a version without a store, a page not cached yet) does it take PUBLIC_LAKE_READ_COST.

import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { generateLake } from "../../devkit/generate";
import { runLandingScore, type Snapshot } from "../../src/analytics/landing-score";
import {
  answerSlot,
  baseline,
  baselineAnswers,
  ecosystem,
  payerBotScore,
  providerReport,
  releaseDiff,
  topIssues,
} from "../../src/analytics/queries";
import { providerSends7d } from "../../src/analytics/queries/diagnose-drop";
import { walletPageCost } from "../../src/analytics/queries/wallet-history";
import { freshServingTables, servingTables } from "../../src/analytics/serving/reader";
import { sqlLiteral } from "../../src/analytics/sql";
import { buildServingTables } from "../../src/analytics/tables/build";
import { buildRowSource } from "../../src/analytics/tables/precompute-answers";
import { accountWeights, shareCeiling } from "../../src/analytics/tables/public-weights";
import { createAccountKey } from "../../src/control";
import { instantSql } from "../../src/lake/schema";
import { startServer } from "../../src/server";
import { readJson, type ScoreContext, scoreContext } from "./landing-score-support";
import { END_MS } from "./support";

const DATE = "2025-11-20";
const FORGED = 200;
/** Forged drops of an issue no other account has (a fingerprint of their own). */
const FORGED_ISSUE = 40;
const FORGED_FINGERPRINT = "v1:f0f0f0f0f0f0f0f0";
/** When the forged issue's drops are sent: after the program's latest deploy (END_MS − 12 h), so its drop class is new there. */
const FORGED_ISSUE_AT = Date.UTC(2025, 10, 20, 18);
/** Drops of a program nobody ever saw on chain, from an account that reports nothing else. */
const MADE_UP_DROPS = 20;
const MADE_UP_PROGRAM = "MadeUp1111111111111111111111111111111111111";
/** Forged sends left pending (no resolution), sent after every real one. */
const FORGED_PENDING = 30;
let ctx: ScoreContext;
let program: string;
let forger: string;
let helius: string;
/** Payers of the other accounts' failures, which the forged sends name, from a script. */
let namedPayers: string[];
let before: Awaited<ReturnType<typeof publicViews>>;
let landingBefore: Awaited<ReturnType<typeof landingRow>>;

const publicViews = async () => ({
  baseline: await baseline(ctx, { program, window: "1d", accountId: null }),
  providerReport: await providerReport(ctx, { program, window: "1d", accountId: null }),
  diagnoseDropProvider: await providerSends7d(ctx, helius),
  topIssues: await topIssues(ctx, { program, window: "1d", accountId: null, limit: 500 }),
  releaseDiff: await releaseDiff(ctx, { program, window: "1d", accountId: null }),
  ecosystem: (await ecosystem(ctx, { window: "1d" })).programs.find((row) => row.program === program),
  programTotal: await (await servingTables(ctx)).all<{ attempts: number; last_seen: number }>(
    "SELECT attempts, last_seen FROM programs WHERE scope = '*' AND program = $1",
    [program],
  ),
  botScores: await Promise.all(namedPayers.map((payer) => payerBotScore(ctx, payer))),
});
const landingRow = async () => {
  await runLandingScore(ctx, { date: DATE, minimumSends: 10 });
  return (readJson(`${ctx.dir}/${DATE}.json`) as Snapshot).programs.find((row) => row.program === program);
};

beforeAll(async () => {
  ctx = await scoreContext(END_MS, { PUBLIC_RATE_PER_MINUTE: "20", PUBLIC_LAKE_READ_COST: "10" });
  const accounts = ["team-a", "team-b", "forger", "made-up"].map(
    (name) => createAccountKey(ctx.control, name, "ingest", END_MS).record.accountId,
  );
  forger = accounts[2];
  const generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 1500,
    programs: 1,
    days: 2,
    seed: 11,
    endMs: END_MS,
    accounts: accounts.slice(0, 2),
    threads: 1,
  });
  program = generated.programs[0];
  await buildServingTables(ctx);
  await freshServingTables(ctx);
  const lake = ctx.paths.lake;
  const parquet = (dataset: string) =>
    `read_parquet('${lake}/${dataset}/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})`;
  [{ helius }] = await ctx.duck.all<{ helius: string }>(
    `SELECT any_value(rpc_hash) AS helius FROM ${parquet("envelopes")} WHERE rpc_label = 'helius'`,
  );
  namedPayers = (
    await ctx.duck.all<{ payer: string }>(
      `SELECT DISTINCT e.payer FROM ${parquet("envelopes")} e JOIN ${parquet("resolutions")} r USING (attempt_id)
       WHERE r.outcome <> 'landed' ORDER BY e.payer LIMIT 20`,
    )
  ).map((row) => row.payer);
  before = await publicViews();
  landingBefore = await landingRow();
  // The forged sends: real envelope and resolution rows of the program made the forger's, naming the
  // other accounts' payers as sent by a script (a payer's bot score reads its adapter and timing),
  // sent through helius on the snapshot's date, each declared dropped (as an unknown signature is).
  const sentAt = Date.UTC(2025, 10, 20, 12);
  const copy = (dataset: string, select: string, name = "forged") =>
    ctx.duck.run(
      `COPY (${select}) TO '${lake}/${dataset}' (FORMAT parquet, PARTITION_BY (program, day), FILENAME_PATTERN 'part-${name}-{i}', OVERWRITE_OR_IGNORE)`,
    );
  await copy(
    "envelopes",
    `SELECT * EXCLUDE (k) REPLACE ('forged-' || k AS attempt_id, '${forger}' AS account_id, 'forged-sig-' || k AS sig,
       ${sqlLiteral(namedPayers)}[1 + k % ${namedPayers.length}] AS payer, 'script' AS wallet_adapter,
       'send' AS kind, 'helius' AS rpc_label, '${helius}' AS rpc_hash, ${instantSql(`${sentAt} + k`)} AS received_at,
       ${instantSql(`${sentAt} + k`)} AS sent_at,
       '2025-11-20' AS day)
     FROM (SELECT *, row_number() OVER () AS k FROM ${parquet("envelopes")} WHERE program = '${program}' LIMIT ${FORGED})`,
  );
  await copy(
    "resolutions",
    `SELECT t.* REPLACE ('forged-' || r.k AS attempt_id, '${forger}' AS account_id, ${instantSql(`${sentAt} + 90000 + r.k`)} AS resolved_at,
       '${program}' AS program, '2025-11-20' AS day)
     FROM (SELECT * FROM ${parquet("resolutions")} WHERE outcome = 'dropped' LIMIT 1) t, range(1, ${FORGED + 1}) r(k)`,
  );
  // Its drops of an issue of their own (the first ones' envelopes, resolved with another fingerprint),
  // sent after the deploy, and sends the resolver has not decided yet, the newest of the program.
  await copy(
    "envelopes",
    `SELECT * EXCLUDE (k) REPLACE ('forged-issue-' || k AS attempt_id, 'forged-issue-sig-' || k AS sig,
       ${instantSql(`${FORGED_ISSUE_AT} + k`)} AS received_at, ${instantSql(`${FORGED_ISSUE_AT} + k`)} AS sent_at)
     FROM (SELECT *, row_number() OVER () AS k FROM ${parquet("envelopes")} WHERE account_id = '${forger}' LIMIT ${FORGED_ISSUE})`,
    "forged-issue",
  );
  await copy(
    "resolutions",
    `SELECT t.* REPLACE ('forged-issue-' || r.k AS attempt_id, '${FORGED_FINGERPRINT}' AS fingerprint,
       ${instantSql(`${FORGED_ISSUE_AT} + 90000 + r.k`)} AS resolved_at)
     FROM (SELECT * FROM ${parquet("resolutions")} WHERE account_id = '${forger}' LIMIT 1) t, range(1, ${FORGED_ISSUE + 1}) r(k)`,
    "forged-issue",
  );
  // Another account's drops of a made-up program (the forger's first ones, moved there).
  await copy(
    "envelopes",
    `SELECT * EXCLUDE (k) REPLACE ('made-up-' || k AS attempt_id, 'made-up-sig-' || k AS sig, '${accounts[3]}' AS account_id,
       '${MADE_UP_PROGRAM}' AS program)
     FROM (SELECT *, row_number() OVER () AS k FROM ${parquet("envelopes")} WHERE account_id = '${forger}' LIMIT ${MADE_UP_DROPS})`,
    "made-up",
  );
  await copy(
    "resolutions",
    `SELECT t.* REPLACE ('made-up-' || r.k AS attempt_id, '${accounts[3]}' AS account_id, '${MADE_UP_PROGRAM}' AS program)
     FROM (SELECT * FROM ${parquet("resolutions")} WHERE account_id = '${forger}' LIMIT 1) t, range(1, ${MADE_UP_DROPS + 1}) r(k)`,
    "made-up",
  );
  const pendingAt = END_MS - 60_000;
  await copy(
    "envelopes",
    `SELECT * EXCLUDE (k) REPLACE ('forged-pending-' || k AS attempt_id, 'forged-pending-sig-' || k AS sig,
       ${instantSql(`${pendingAt} + k`)} AS received_at, ${instantSql(`${pendingAt} + k`)} AS sent_at, '2025-11-21' AS day)
     FROM (SELECT *, row_number() OVER () AS k FROM ${parquet("envelopes")} WHERE account_id = '${forger}' LIMIT ${FORGED_PENDING})`,
    "forged-pending",
  );
  await buildServingTables(ctx);
  await freshServingTables(ctx);
}, 30_000);
afterAll(() => ctx.dispose());

test("a wallet page costs one request with the wallet-page store, PUBLIC_LAKE_READ_COST where it may read the lake", async () => {
  // The work a page is charged for is its measured time: the clock it is measured on is fake here
  // (still unless a step is set), so no page is charged for how busy the host happens to be.
  let fakeMs = 0;
  let stepMs = 0;
  const clock = spyOn(performance, "now").mockImplementation(() => (fakeMs += stepMs));
  const server = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
  try {
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      return { status: response.status, remaining: response.headers.get("ratelimit-remaining") };
    };
    const payers = await ctx.duck.all<{ payer: string }>(
      `SELECT DISTINCT payer FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}') ORDER BY payer LIMIT 2`,
    );
    const [page, other] = payers.map(({ payer }) => `/v1/wallet/${program}/${payer}?window=1d`);
    expect((await freshServingTables(ctx)).walletStore).not.toBeNull();
    // The store answers every page with one indexed read: each costs one request, cached or not.
    expect(await get(page)).toEqual({ status: 200, remaining: "19" });
    expect(await get(page)).toEqual({ status: 200, remaining: "18" });
    expect(await get(other)).toEqual({ status: 200, remaining: "17" });
    expect(await get(`${other}&scope=account`)).toEqual({ status: 401, remaining: "16" });
    // A malformed page reads nothing and costs one.
    expect(await get("/v1/wallet/abc/def")).toEqual({ status: 400, remaining: "15" });
    // A page's measured work is charged once it is done, a request more per PUBLIC_WORK_MS (1): a
    // read of 5 ms (a bot's page scans its rows) costs 5 more, seen by the next request. A cached
    // page reads nothing and is charged nothing more.
    stepMs = 5;
    expect(await get(`/v1/wallet/${program}/${payers[0].payer}?window=7d`)).toEqual({ status: 200, remaining: "14" });
    stepMs = 0;
    expect(await get(page)).toEqual({ status: 200, remaining: "8" });
    expect(await get(page)).toEqual({ status: 200, remaining: "7" });
  } finally {
    clock.mockRestore();
    await server.stop();
  }
  // A version without a store (built before it) may read the lake: an unanswered page costs PUBLIC_LAKE_READ_COST.
  const noStore = { walletStore: null, hasAnswer: (key: string) => key === "cached" };
  expect(walletPageCost(noStore, "uncached", 10)).toBe(10);
  expect(walletPageCost(noStore, "cached", 10)).toBe(1);
  expect(walletPageCost(noStore, null, 10)).toBe(10); // account-scoped: not known before the key
  const withStore = { walletStore: (await freshServingTables(ctx)).walletStore, hasAnswer: () => false };
  expect(walletPageCost(withStore, null, 10)).toBe(1);
});

test("an account with no chain-confirmed send for the program moves none of its public figures", async () => {
  const after = await publicViews();
  expect(after).toEqual(before);
  expect(after.baseline.accounts).toBe(2);
  expect(after.baseline.providers.find((p) => p.rpcLabel === "helius")?.accounts).toBe(2);
  expect(after.providerReport.providers.every((p) => p.accounts > 0)).toBe(true);
  expect(after.diagnoseDropProvider.accounts).toBe(2);
});

test("its Landing Score row stays where the other accounts put it", async () => {
  const row = await landingRow();
  expect(row).toBeDefined();
  expect(row).toEqual(landingBefore);
});

test("its drops make no public issue, and its pending sends and last send are not the program's", async () => {
  const after = await publicViews();
  // The payers it names keep their bot scores, and top-issues' segments with them.
  expect(after.botScores).toEqual(before.botScores);
  expect(after.botScores.filter((score) => score !== null).length).toBe(namedPayers.length);
  const listed = Object.values(after.topIssues.segments).flat();
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.some((issue) => issue.fingerprint === FORGED_FINGERPRINT)).toBe(false);
  expect(after.topIssues).toEqual(before.topIssues);
  expect(after.baseline.pending).toBe(before.baseline.pending);
  expect(after.ecosystem).toEqual(before.ecosystem);
  expect(after.programTotal).toEqual(before.programTotal);
});

test("the forging account's own view shows every drop it sent", async () => {
  const own = await baseline(ctx, { program, window: "1d", accountId: forger });
  expect(own.rates).toMatchObject({ attempts: FORGED + FORGED_ISSUE, dropped: FORGED + FORGED_ISSUE, landed: 0 });
  expect(own.pending).toBe(FORGED_PENDING);
  expect(own.accounts).toBe(1);
  const issues = Object.values((await topIssues(ctx, { program, window: "1d", accountId: forger })).segments).flat();
  const countOf = (fingerprint: string) =>
    issues.filter((issue) => issue.fingerprint === fingerprint).reduce((sum, issue) => sum + issue.count, 0);
  expect(countOf(FORGED_FINGERPRINT)).toBe(FORGED_ISSUE);
  expect(issues.reduce((sum, issue) => sum + issue.count, 0)).toBe(FORGED + FORGED_ISSUE);
  const report = await providerReport(ctx, { program, window: "1d", accountId: forger });
  expect(report.providers).toMatchObject([
    { rpcLabel: "helius", attempts: FORGED + FORGED_ISSUE, dropped: FORGED + FORGED_ISSUE },
  ]);
});

test("weights: unconfirmable outcomes limited by confirmed ones, then the share cap where enough accounts report", () => {
  const trust = { maxAccountShare: 0.5, unconfirmedPerConfirmed: 1 };
  // Two accounts: no cap (it could only make them equal); the forger's drops count for nothing.
  expect(
    accountWeights(
      [
        { confirmed: 90, unconfirmed: 10 },
        { confirmed: 0, unconfirmed: 200 },
      ],
      trust,
    ),
  ).toEqual([
    { confirmed: 1, unconfirmed: 1 },
    { confirmed: 1, unconfirmed: 0 },
  ]);
  // Three: the flood (its 100 drops limited to its 50 confirmed sends: 100 counted) is cut to the others' 40.
  const [a, b, flood] = accountWeights(
    [
      { confirmed: 20, unconfirmed: 0 },
      { confirmed: 20, unconfirmed: 0 },
      { confirmed: 50, unconfirmed: 100 },
    ],
    trust,
  );
  expect([a, b]).toEqual([
    { confirmed: 1, unconfirmed: 1 },
    { confirmed: 1, unconfirmed: 1 },
  ]);
  expect(flood.confirmed).toBeCloseTo(0.4, 12);
  expect(flood.unconfirmed).toBeCloseTo(0.2, 12);
  expect(shareCeiling([100, 20, 20], 0.5)).toBe(40);
  expect(shareCeiling([10, 10, 10], 0.5)).toBe(10);
});

test("baseline's ecosystem counts only programs seen on chain, as the ecosystem overview does", async () => {
  // With PUBLIC_UNCONFIRMED_PER_CONFIRMED off, a made-up program's drops stay in its public rates; the
  // ecosystem figure next to every program's baseline still leaves them out.
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    await connection.run(`
      CREATE TABLE rates AS SELECT * FROM (VALUES
        ('real', '*', '1d', 'helius', 'h1', 90, 5, 10, 0, 0, 2), ('made-up', '*', '1d', 'helius', 'h1', 0, 0, 500, 0, 0, 1)
      ) t(program, scope, win, rpc_label, rpc_hash, landed, failed_onchain, dropped, preflight, pending, accounts);
      CREATE TABLE rate_accounts AS SELECT * FROM (VALUES ('real', '*', '1d', 2), ('*', '*', '1d', 3)) t(program, scope, win, accounts)`);
    const answers = await baselineAnswers(buildRowSource(connection, END_MS), {
      scope: "*",
      programs: ["real"],
      windows: ["1d"],
    });
    expect(answers.get(answerSlot("real", "1d"))?.ecosystem).toMatchObject({ attempts: 105, landed: 90, dropped: 10 });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test("its drops make no drop class look new after a deploy", async () => {
  const after = await publicViews();
  expect(after.releaseDiff.deploy.effectiveAt).toBeLessThan(FORGED_ISSUE_AT);
  expect(after.releaseDiff.issues.some((issue) => issue.fingerprint === FORGED_FINGERPRINT)).toBe(false);
  expect(after.releaseDiff).toEqual(before.releaseDiff);
  // Its own view shows the class as new after the deploy.
  const own = await releaseDiff(ctx, { program, window: "1d", accountId: forger });
  expect(own.issues.find((issue) => issue.fingerprint === FORGED_FINGERPRINT)).toMatchObject({
    preCount: 0,
    postCount: FORGED_ISSUE,
  });
});

test("baseline's ecosystem accounts: only accounts that count, on programs seen on chain", async () => {
  expect((await baseline(ctx, { program, window: "1d", accountId: null })).ecosystemAccounts).toBe(2);
  // Unweighted, every account's drops count; the made-up program's account is still not the ecosystem's.
  const config = ctx.config as { PUBLIC_UNCONFIRMED_PER_CONFIRMED: number };
  const limit = config.PUBLIC_UNCONFIRMED_PER_CONFIRMED;
  config.PUBLIC_UNCONFIRMED_PER_CONFIRMED = Number.POSITIVE_INFINITY;
  try {
    await buildServingTables(ctx);
    await freshServingTables(ctx);
    const unweighted = await baseline(ctx, { program, window: "1d", accountId: null });
    expect(unweighted.accounts).toBe(3);
    expect(unweighted.ecosystemAccounts).toBe(3);
  } finally {
    config.PUBLIC_UNCONFIRMED_PER_CONFIRMED = limit;
    await buildServingTables(ctx);
    await freshServingTables(ctx);
  }
});

test("once the chain confirmed a send of the program for it, its units count in the payers' bot scores", async () => {
  // One landed send of the program, from a payer of its own: the payers it named change no units, and
  // are scored again because it counts now.
  const lake = ctx.paths.lake;
  const parquet = (dataset: string) =>
    `read_parquet('${lake}/${dataset}/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})`;
  const [landed] = await ctx.duck.all<{ attempt_id: string }>(
    `SELECT attempt_id FROM ${parquet("resolutions")} WHERE outcome = 'landed' AND program = '${program}' ORDER BY attempt_id LIMIT 1`,
  );
  for (const dataset of ["envelopes", "resolutions"])
    await ctx.duck.run(
      `COPY (SELECT * REPLACE ('forged-landed' AS attempt_id, '${forger}' AS account_id${dataset === "envelopes" ? ", 'ForgersOwnPayer' AS payer" : ""})
         FROM ${parquet(dataset)} WHERE attempt_id = '${landed.attempt_id}')
       TO '${lake}/${dataset}' (FORMAT parquet, PARTITION_BY (program, day), FILENAME_PATTERN 'part-forged-landed-{i}', OVERWRITE_OR_IGNORE)`,
    );
  await buildServingTables(ctx);
  await freshServingTables(ctx);
  const scores = await Promise.all(namedPayers.map((payer) => payerBotScore(ctx, payer)));
  expect(scores.some((score, k) => score !== before.botScores[k])).toBe(true);
});
