// A run's due attempts are taken across accounts in turn, each account's earliest first: an account
// with a backlog above a run's cap (MAX_ATTEMPTS_PER_RUN, injected small here) leaves every other
// account its share of each run, so another account's sends taken in after the flood are looked up by
// the run that took them in and decided by the next.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { OpenAttempts, openAttempt } from "../../../src/chain/resolve/open-attempts";
import type { Attempt } from "../../../src/chain/resolve/types";
import { createRpcClient } from "../../../src/chain/rpc";
import { createAccountKey } from "../../../src/control";
import { flushSpool } from "../../../src/lake/flush-spool";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { type TestServer, testServer } from "../../helpers/server";

const HEIGHT = 300_000_000;
const FLOOD = 30;
const HONEST = 3;
const CAP = 10;
const chain = { blockHeight: HEIGHT };
const clock = advancingClock();
const program = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
let honestAccount: string;

beforeAll(async () => {
  rpc = startRecordedRpc([], chain); // finds nothing: every send is dropped once its blockhash expires
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
  const flood = createAccountKey(t.ctx.control, "flood", "ingest", Date.now()).key;
  const honest = createAccountKey(t.ctx.control, "honest", "ingest", Date.now());
  honestAccount = honest.record.accountId;
  const sends = (n: number) =>
    Array.from({ length: n }, () => makeEnvelope({ program, lastValidBlockHeight: HEIGHT + 150, sentAt: clock() }));
  expect((await t.ingest({ envelopes: sends(FLOOD) }, { "x-api-key": flood })).status).toBe(202);
  expect((await t.ingest({ envelopes: sends(HONEST) }, { "x-api-key": honest.key })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("another account's sends behind a flood larger than a run's cap are decided by the second run", async () => {
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root), maxAttempts: CAP };
  const first = await resolvePending(t.ctx, options);
  expect(first.intake.attempts).toBe(FLOOD + HONEST);
  expect(first.backlog).toBe(true); // the flood's attempts beyond the cap wait, still due
  // The chain passes the expiry 70 s later (a block rate measured over a minute): the second look decides.
  chain.blockHeight = HEIGHT + 1_000;
  clock.advance(70_000);
  await resolvePending(t.ctx, options);
  const decided = await t.ctx.duck.all<{ outcome: string; n: bigint }>(
    `SELECT outcome, count(*) AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true)
     WHERE account_id = '${honestAccount}' GROUP BY outcome`,
  );
  expect(decided.map((r) => ({ outcome: r.outcome, n: Number(r.n) }))).toEqual([{ outcome: "dropped", n: HONEST }]);
});

test("accounts take turns, each its earliest first, the accounts of a turn by their earliest", () => {
  const open = new OpenAttempts();
  const add = (attemptId: string, accountId: string, at: number) =>
    open.add(openAttempt({ attemptId, accountId } as Attempt, at));
  for (let i = 0; i < 6; i++) add(`flood-${i}`, "flood", 10 + i);
  add("b-late", "b", 40);
  add("b-early", "b", 30);
  add("c-0", "c", 20);
  add("c-future", "c", 1_000);
  expect(open.takeDue(100, 7).map((a) => a.attemptId)).toEqual([
    "flood-0",
    "c-0",
    "b-early",
    "flood-1",
    "b-late",
    "flood-2",
    "flood-3",
  ]);
  expect(open.takeDue(100, 10).map((a) => a.attemptId)).toEqual(["flood-4", "flood-5"]);
  expect(open.nextDueAt()).toBe(1_000);
});
