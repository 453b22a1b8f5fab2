// Intake of a spool backlog: segments are taken in chunks and at most a row budget per run, so a
// server that fell behind works its backlog off over several runs; every envelope is queued exactly
// once, and segments are never split.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { intakeNewSegments } from "../../../src/chain/resolve/intake";
import { flushSpool } from "../../../src/lake/flush";
import { makeEnvelope } from "../../helpers/envelopes";
import { testServer, type TestServer } from "../../helpers/server";

let t: TestServer;
beforeAll(async () => {
  t = await testServer({ SPOOL_SEAL_MS: "600000", INGEST_BURST: "1000000" });
});
afterAll(async () => await t.stop());

test("a backlog of segments is taken over several runs within the row budget, each envelope once", async () => {
  const key = t.key("acme");
  const sigs: string[] = [];
  // Five segments of 30 envelopes each.
  for (let s = 0; s < 5; s++) {
    const envelopes = Array.from({ length: 30 }, () => makeEnvelope());
    sigs.push(...envelopes.map((e) => e.sig!));
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await t.server.spool!.seal();
  }
  expect(await flushSpool(t.ctx)).toMatchObject({ segments: 5, rows: 150 });

  // Chunks of up to 60 rows (two segments), at most 70 rows per run: a run takes whole chunks
  // until it has reached the budget, so 2 + 2 segments, then the last one.
  const limits = { chunkRows: 60, maxRows: 70 };
  // `more` tells the scheduler to run again soon instead of after a whole interval.
  expect(await intakeNewSegments(t.ctx, limits)).toEqual({ segments: 4, attempts: 120, more: true });
  expect(await intakeNewSegments(t.ctx, limits)).toEqual({ segments: 1, attempts: 30, more: false });
  expect(await intakeNewSegments(t.ctx, limits)).toEqual({ segments: 0, attempts: 0, more: false });

  const queued = t.ctx.control.query<{ sig: string }, []>("SELECT sig FROM pending_attempts").all().map((r) => r.sig).sort();
  expect(queued).toEqual([...sigs].sort());
}, 60_000);

test("a segment larger than a chunk is still taken whole", async () => {
  const key = t.key("bigco");
  expect((await t.ingest({ apiKey: key, envelopes: Array.from({ length: 40 }, () => makeEnvelope()) })).status).toBe(202);
  await t.server.spool!.seal();
  expect(await flushSpool(t.ctx)).toMatchObject({ segments: 1, rows: 40 });
  expect(await intakeNewSegments(t.ctx, { chunkRows: 10, maxRows: 10 })).toEqual({ segments: 1, attempts: 40, more: false });
}, 60_000);
