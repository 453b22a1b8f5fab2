// A job on a thread of its own (src/jobs/thread.ts, RESOLVE_THREAD): the resolver's runs happen on a
// worker thread with a context of its own, while the lease and the recorded runs stay with the
// caller. What users rely on: a resolve run goes on while the thread that takes ingest batches and
// answers reads is busy (and the other way round), and what a run reports, a failure included, is
// what the scheduler and /v1/status see.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { runJob } from "../../src/jobs";
import { resolveJob } from "../../src/jobs/resolve";
import { onThread } from "../../src/jobs/thread";
import { makeEnvelope, makePreflightEnvelope } from "../helpers/envelopes";
import { startRecordedRpc } from "../helpers/recorded-rpc";
import { ingestAndFlush } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";

const HEIGHT = 300_000_000;
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
/** A context that made its own logger and clock, as `bun run start` does: jobs may move to threads. */
let own: Context;

beforeAll(async () => {
  rpc = startRecordedRpc([], { blockHeight: HEIGHT });
  t = await testServer({ SOLANA_RPC_URL: rpc.url, SPOOL_SEAL_MS: "600000" });
  own = await createContext(
    loadConfig({
      TXRAY_DATA_DIR: t.ctx.config.dataDir,
      TXRAY_CONTROL_URL: t.ctx.config.TXRAY_CONTROL_URL,
      TXRAY_LOG_LEVEL: "silent",
      SOLANA_RPC_URL: rpc.url,
    }),
  );
});
afterAll(async () => {
  own.close();
  await t.stop();
  rpc.stop();
});

const committedBatches = () =>
  own.control.query<{ n: number }, []>("SELECT count(*) AS n FROM resolution_batches WHERE committed = 1").get()!.n;
const runsStarted = () =>
  own.control.query<{ n: number }, []>("SELECT count(*) AS n FROM job_runs WHERE job = 'resolve'").get()!.n;

test("a run on the thread goes on while the calling thread is busy, and reports to the caller's run record", async () => {
  const job = onThread(resolveJob);
  try {
    // Preflight failures resolve from their own logs: no chain reads, so nothing here needs this thread.
    await ingestAndFlush(t, [makePreflightEnvelope(), makePreflightEnvelope()]);
    const before = committedBatches();
    const started = runsStarted();
    const outcome = runJob(own, job);
    while (runsStarted() === started) await Bun.sleep(5); // the run is recorded, then handed to the thread at once
    // This thread now stays busy (no await) until the run's batch commits: only another thread can commit it.
    const deadline = Date.now() + 30_000;
    while (committedBatches() === before && Date.now() < deadline) Bun.sleepSync(10);
    expect(committedBatches()).toBe(before + 1);
    const done = await outcome;
    expect(done.ok).toBe(true);
    expect((done.details as { resolved: Record<string, number> }).resolved.preflight).toBe(2);
    const recorded = own.control
      .query<{ ok: number; details: string }, []>(
        "SELECT ok, details FROM job_runs WHERE job = 'resolve' ORDER BY id DESC LIMIT 1",
      )
      .get()!;
    expect(recorded.ok).toBe(1);
    expect(JSON.parse(recorded.details).resolved.preflight).toBe(2);
    // The thread's own heap, which the server's /metrics cannot see.
    expect(JSON.parse(recorded.details).hostHeapUsedBytes).toBeGreaterThan(1e6);
    expect(JSON.parse(recorded.details).hostDuckdbBytes).toBeGreaterThanOrEqual(0);
  } finally {
    await job.close();
  }
}, 60_000);

test("a thread closed and started again goes on from the checkpoint: open attempts stay open, nothing is resolved twice", async () => {
  const job = onThread(resolveJob);
  try {
    const sends = [
      makeEnvelope({ lastValidBlockHeight: HEIGHT + 1_000 }),
      makeEnvelope({ lastValidBlockHeight: HEIGHT + 1_000 }),
    ];
    await ingestAndFlush(t, [...sends, makePreflightEnvelope()]);
    const first = await runJob(own, job);
    expect(first.ok).toBe(true);
    expect(first.details).toMatchObject({ intake: { attempts: 3 }, resolved: { preflight: 1 }, stillPending: 2 });
    await job.close();
    const again = await runJob(own, job); // a new thread: its memory is rebuilt
    expect(again.ok).toBe(true);
    expect(again.details).toMatchObject({
      intake: { attempts: 0 },
      resolved: { preflight: 0, landed: 0, dropped: 0, failed_onchain: 0 },
      stillPending: 2,
    });
  } finally {
    await job.close();
  }
}, 60_000);

test("a run that fails on the thread is a failed run with its error; a shutdown's abort ends it as stopped", async () => {
  const down = await createContext(
    loadConfig({
      TXRAY_DATA_DIR: t.ctx.config.dataDir,
      TXRAY_CONTROL_URL: t.ctx.config.TXRAY_CONTROL_URL,
      TXRAY_LOG_LEVEL: "silent",
      SOLANA_RPC_URL: "http://127.0.0.1:9",
    }),
  );
  const job = onThread(resolveJob);
  try {
    await ingestAndFlush(t, [makeEnvelope({ lastValidBlockHeight: HEIGHT + 1_000 })]);
    const failed = await runJob(down, job); // the new send is due at once; the chain cannot be reached
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/127\.0\.0\.1:9|connect|ECONNREFUSED|Unable to connect/i);
    const stop = new AbortController();
    stop.abort();
    const stopped = await runJob(down, job, { signal: stop.signal });
    expect(stopped).toMatchObject({ ok: false, stopped: true });
  } finally {
    await job.close();
    down.close();
  }
}, 60_000);

test("a thread that ends without an error fails its run instead of leaving it waiting, and is replaced at the next run", async () => {
  const job = onThread(resolveJob, { worker: new URL("../helpers/exiting-thread.ts", import.meta.url) });
  try {
    const first = await runJob(own, job);
    expect(first).toMatchObject({ ok: false });
    expect(first.error).toMatch(/resolve thread ended/);
    const second = await runJob(own, job); // a new thread (which ends again): not a message to the one that ended
    expect(second.error).toMatch(/resolve thread ended/);
  } finally {
    await job.close();
  }
}, 60_000);
