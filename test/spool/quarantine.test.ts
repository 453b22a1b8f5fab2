// A spool segment whose rows cannot be read (a batch that passed its checksum but does not parse, a
// legacy segment without checksums, a legacy JSON segment) is set aside whole into the node's
// quarantine directory, recorded (GET /v1/status), logged with its path and envelope count, and
// never retried; the other segments of the same pass are flushed. A failure that is not the data's
// (here an injected one) sets nothing aside: the pass is retried.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flushSpool } from "../../src/lake/flush-spool";
import { createLogger } from "../../src/shared/logger";
import { encodeFrames, framesFileOf, QUARANTINE_DIR } from "../../src/spool";
import { makeEnvelope } from "../helpers/envelopes";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

/** A server whose spool holds three sealed segments of 10 envelopes each; their files and sigs. */
async function threeSegments(env: Record<string, string> = {}) {
  t = await testServer({ SPOOL_SEAL_MS: "600000", ...env });
  const key = t.key("acme");
  const dir = t.ctx.paths.spool(t.ctx.config.TXRAY_NODE_ID);
  const segments: { file: string; sigs: string[] }[] = [];
  for (let s = 0; s < 3; s++) {
    const envelopes = Array.from({ length: 10 }, () => makeEnvelope());
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await t.server.spool!.seal();
    const file = readdirSync(dir)
      .filter((name) => name.endsWith(".sealed"))
      .map((name) => join(dir, name))
      .find((file) => !segments.some((s) => s.file === file))!;
    segments.push({ file, sigs: envelopes.map((e) => e.sig!) });
  }
  return { dir, segments };
}

/** Replaces the receive time (column 2) of the segment's second line with letters: the line no longer parses. */
function unparsable(file: string): Buffer {
  const lines = readFileSync(file, "utf8").split("\n");
  const fields = lines[1].split("\t");
  fields[1] = "x".repeat(fields[1].length);
  lines[1] = fields.join("\t");
  return Buffer.from(lines.join("\n"));
}

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

async function sigsInLake() {
  return new Set((await lakeRows(t!.ctx, "sig")).map((row) => row.sig as string));
}

for (const FLUSH_NATIVE of ["on", "off"]) {
  describe(`writer: ${FLUSH_NATIVE === "on" ? "native" : "DuckDB"}`, () => {
    for (const kind of ["with checksums that verify", "without checksums (legacy)"]) {
      test(`a segment ${kind} whose rows cannot be parsed is set aside whole, counted and logged; the others flush; it is never retried`, async () => {
        const { dir, segments } = await threeSegments({ FLUSH_NATIVE });
        const bad = segments[1];
        const bytes = unparsable(bad.file);
        writeFileSync(bad.file, bytes);
        if (kind.startsWith("with")) {
          writeFileSync(framesFileOf(bad.file), encodeFrames(0, [bytes])); // checksums of the damaged bytes: they verify
        } else unlinkSync(framesFileOf(bad.file));
        const { lines, logger } = recordingLogger();

        const result = await flushSpool({ ...t!.ctx, logger });
        expect(result.quarantined).toBe(1);
        expect(result.rows).toBe(20);
        const lake = await sigsInLake();
        for (const sig of [...segments[0].sigs, ...segments[2].sigs]) expect(lake.has(sig)).toBe(true);
        for (const sig of bad.sigs) expect(lake.has(sig)).toBe(false);

        // Set aside whole, with its sidecar, out of the spool's way.
        const name = bad.file.slice(dir.length + 1);
        const quarantined = join(dir, QUARANTINE_DIR, name);
        expect(readFileSync(quarantined).equals(bytes)).toBe(true);
        expect(existsSync(framesFileOf(quarantined))).toBe(kind.startsWith("with"));
        expect(readdirSync(dir).filter((n) => n.endsWith(".sealed") || n.endsWith(".frames"))).toEqual([]);
        const logged = lines.find((line) => line.level === "error" && String(line.message).includes("set aside"));
        expect(logged).toMatchObject({
          segment: name.replace(/\.sealed$/, ""),
          path: quarantined,
          envelopes: 10,
          bytes: bytes.length,
        });
        expect(String(logged!.reason)).toStartWith("Conversion Error");
        const status = (await t!.get("/v1/status")).body;
        expect(status.lake.quarantine).toEqual({
          segments: 1,
          envelopes: 10,
          lastAt: expect.any(Number),
          lastSegment: name.replace(/\.sealed$/, ""),
        });
        expect(status.lake.envelopes).toBe(20);

        // The next flush does not see it again, and flushes what comes next.
        const more = Array.from({ length: 5 }, () => makeEnvelope());
        expect((await t!.ingest({ apiKey: t!.key("other"), envelopes: more })).status).toBe(202);
        await t!.server.spool!.seal();
        const again = await flushSpool({ ...t!.ctx, logger });
        expect(again.quarantined).toBeUndefined();
        expect(again.rows).toBe(5);
        expect((await t!.get("/v1/status")).body.lake.quarantine.segments).toBe(1);
      });
    }
  });
}

test("a legacy JSON segment (format 1) with a malformed line is set aside; the TSV segments beside it flush", async () => {
  const { dir, segments } = await threeSegments();
  const legacy = join(dir, "node1-1763700000000-abcdef.sealed");
  const good = {
    attemptId: "att-legacy-1",
    accountId: "acc_legacy",
    receivedAt: 1_763_700_000_000,
    program: makeEnvelope().program,
    sig: makeEnvelope().sig,
    kind: "send",
  };
  writeFileSync(legacy, `${JSON.stringify(good)}\n{"attemptId": "att-legacy-2", broken\n`);
  const { logger } = recordingLogger();
  const result = await flushSpool({ ...t!.ctx, logger });
  expect(result.quarantined).toBe(1);
  expect(result.rows).toBe(30);
  expect(existsSync(join(dir, QUARANTINE_DIR, "node1-1763700000000-abcdef.sealed"))).toBe(true);
  const lake = await sigsInLake();
  for (const segment of segments) for (const sig of segment.sigs) expect(lake.has(sig)).toBe(true);
  expect((await t!.get("/v1/status")).body.lake.quarantine).toMatchObject({ segments: 1, envelopes: 2 });
});

test("a flush failure that is not about the data sets nothing aside: the pass is retried and flushes everything", async () => {
  const { dir, segments } = await threeSegments({ TXRAY_FAULT_POINT: "flush:after-stage:throw" });
  const { logger } = recordingLogger();
  await expect(flushSpool({ ...t!.ctx, logger })).rejects.toThrow("injected fault at flush:after-stage");
  expect(existsSync(join(dir, QUARANTINE_DIR))).toBe(false);
  expect(readdirSync(dir).filter((n) => n.endsWith(".sealed"))).toHaveLength(3);
  const result = await flushSpool({ ...t!.ctx, logger });
  expect(result.quarantined).toBeUndefined();
  expect(result.rows).toBe(30);
  expect((await sigsInLake()).size).toBe(30);
  expect((await t!.get("/v1/status")).body.lake.quarantine).toEqual({
    segments: 0,
    envelopes: 0,
    lastAt: null,
    lastSegment: null,
  });
  for (const segment of segments) expect(existsSync(segment.file)).toBe(false);
});
