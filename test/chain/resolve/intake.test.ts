// Intake of a spool backlog: segments are taken in chunks and at most a row budget per run, so a
// server that fell behind works its backlog off over several runs; every envelope is taken exactly
// once (as an attempt handed to the resolver), and segments are never split. A segment is read from the parts its flush wrote; once
// compaction has merged those (or for a segment flushed before control migration 6), from its days.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import type { Attempt } from "../../../src/chain/resolve";
import { intakeNewSegments } from "../../../src/chain/resolve/intake";
import { markSegmentsTaken, segmentsAwaitingIntake } from "../../../src/control";
import { compactLake } from "../../../src/lake/compact";
import { flushSpool } from "../../../src/lake/flush-spool";
import { makeEnvelope, PROGRAMS } from "../../helpers/envelopes";
import { type TestServer, testServer } from "../../helpers/server";

let t: TestServer;
beforeAll(async () => {
  t = await testServer({ SPOOL_SEAL_MS: "600000", INGEST_BURST: "1000000" });
});
afterAll(async () => await t.stop());

/** What intake hands over, by signature. */
const taken: Attempt[] = [];
const take = (attempts: Attempt[]) => taken.push(...attempts);
/** An intake as a run makes it: the segments it read are marked taken when the run records. */
const intake = async (limits?: Parameters<typeof intakeNewSegments>[2]) => {
  const { names, ...taken } = await intakeNewSegments(t.ctx, take, limits);
  markSegmentsTaken(t.ctx.control, names, Date.now());
  return taken;
};

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
  expect(await intake(limits)).toEqual({ segments: 4, attempts: 120, more: true, chunksReadByDay: 0 });
  expect(await intake(limits)).toEqual({ segments: 1, attempts: 30, more: false, chunksReadByDay: 0 });
  expect(await intake(limits)).toEqual({ segments: 0, attempts: 0, more: false, chunksReadByDay: 0 });

  expect(taken.map((a) => a.sig).sort()).toEqual([...sigs].sort());
  expect(taken.every((a) => a.kind === "send" && a.ixPrefix === null && typeof a.receivedAt === "number")).toBe(true);
}, 60_000);

test("a segment larger than a chunk is still taken whole", async () => {
  taken.length = 0;
  const key = t.key("bigco");
  expect((await t.ingest({ apiKey: key, envelopes: Array.from({ length: 40 }, () => makeEnvelope()) })).status).toBe(
    202,
  );
  await t.server.spool!.seal();
  expect(await flushSpool(t.ctx)).toMatchObject({ segments: 1, rows: 40 });
  expect(await intake({ chunkRows: 10, maxRows: 10 })).toEqual({
    segments: 1,
    attempts: 40,
    more: false,
    chunksReadByDay: 0,
  });
}, 60_000);

test("segments whose flushed parts were compacted, or whose flush batch is unrecorded, are read from their days, each envelope once", async () => {
  const key = t.key("compacted");
  const sigs: string[] = [];
  const flushOne = async (otherProgram?: string) => {
    const envelopes = Array.from({ length: 25 }, (_, i) =>
      makeEnvelope(otherProgram && i % 2 === 0 ? { program: otherProgram } : {}),
    );
    sigs.push(...envelopes.map((e) => e.sig!));
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await t.server.spool!.seal();
    expect(await flushSpool(t.ctx)).toMatchObject({ segments: 1, rows: 25 }); // one flush batch per segment
  };
  // A and B: their parts merged by compaction before intake; for B, only the part of one program
  // (its other program's partition holds one part, which compaction leaves). C: flushed before the
  // batch was recorded. D: as flushed.
  await flushOne();
  await flushOne(PROGRAMS.token);
  expect((await compactLake(t.ctx, { minParts: 2 })).partsMerged).toBeGreaterThan(0);
  await flushOne();
  await flushOne();
  const segments = segmentsAwaitingIntake(t.ctx.control);
  expect(segments.length).toBe(4);
  t.ctx.control.query("UPDATE lake_segments SET flush_batch = NULL WHERE segment = ?").run(segments[2].segment);

  taken.length = 0;
  expect(await intake({ chunkRows: 25 })).toEqual({ segments: 4, attempts: 100, more: false, chunksReadByDay: 3 });
  const mine = taken.filter((a) => sigs.includes(a.sig!));
  expect(mine.length).toBe(100);
  expect(new Set(mine.map((a) => a.sig)).size).toBe(100);
}, 60_000);

test("a durable-nonce envelope's nonce account and value are taken in; parts flushed before the column read null", async () => {
  const key = t.key("nonces");
  const nonceAccount = "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku";
  const flushOne = async () => {
    const envelopes = [
      makeEnvelope({ nonce: true, nonceAccount, blockhash: "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi" }),
      makeEnvelope({ nonce: true }),
      makeEnvelope(),
    ];
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    return envelopes.map((e) => e.sig!);
  };
  const current = await flushOne();
  taken.length = 0;
  await intake();
  const bySig = (sig: string) => taken.find((a) => a.sig === sig)!;
  expect(current.map((sig) => [bySig(sig).nonceAccount, bySig(sig).nonceValue])).toEqual([
    [nonceAccount, "GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi"],
    [null, null],
    [null, null],
  ]);

  // The same envelopes in a part written before nonce_account existed (its flushed part rewritten without it).
  const older = await flushOne();
  const [segment] = segmentsAwaitingIntake(t.ctx.control);
  const [part] = new Bun.Glob(`**/part-${segment.flushBatch}-*.parquet`).scanSync({
    cwd: t.ctx.paths.dataset("envelopes"),
    absolute: true,
  });
  await t.ctx.duck.run(
    `COPY (SELECT * EXCLUDE (nonce_account) FROM read_parquet('${part}')) TO '${part}.old' (FORMAT parquet)`,
  );
  renameSync(`${part}.old`, part);
  taken.length = 0;
  await intake();
  expect(older.map((sig) => [bySig(sig).nonce, bySig(sig).nonceAccount, bySig(sig).nonceValue])).toEqual([
    [true, null, null],
    [true, null, null],
    [false, null, null],
  ]);
});
