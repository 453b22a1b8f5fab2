// Compaction never swaps a partition under a running tables build (which lists the lake's files and
// then reads them): the compact job skips its pass while the build's job lease is held.

import { afterEach, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ifLeaseFree } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { runJob } from "../../src/jobs/run";
import { compactJob } from "../../src/jobs/compact";
import { makeEnvelope } from "../helpers/envelopes";
import { testServer, type TestServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

test("the compact job skips while a tables build holds its lease, and compacts afterwards", async () => {
  t = await testServer();
  const key = t.key("compact");
  for (let i = 0; i < 5; i++) {
    expect((await t.ingest({ apiKey: key, envelopes: [makeEnvelope()] })).status).toBe(202);
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
  }
  const partition = join(t.ctx.paths.dataset("envelopes"), readdirSync(t.ctx.paths.dataset("envelopes"))[0]);
  const day = join(partition, readdirSync(partition)[0]);
  const parts = () => readdirSync(day).filter((name) => name.endsWith(".parquet"));
  expect(parts().length).toBe(5);

  let during: Awaited<ReturnType<typeof runJob>> | null = null;
  const held = await ifLeaseFree(t.ctx.control, "job:tables", async () => {
    during = await runJob(t!.ctx, compactJob);
    return parts().length;
  });
  expect(held).toEqual({ ran: true, value: 5 });
  expect(during!).toMatchObject({ ok: true, details: { skipped: expect.stringContaining("tables build") } });

  const after = await runJob(t.ctx, compactJob);
  expect(after).toMatchObject({ ok: true, details: { partsMerged: 5 } });
  expect(parts().length).toBe(1);
});
