// Upgrading from the resolver that kept a row per attempt in the control database (before issue 22):
// the first run takes the old queue as its open attempts and the old attempt index into the
// signature index, writes its checkpoint and empties both tables; why answers the old attempts, the
// queued ones are resolved, and nothing is resolved twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EMPTY_STORY } from "../../../src/chain/decode";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { makeEnvelope, randomSignature } from "../../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../../helpers/recorded-rpc";
import { type TestServer, testServer } from "../../helpers/server";

const failure = recordedTransaction("18_");
const oldSig = randomSignature();
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([failure], { blockHeight: 300_000_000 });
  t = await testServer({ SOLANA_RPC_URL: rpc.url });
  const now = Date.now();
  // What the previous version left: one attempt resolved (indexed), one queued for the chain.
  t.ctx.control
    .query(
      `INSERT INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at, fingerprint, drop_class, story)
       VALUES ('old-1', ?, 'acc', ?, 'landed', 'payer-1', 'aaaaaaaaaaaaaaaa', 'helius', ?, ?, NULL, NULL, ?)`,
    )
    .run(
      oldSig,
      "11111111111111111111111111111111",
      now - 60_000,
      now - 50_000,
      JSON.stringify({
        outcome: "landed",
        slot: 7,
        blockTime: now - 55_000,
        err: null,
        story: { ...EMPTY_STORY, instruction: "Transfer" },
        drop: null,
        fingerprint: null,
      }),
    );
  const queued = makeEnvelope({ sig: failure.sig, program: "11111111111111111111111111111111" });
  t.ctx.control
    .query(
      `INSERT INTO pending_attempts (attempt_id, account_id, program, sig, last_valid_block_height, sent_at, received_at, rpc_hash, rpc_label, payer, next_check_at)
       VALUES ('old-2', 'acc', ?, ?, ?, ?, ?, ?, 'helius', ?, ?)`,
    )
    .run(queued.program, queued.sig, 300_000_100, now - 5_000, now - 5_000, queued.rpcHash, queued.payer, now - 1_000);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("the first run imports the old queue and index, then resolves the queued attempt once", async () => {
  const summary = await resolvePending(t.ctx, {
    rpc: createRpcClient({ url: rpc.url }),
    idls: loadIdls(t.ctx.paths.root),
  });
  expect(summary.resolved).toMatchObject({ failed_onchain: 1 });
  expect(summary.stillPending).toBe(0);
  const count = (table: string) =>
    t.ctx.control.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
  expect([count("pending_attempts"), count("attempt_index")]).toEqual([0, 0]);
  expect((await t.get(`/v1/why/${oldSig}`)).body).toMatchObject({
    outcome: "landed",
    instruction: "Transfer",
    slot: 7,
    source: "ingested",
  });
  expect((await t.get(`/v1/why/${failure.sig}`)).body).toMatchObject({
    outcome: "failed_onchain",
    source: "ingested",
    errName: "ResultWithNegativeLamports",
  });
  // A later run (and a process that starts over) finds nothing left to do.
  const again = await resolvePending(t.ctx, {
    rpc: createRpcClient({ url: rpc.url }),
    idls: loadIdls(t.ctx.paths.root),
  });
  expect(again.resolved).toEqual({ landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 });
  const rows = await t.ctx.duck.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}')`,
  );
  expect(rows[0].n).toBe(1);
});
