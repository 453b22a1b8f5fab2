// One account's flood of made-up programs cannot delay another account's resolution: a round looks up
// and records at most MAX_PROGRAMS_PER_ROUND distinct programs (each is a lake partition its recording
// writes at once), granted round-robin across accounts. With the program quota lifted, 3,000 programs
// from one key used to run every later resolve run out of DuckDB memory; now the other account's sends
// are decided by the second run and the flood drains a round's share at a time. The lake test runs at a
// smaller scale (a round of 5 programs, a flood of 40: the flush of 3,000 partitions alone takes
// tens of seconds here); `bun run bench flood` runs 30,000 at the real share and reports the memory.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { type OpenAttempt, withinProgramBudget } from "../../../src/chain/resolve/open-attempts";
import { MAX_PROGRAMS_PER_ROUND } from "../../../src/chain/resolve/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { createAccountKey } from "../../../src/control";
import { flushSpool } from "../../../src/lake/flush-spool";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope, randomAddress } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { type TestServer, testServer } from "../../helpers/server";

const HEIGHT = 300_000_000;
const FLOOD = 40;
const SHARE = 5;
const chain = { blockHeight: HEIGHT };
const clock = advancingClock();
const honestProgram = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([], chain); // finds nothing: every send is dropped once its blockhash expires
  t = await testServer({ SOLANA_RPC_URL: rpc.url, ACCOUNT_PROGRAMS_PER_DAY: "0" }, { clock });
  const flood = createAccountKey(t.ctx.control, "flood", "ingest", Date.now()).key;
  const honest = createAccountKey(t.ctx.control, "honest", "ingest", Date.now()).key;
  for (let sent = 0; sent < FLOOD; sent += 20) {
    const envelopes = Array.from({ length: 20 }, () =>
      makeEnvelope({ program: randomAddress(), lastValidBlockHeight: 1e12, sentAt: clock() }),
    );
    expect((await t.ingest({ envelopes }, { "x-api-key": flood })).status).toBe(202);
  }
  const sends = Array.from({ length: 5 }, () =>
    makeEnvelope({ program: honestProgram, lastValidBlockHeight: HEIGHT + 150, sentAt: clock() }),
  );
  expect((await t.ingest({ envelopes: sends }, { "x-api-key": honest })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("another account's sends, taken in after a flood, are decided within two runs", async () => {
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root), maxPrograms: SHARE };
  const first = await resolvePending(t.ctx, options);
  expect(first.intake.attempts).toBe(FLOOD + 5);
  expect(first.backlog).toBe(true); // the flood's programs beyond the round's share wait, still due

  // The chain passes every expiry (the flood's capped at height + 300), 70 s later (a block rate
  // measured over a minute, so the expiry needs no recheck): the second look decides.
  chain.blockHeight = HEIGHT + 1_000;
  clock.advance(70_000);
  const second = await resolvePending(t.ctx, options);
  // The honest account's program and the flood's share of the round: never more programs than that.
  expect(second.resolved.dropped).toBeLessThanOrEqual(5 + (SHARE - 1));
  const honest = await t.ctx.duck.all<{ outcome: string; n: bigint }>(
    `SELECT outcome, count(*) AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true)
     WHERE program = '${honestProgram}' GROUP BY outcome`,
  );
  expect(honest.map((r) => ({ outcome: r.outcome, n: Number(r.n) }))).toEqual([{ outcome: "dropped", n: 5 }]);
});

test("a round's programs are shared round-robin across accounts, whatever the flood's cardinality", () => {
  const now = Date.now();
  let id = 0;
  const attempt = (accountId: string, program: string) =>
    ({ attemptId: String(id++), accountId, program, nextCheckAt: now }) as OpenAttempt;
  const due: OpenAttempt[] = [];
  for (let i = 0; i < 30_000; i++) due.push(attempt("flood", `junk${i}`));
  for (const program of ["a", "b", "a"]) due.push(attempt("honest", program));
  due.push(attempt("third", "a")); // a program another account was granted: taken in the same round
  const { taken, deferred } = withinProgramBudget(due, MAX_PROGRAMS_PER_ROUND);
  expect(new Set(taken.map((a) => a.program)).size).toBe(MAX_PROGRAMS_PER_ROUND);
  expect(taken.filter((a) => a.accountId !== "flood").map((a) => a.program)).toEqual(["a", "b", "a", "a"]);
  expect(taken.length + deferred.length).toBe(due.length);
  expect(deferred.every((a) => a.accountId === "flood")).toBe(true);
});
