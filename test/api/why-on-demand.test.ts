// why/{sig} on demand (issue 22): an attempt txray holds but has not resolved is asked of the chain at
// once and decided by the resolver's rules, so the answer is what the resolver records later, once;
// a success outside the sample is decided from its status (its instruction named from the envelope's
// ixPrefix), and its compute, fee and logs come from its transaction, fetched on demand and kept.
// Chain look-ups are limited per client.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { flushSpool } from "../../src/lake/flush-spool";
import { advancingClock } from "../helpers/clock";
import { makeEnvelope, randomSignature } from "../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../helpers/recorded-rpc";
import { resolveUntilSettled } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";

const failure = recordedTransaction("18_"); // a failed System transfer (insufficient lamports)
const success = recordedTransaction("17_"); // a landed OKX route
const SYSTEM = "11111111111111111111111111111111";
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
const clock = advancingClock();

beforeAll(async () => {
  rpc = startRecordedRpc([failure, success]);
  // Successes are (practically) never in the sample here: the on-demand answer is the status-only one.
  t = await testServer(
    {
      SOLANA_RPC_URL: rpc.url,
      RESOLVE_SAMPLE_RATE: "0.000001",
      WHY_CHAIN_PER_MINUTE: "6",
      SPOOL_SEAL_MS: "600000",
      TRUSTED_PROXY_HEADER: "x-forwarded-for",
    },
    { clock },
  );
  const envelopes = [
    makeEnvelope({ sig: failure.sig, program: SYSTEM, ixPrefix: "0200000040420f00", cuLimit: 1_400_000 }),
    makeEnvelope({
      sig: success.sig,
      program: SYSTEM,
      ixPrefix: "0200000040420f00",
      cuLimit: 300_000,
      rpcLabel: "triton",
    }),
  ];
  expect((await t.ingest({ apiKey: t.key("acme"), envelopes })).status).toBe(202);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

const why = (sig: string, client = "10.0.0.1") => t.get(`/v1/why/${sig}`, { "x-forwarded-for": client });

test("an attempt still in the spool is answered from the chain at once, as the resolver will record it", async () => {
  const failed = await why(failure.sig);
  expect(failed.status).toBe(200);
  expect(failed.body).toMatchObject({
    outcome: "failed_onchain",
    source: "ingested",
    program: SYSTEM,
    rpcLabel: "helius",
    errName: "ResultWithNegativeLamports",
    slot: failure.result.slot,
  });
  expect(typeof failed.body.cuUsed).toBe("number"); // a failure is always decoded from its transaction

  const landed = await why(success.sig);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({
    outcome: "landed",
    source: "ingested",
    program: SYSTEM,
    rpcLabel: "triton",
    slot: success.result.slot,
    blockTime: success.result.blockTime * 1000,
    instruction: "Transfer",
    // Outside the success sample: compute, fee and logs from the transaction fetched on demand.
    outsideSample: true,
    cuUsed: success.result.meta.computeUnitsConsumed,
    cuRequested: 332_000, // its SetComputeUnitLimit (the envelope's cuLimit said 300,000)
    fee: success.result.meta.fee,
    cuPriceMicroLamports: 97_440,
    priorityFee: 32_351,
    costUnits: success.result.meta.costUnits,
    logs: success.result.meta.logMessages,
    ixPath: null,
    errName: null,
    issue: null,
  });
  // diagnose-drop never asks the chain: still pending until the resolver decides.
  expect((await t.get(`/v1/diagnose-drop/${success.sig}`)).body.error.code).toBe("pending");

  // The resolver reaches them: one row each in the lake, and why answers the same from the index.
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const summary = await resolveUntilSettled(t.ctx, {
    rpc: createRpcClient({ url: rpc.url }),
    idls: loadIdls(t.ctx.paths.root),
    sampleRate: 0.000001,
  });
  expect(summary.resolved).toMatchObject({ landed: 1, failed_onchain: 1 });
  const rows = await t.ctx.duck.all<{ sig: string; n: number }>(
    `SELECT e.sig, count(*)::INTEGER AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}') r JOIN read_parquet('${t.ctx.paths.datasetGlob("envelopes")}') e USING (attempt_id) GROUP BY e.sig`,
  );
  expect(rows.map((r) => r.n)).toEqual([1, 1]);
  clock.advance(1_100); // the on-demand answers are reused for a second
  for (const [sig, before] of [
    [failure.sig, failed.body],
    [success.sig, landed.body],
  ] as const) {
    const after = await why(sig);
    expect(after.body).toEqual({ ...before, payerBotScore: after.body.payerBotScore, issue: after.body.issue });
  }
});

test("chain look-ups are limited per client: 429 for a signature txray never saw, 404 pending for one it holds", async () => {
  const client = "10.9.9.9";
  let limited = null as null | { status: number; headers: Headers; body: any };
  for (let i = 0; i < 8 && limited === null; i++) {
    const answer = await why(randomSignature(), client);
    if (answer.status === 429) limited = answer;
    else expect(answer.body.error.code).toBe("not_found");
  }
  expect(limited).not.toBeNull();
  expect(limited!.body.error.code).toBe("rate_limited");
  expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  // Another client still has its own budget.
  expect((await why(randomSignature(), "10.9.9.10")).body.error.code).toBe("not_found");
  // A held attempt with the client's budget spent: pending, not an error.
  const held = makeEnvelope({ sig: randomSignature(), program: SYSTEM });
  expect((await t.ingest({ apiKey: t.key("acme"), envelopes: [held] })).status).toBe(202);
  const pending = await why(held.sig!, client);
  expect(pending.status).toBe(404);
  expect(pending.body.error.code).toBe("pending");
});

test("a held attempt the chain has not confirmed is pending, and the answer says what it waits for", async () => {
  const blockhash = makeEnvelope({ sig: randomSignature(), program: SYSTEM });
  const durable = makeEnvelope({ sig: randomSignature(), program: SYSTEM, nonce: true });
  expect((await t.ingest({ apiKey: t.key("acme"), envelopes: [blockhash, durable] })).status).toBe(202);
  const waiting = await why(blockhash.sig!, "10.7.0.1");
  expect([waiting.status, waiting.body.error.code]).toEqual([404, "pending"]);
  expect(waiting.body.error.message).toContain("its blockhash has not expired");
  // A durable-nonce send has no blockhash expiry: it waits for its nonce account.
  const nonce = await why(durable.sig!, "10.7.0.2");
  expect([nonce.status, nonce.body.error.code]).toEqual([404, "pending"]);
  expect(nonce.body.error.message).toContain("its nonce account has not advanced");
  expect(nonce.body.error.message).not.toContain("blockhash has not expired");
  const diagnosis = await t.get(`/v1/diagnose-drop/${durable.sig}`);
  expect(diagnosis.body.error.message).toContain("its nonce account has not advanced");
});
