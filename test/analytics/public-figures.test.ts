// Public figures that one account cannot move (docs/serving.md#public-figures): an account reports
// 200 drops of a program that the chain never saw (random signatures) and no send of it the chain
// confirmed there. The program's public baseline, provider report, diagnose-drop's provider figure
// and Landing Score row stay where the other accounts' real traffic puts them; the forging account's
// own view shows its drops. And the public limit weighs a request by its cost (PUBLIC_LAKE_READ_COST):
// a wallet page the serving version has not answered yet reads the lake and takes that many
// requests of the client's budget; the same page again, from the version's cache, takes one.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { generateLake } from "../../devkit/generate";
import { runLandingScore, type Snapshot } from "../../src/analytics/landing-score";
import { baseline, providerReport } from "../../src/analytics/queries";
import { providerSends7d } from "../../src/analytics/queries/diagnose-drop";
import { freshServingTables } from "../../src/analytics/serving/reader";
import { buildServingTables } from "../../src/analytics/tables/build";
import { accountWeights, shareCeiling } from "../../src/analytics/tables/public-weights";
import { createAccountKey } from "../../src/control";
import { instantSql } from "../../src/lake/schema";
import { startServer } from "../../src/server";
import { readJson, type ScoreContext, scoreContext } from "./landing-score-support";
import { END_MS } from "./support";

const DATE = "2025-11-20";
const FORGED = 200;
let ctx: ScoreContext;
let program: string;
let forger: string;
let helius: string;
let before: Awaited<ReturnType<typeof publicViews>>;
let landingBefore: Awaited<ReturnType<typeof landingRow>>;

const publicViews = async () => ({
  baseline: await baseline(ctx, { program, window: "1d", accountId: null }),
  providerReport: await providerReport(ctx, { program, window: "1d", accountId: null }),
  diagnoseDropProvider: await providerSends7d(ctx, helius),
});
const landingRow = async () => {
  await runLandingScore(ctx, { date: DATE, minimumSends: 10 });
  return (readJson(`${ctx.dir}/${DATE}.json`) as Snapshot).programs.find((row) => row.program === program);
};

beforeAll(async () => {
  ctx = await scoreContext(END_MS, { PUBLIC_RATE_PER_MINUTE: "20", PUBLIC_LAKE_READ_COST: "10" });
  const accounts = ["team-a", "team-b", "forger"].map(
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
  before = await publicViews();
  landingBefore = await landingRow();
  // The forged sends: real envelope and resolution rows of the program made the forger's, sent
  // through helius on the snapshot's date, each declared dropped (as an unknown signature is).
  const sentAt = Date.UTC(2025, 10, 20, 12);
  const copy = (dataset: string, select: string) =>
    ctx.duck.run(
      `COPY (${select}) TO '${lake}/${dataset}' (FORMAT parquet, PARTITION_BY (program, day), FILENAME_PATTERN 'part-forged-{i}', OVERWRITE_OR_IGNORE)`,
    );
  await copy(
    "envelopes",
    `SELECT * EXCLUDE (k) REPLACE ('forged-' || k AS attempt_id, '${forger}' AS account_id, 'forged-sig-' || k AS sig,
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
  await buildServingTables(ctx);
  await freshServingTables(ctx);
}, 30_000);
afterAll(() => ctx.dispose());

test("a wallet page read from the lake costs PUBLIC_LAKE_READ_COST requests, the cached page one", async () => {
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
    expect(await get(page)).toEqual({ status: 200, remaining: "10" });
    expect(await get(page)).toEqual({ status: 200, remaining: "9" });
    // Another wallet reads the lake: 10 requests, and 9 are left.
    expect((await get(other)).status).toBe(429);
    expect(await get("/v1/status")).toEqual({ status: 200, remaining: "8" });
    // A malformed page reads nothing and costs one.
    expect(await get("/v1/wallet/abc/def")).toEqual({ status: 400, remaining: "7" });
  } finally {
    await server.stop();
  }
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

test("the forging account's own view shows every drop it sent", async () => {
  const own = await baseline(ctx, { program, window: "1d", accountId: forger });
  expect(own.rates).toMatchObject({ attempts: FORGED, dropped: FORGED, landed: 0 });
  expect(own.accounts).toBe(1);
  const report = await providerReport(ctx, { program, window: "1d", accountId: forger });
  expect(report.providers).toMatchObject([{ rpcLabel: "helius", attempts: FORGED, dropped: FORGED }]);
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
