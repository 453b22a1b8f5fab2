// Spool checksums (src/spool/frames.ts): every accepted batch has a checksum record; flush
// skips a corrupted or torn batch whole (never half-reads it), keeps every other batch, reports it
// in the log and /v1/status, and still flushes legacy segments that have no checksums.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flushSpool } from "../../src/lake/flush-spool";
import { checkFrames, FRAME_RECORD_BYTES, framesFileOf } from "../../src/spool/frames";
import { makeEnvelope } from "../helpers/envelopes";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** Three batches of 10 envelopes, one after the other, in one sealed segment; their sigs per batch. */
async function threeBatches(env: Record<string, string> = {}) {
  t = await testServer({ SPOOL_SEAL_MS: "600000", ...env });
  const key = t.key("acme");
  const batches: string[][] = [];
  for (let b = 0; b < 3; b++) {
    const envelopes = Array.from({ length: 10 }, () => makeEnvelope());
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    batches.push(envelopes.map((e) => e.sig!));
  }
  await t.server.spool!.seal();
  const dir = t.ctx.paths.spool(t.ctx.config.TXRAY_NODE_ID);
  const sealed = readdirSync(dir).filter((n) => n.endsWith(".sealed"));
  expect(sealed).toHaveLength(1);
  const file = join(dir, sealed[0]);
  return { file, batches };
}

async function sigsInLake() {
  return new Set((await lakeRows(t!.ctx, "sig")).map((r) => r.sig as string));
}

/** Byte ranges of the three batches, from the segment's lines (10 lines each). */
function batchRanges(file: string) {
  const bytes = readFileSync(file);
  const ends: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) ends.push(i + 1);
  expect(ends).toHaveLength(30);
  return [0, 1, 2].map((b) => ({ start: b === 0 ? 0 : ends[b * 10 - 1], end: ends[b * 10 + 9] }));
}

for (const FLUSH_NATIVE of ["on", "off"]) {
  describe(`writer: ${FLUSH_NATIVE === "on" ? "native" : "DuckDB"}`, () => {
    test("each accepted batch has a checksum record that verifies", async () => {
      const { file } = await threeBatches({ FLUSH_NATIVE });
      expect(readFileSync(framesFileOf(file)).length).toBe(3 * FRAME_RECORD_BYTES);
      const check = checkFrames(file);
      expect(check).toMatchObject({ intact: true, corruptFrames: 0, tornBytes: 0, corruptBytes: 0 });
      expect(check.ranges).toEqual(batchRanges(file).map((r) => ({ offset: r.start, length: r.end - r.start })));
      expect(await flushSpool(t!.ctx)).toEqual({ segments: 1, rows: 30 });
      expect(existsSync(framesFileOf(file))).toBe(false); // the sidecar goes with its segment
    });

    test("a corrupted byte in the middle batch: that batch is skipped whole, the others are flushed, status counts it", async () => {
      const { file, batches } = await threeBatches({ FLUSH_NATIVE });
      const bytes = readFileSync(file);
      const middle = batchRanges(file)[1];
      // Flip a character inside a signature: the line still parses, only the checksum can tell.
      const at = middle.start + Math.floor((middle.end - middle.start) / 2);
      bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
      writeFileSync(file, bytes);
      const result = await flushSpool(t!.ctx);
      expect(result).toMatchObject({ segments: 1, rows: 20, corruptFrames: 1 });
      const lake = await sigsInLake();
      expect(lake.size).toBe(20);
      for (const sig of [...batches[0], ...batches[2]]) expect(lake.has(sig)).toBe(true);
      for (const sig of batches[1]) expect(lake.has(sig)).toBe(false);
      const status = await t!.get("/v1/status");
      expect(status.body.lake.spoolIntegrity).toMatchObject({
        corruptFrames: 1,
        corruptBytes: middle.end - middle.start,
        tornBytes: 0,
        segmentsRepaired: 1,
      });
      // Nothing is left behind: spool file, sidecar and the verified copy are gone.
      expect(readdirSync(join(file, "..")).filter((n) => !n.startsWith("owner"))).toEqual([]);
      expect(existsSync(t!.ctx.paths.staging) ? readdirSync(t!.ctx.paths.staging) : []).toEqual([]);
    });

    test("a segment cut inside its last batch (a write torn by a crash): the torn batch is skipped, never half-read", async () => {
      const { file, batches } = await threeBatches({ FLUSH_NATIVE });
      const last = batchRanges(file)[2];
      // Cut after the 4th line of the last batch: 4 whole lines that were never acknowledged as a batch.
      const bytes = readFileSync(file);
      let cut = last.start;
      for (let lines = 0; lines < 4; cut++) if (bytes[cut] === 10) lines++;
      truncateSync(file, cut);
      expect(await flushSpool(t!.ctx)).toMatchObject({ segments: 1, rows: 20, tornBytes: cut - last.start });
      const lake = await sigsInLake();
      for (const sig of batches[2]) expect(lake.has(sig)).toBe(false);
      expect(lake.size).toBe(20);
      expect((await t!.get("/v1/status")).body.lake.spoolIntegrity).toMatchObject({
        corruptFrames: 0,
        tornBytes: cut - last.start,
      });
    });

    test("a damaged or torn checksum record: its batch is skipped, the batches around it kept", async () => {
      const { file, batches } = await threeBatches({ FLUSH_NATIVE });
      const frames = readFileSync(framesFileOf(file));
      frames[FRAME_RECORD_BYTES + 3] ^= 0xff; // the middle batch's record
      writeFileSync(framesFileOf(file), frames.subarray(0, frames.length - 7)); // and the last record torn
      expect(await flushSpool(t!.ctx)).toMatchObject({ segments: 1, rows: 10, corruptFrames: 1 });
      const lake = await sigsInLake();
      expect([...lake].sort()).toEqual([...batches[0]].sort());
    });

    test("a legacy segment without checksums is still flushed (its torn last line cut)", async () => {
      const { file, batches } = await threeBatches({ FLUSH_NATIVE });
      unlinkSync(framesFileOf(file));
      const bytes = readFileSync(file);
      writeFileSync(file, Buffer.concat([bytes, bytes.subarray(0, 40)])); // a torn line
      expect(await flushSpool(t!.ctx)).toEqual({ segments: 1, rows: 30 });
      expect((await sigsInLake()).size).toBe(30);
      expect(batches.flat()).toHaveLength(30);
    });
  });
}
