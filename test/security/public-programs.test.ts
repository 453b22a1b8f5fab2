// A program is on the public lists only once txray has seen it on the chain (an attempt of it landed
// or failed on chain): made-up program ids anyone can name with a browser's ingest key, whose
// attempts only ever drop, never reach /v1/ecosystem, nor its figures.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ecosystem } from "../../src/analytics/queries";
import { buildServingTables } from "../../src/analytics/tables/build";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { createAccountKey } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { advancingClock } from "../helpers/clock";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../helpers/recorded-rpc";
import { resolveUntilSettled } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";

const HEIGHT = 300_000_000;
const chain = { blockHeight: HEIGHT };
const clock = advancingClock();
const failedRoute = recordedTransaction("19_"); // a failed Jupiter route on mainnet
const realProgram = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const junk = Array.from({ length: 5 }, randomAddress);
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([failedRoute], chain);
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
  const flood = createAccountKey(t.ctx.control, "flood", "ingest", Date.now()).key;
  const honest = createAccountKey(t.ctx.control, "honest", "ingest", Date.now()).key;
  const sentAt = clock();
  const forged = junk.map((program) => makeEnvelope({ program, lastValidBlockHeight: HEIGHT + 10, sentAt }));
  expect((await t.ingest({ envelopes: forged }, { "x-api-key": flood })).status).toBe(202);
  const real = [
    makeEnvelope({ program: realProgram, sig: failedRoute.sig, lastValidBlockHeight: HEIGHT + 10, sentAt }),
  ];
  expect((await t.ingest({ envelopes: real }, { "x-api-key": honest })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 50 };
  chain.blockHeight = HEIGHT + 1_000; // every forged send's blockhash has expired: they drop
  await resolveUntilSettled(t.ctx, options);
  await buildServingTables(t.ctx);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("junk program ids from a flood never appear in the public list or its figures", async () => {
  const answer = await ecosystem(t.ctx, { window: "1d", limit: "500" });
  expect(answer.programs.map((p) => p.program)).toEqual([realProgram]);
  expect(answer.programs[0].name).toBe("Jupiter v6"); // its display name, for the dashboard's list
  expect(answer.rates).toMatchObject({ attempts: 1, failedOnchain: 1, dropped: 0 });
  // The drops are in the lake all the same: only the public list leaves them out.
  const dropped = await t.ctx.duck.all<{ n: bigint }>(
    `SELECT count(*) AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true) WHERE outcome = 'dropped'`,
  );
  expect(Number(dropped[0].n)).toBe(junk.length);
});
