// A send's lastValidBlockHeight is believed up to the chain's height at its first look-up + 300
// blocks (a blockhash is valid for 150): a made-up far-future value (1e12) is dropped once the chain
// passes that cap, instead of being looked up every 30 s for 24 h, but as `unknown` with the
// implausible value as evidence: the cap is held apart from the value the client sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { MAX_BLOCKS_TO_EXPIRY } from "../../../src/chain/resolve/open-attempts";
import { currentState } from "../../../src/chain/resolve/state";
import { createRpcClient } from "../../../src/chain/rpc";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope, randomSignature } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { ingestAndFlush } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

const HEIGHT = 300_000_000;
const chain = { blockHeight: HEIGHT };
const clock = advancingClock();
const forged = randomSignature();
const honest = randomSignature();
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([], chain); // reads chain.blockHeight at every call: the test moves the chain on
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
  const program = "11111111111111111111111111111111";
  await ingestAndFlush(t, [
    makeEnvelope({ sig: forged, program, lastValidBlockHeight: 1e12, sentAt: clock() }),
    makeEnvelope({ sig: honest, program, lastValidBlockHeight: HEIGHT + 150, sentAt: clock() }),
  ]);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("a lastValidBlockHeight of 1e12 is dropped as unknown once the chain passes its height at intake + 300", async () => {
  expect(MAX_BLOCKS_TO_EXPIRY).toBe(300);
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root) };
  const first = await resolvePending(t.ctx, options);
  expect(first.resolved.dropped).toBe(0);
  expect(first.stillPending).toBe(2);
  // The cap is held apart: the client's value stays as sent (evidence, index, checkpoint).
  const open = (await currentState(t.ctx)).open;
  const forgedAttempt = [...open.values()].find((a) => a.sig === forged)!;
  expect(forgedAttempt).toMatchObject({ lastValidBlockHeight: 1e12, expiryCap: HEIGHT + MAX_BLOCKS_TO_EXPIRY });

  // 100 blocks past the cap, 70 s later (a block rate measured over a minute: the recheck's 2 s
  // are long past), one look-up decides both drops.
  chain.blockHeight = HEIGHT + MAX_BLOCKS_TO_EXPIRY + 100;
  clock.advance(70_000);
  const second = await resolvePending(t.ctx, options);
  expect(second.resolved).toEqual({ landed: 0, failed_onchain: 0, dropped: 2, preflight: 0 });
  expect(second.stillPending).toBe(0);
  // The cap decided the forged one: no blockhash expiry is shown, the implausible value is the evidence.
  const drop = await t.get(`/v1/diagnose-drop/${forged}`);
  expect(drop.body).toMatchObject({ outcome: "dropped", dropClass: "unknown" });
  expect(drop.body.evidence).toHaveLength(1);
  expect(drop.body.evidence[0]).toMatchObject({ kind: "implausible_last_valid_block_height", value: 1e12 });
  expect(drop.body.evidence[0].detail).toContain("implausible lastValidBlockHeight 1000000000000");
  // Its own lastValidBlockHeight decided the honest one: an ordinary expiry, 250 blocks past it.
  const honestDrop = await t.get(`/v1/diagnose-drop/${honest}`);
  expect(honestDrop.body).toMatchObject({ outcome: "dropped", dropClass: "expired_blockhash" });
  expect(honestDrop.body.evidence[0]).toMatchObject({ kind: "blockhash_expired", value: 250 });
});
