// An attempt taken in late (a backlog, a restart) whose blockhash expired long before its first
// look-up is decided by that look-up: the recheck 2 s after an expiry exists for attempts looked up
// right at it, and waiting for it again only adds a look-up and a run to a resolver that is behind.
// One just past its expiry still gets the second look-up.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { recordBlockHeight } from "../../../src/control";
import { makeEnvelope, randomSignature } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { ingestAndFlush } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

const HEIGHT = 300_000_000;
const longExpired = randomSignature();
const justExpired = randomSignature();
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([], { blockHeight: HEIGHT });
  t = await testServer({ SOLANA_RPC_URL: rpc.url });
  // The chain's height two minutes ago: a block rate measured from the chain (300 blocks in 120 s).
  recordBlockHeight(t.ctx.control, Date.now() - 120_000, HEIGHT - 300);
  const program = "11111111111111111111111111111111";
  await ingestAndFlush(t, [
    makeEnvelope({ sig: longExpired, program, lastValidBlockHeight: HEIGHT - 200, sentAt: Date.now() - 150_000 }),
    makeEnvelope({ sig: justExpired, program, lastValidBlockHeight: HEIGHT - 1, sentAt: Date.now() - 60_000 }),
  ]);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("long past its expiry, one look-up decides the drop; just past it, the recheck still comes first", async () => {
  const client = createRpcClient({ url: rpc.url });
  const first = await resolvePending(t.ctx, { rpc: client, idls: loadIdls(t.ctx.paths.root) }); // the default 2 s recheck
  expect(first.resolved).toEqual({ landed: 0, failed_onchain: 0, dropped: 1, preflight: 0 });
  expect(first.stillPending).toBe(1);
  // Where its recording's time went (/v1/status shows the run's details).
  expect(Object.keys(first.recordingMs).sort()).toEqual(["index", "publish", "rows", "staging"]);
  const drop = await t.get(`/v1/diagnose-drop/${longExpired}`);
  expect(drop.body).toMatchObject({ outcome: "dropped", dropClass: "expired_blockhash" });
  expect(drop.body.evidence[0]).toMatchObject({ kind: "blockhash_expired", value: 200 });
  expect((await t.get(`/v1/diagnose-drop/${justExpired}`)).body.error.code).toBe("pending");
});
