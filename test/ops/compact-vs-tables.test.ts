// Compaction never swaps a partition under a running tables build (which lists the lake's files and
// then reads them), and a build that runs back to back does not keep it from compacting: the merges
// run beside the build, the swaps wait for the build's job lease, and are given up (nothing
// swapped, nothing left in staging) when the build holds it longer than the wait.

import { afterEach, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { withLease } from "../../src/control";
import { compactJob } from "../../src/jobs/compact";
import { runJob } from "../../src/jobs/run";
import { compactLake } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** Five flushed parts in one partition; its parts' names, listed when called. */
async function fiveParts(server: TestServer) {
  const key = server.key("compact");
  for (let i = 0; i < 5; i++) {
    expect((await server.ingest({ apiKey: key, envelopes: [makeEnvelope()] })).status).toBe(202);
    await server.server.spool!.seal();
    await flushSpool(server.ctx);
  }
  const partition = join(server.ctx.paths.dataset("envelopes"), readdirSync(server.ctx.paths.dataset("envelopes"))[0]);
  const day = join(partition, readdirSync(partition)[0]);
  return () => readdirSync(day).filter((name) => name.endsWith(".parquet"));
}

/** Holds `job:tables` (as a running build does) until the returned release is called. */
async function holdTablesLease(server: TestServer) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const build = withLease(server.ctx.control, "job:tables", async () => {
    taken();
    await held;
  });
  await isTaken;
  return async () => {
    release();
    await build;
  };
}

test("the compact job merges while a tables build holds its lease, and swaps once the build ends", async () => {
  t = await testServer();
  const parts = await fiveParts(t);
  expect(parts().length).toBe(5);

  const endBuild = await holdTablesLease(t);
  const compaction = runJob(t.ctx, compactJob);
  // The merge is written meanwhile (staging), the partition untouched while the build runs.
  const staging = () => readdirSync(t!.ctx.paths.staging).filter((name) => name.startsWith("compact-"));
  for (let waited = 0; staging().length === 0 && waited < 20_000; waited += 10) await Bun.sleep(10);
  expect(staging().length).toBe(1);
  await Bun.sleep(200);
  expect(parts().length).toBe(5);
  await endBuild();

  expect(await compaction).toMatchObject({ ok: true, details: { partitions: 1, partsMerged: 5 } });
  expect(parts().length).toBe(1);
  expect(staging()).toEqual([]);
});

test("merges whose swap waited longer than allowed are given up: nothing swapped, staging emptied", async () => {
  t = await testServer();
  const parts = await fiveParts(t);
  const endBuild = await holdTablesLease(t);
  const result = await compactLake(t.ctx, { minParts: 4, swapsWaitFor: { lease: "job:tables", waitMs: 300 } });
  expect(result).toMatchObject({ partitions: 0, partsMerged: 0, skipped: expect.stringContaining("job:tables") });
  expect(parts().length).toBe(5);
  expect(readdirSync(t.ctx.paths.staging).filter((name) => name.startsWith("compact-"))).toEqual([]);
  await endBuild();
  // The next run merges them.
  expect(await compactLake(t.ctx, { minParts: 4, swapsWaitFor: { lease: "job:tables", waitMs: 300 } })).toEqual({
    partitions: 1,
    partsMerged: 5,
  });
  expect(parts().length).toBe(1);
});
