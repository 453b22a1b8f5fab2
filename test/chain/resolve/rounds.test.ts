// A scheduled resolve run goes on in rounds while envelopes keep arriving (src/chain/resolve/resolve.ts,
// roundsForMs): each round's intake and look-ups overlap the previous round's recording. What users
// rely on: what arrived while a round was being recorded is taken in by the next round of the same
// run, nothing is taken in or resolved twice (a round's segments are marked taken only when its
// batch commits), and a round whose recording fails fails the run, after which the next run
// resolves everything exactly once.
import { afterEach, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { runJob } from "../../../src/jobs";
import { resolveJob } from "../../../src/jobs/resolve";
import { flushSpool } from "../../../src/lake/flush-spool";
import { makePreflightEnvelope } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { type TestServer, testServer } from "../../helpers/server";

let rpc: ReturnType<typeof startRecordedRpc> | null = null;
let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  rpc?.stop();
  t = null;
  rpc = null;
});

/** More segments than one round takes in (200 at most): a backlog the next round goes on with. */
const SEGMENTS = 205;

async function serverWithSegments(): Promise<TestServer> {
  rpc = startRecordedRpc([], { blockHeight: 300_000_000 });
  const server = await testServer({ SOLANA_RPC_URL: rpc.url, SPOOL_SEAL_MS: "600000" });
  // Preflight failures resolve from their own logs: every attempt is decided in the round that takes it in.
  for (let i = 0; i < SEGMENTS; i++) {
    expect((await server.ingest({ apiKey: server.key("acme"), envelopes: [makePreflightEnvelope()] })).status).toBe(
      202,
    );
    await server.server.spool!.seal();
  }
  expect((await flushSpool(server.ctx)).rows).toBe(SEGMENTS);
  return server;
}

const resolutionCounts = async (server: TestServer) =>
  (
    await server.ctx.duck.all<{ n: number; distinct_attempts: number }>(
      `SELECT count(*)::INT AS n, count(DISTINCT attempt_id)::INT AS distinct_attempts FROM read_parquet('${server.ctx.paths.datasetGlob("resolutions")}')`,
    )
  )[0];
const segmentsAwaiting = (server: TestServer) =>
  server.ctx.control.query<{ n: number }, []>("SELECT count(*) AS n FROM lake_segments WHERE intake_at IS NULL").get()!
    .n;

test("a scheduled run takes in, in its next round, what one round could not, while that round is recorded; nothing twice", async () => {
  t = await serverWithSegments();
  const outcome = await runJob(t.ctx, resolveJob);
  expect(outcome.ok).toBe(true);
  const details = outcome.details as {
    rounds: number;
    intake: { segments: number; attempts: number };
    resolved: Record<string, number>;
    backlog: boolean;
  };
  expect(details.rounds).toBeGreaterThanOrEqual(2);
  expect(details.intake).toMatchObject({ segments: SEGMENTS, attempts: SEGMENTS });
  expect(details.resolved.preflight).toBe(SEGMENTS);
  expect(details.backlog).toBe(false);
  expect(await resolutionCounts(t)).toEqual({ n: SEGMENTS, distinct_attempts: SEGMENTS });
  expect(segmentsAwaiting(t)).toBe(0);
}, 60_000);

test("a round whose recording fails fails the run; the next run resolves every attempt exactly once", async () => {
  t = await serverWithSegments();
  const options = { rpc: createRpcClient({ url: rpc!.url }), idls: loadIdls(t.ctx.paths.root), roundsForMs: 30_000 };
  let commits = 0;
  const failFirst = () => {
    if (++commits === 1) throw new Error("crash before the first round's commit");
  };
  await expect(resolvePending(t.ctx, { ...options, beforeCommit: failFirst })).rejects.toThrow(
    "crash before the first round's commit",
  );
  const again = await resolvePending(t.ctx, options);
  expect(again.discardedBatches).toBeGreaterThanOrEqual(1);
  expect(await resolutionCounts(t)).toEqual({ n: SEGMENTS, distinct_attempts: SEGMENTS });
  expect(segmentsAwaiting(t)).toBe(0);
}, 60_000);
