// The ingest worker pool: the same answers as preparing on the main thread, bodies that are views of
// a larger buffer are copied (never detached from their owner), and closing fails in-flight jobs as
// `unavailable` (nothing acknowledged, so the client retries).
import { afterAll, expect, test } from "bun:test";
import { createAccountKey, PrincipalCache } from "../../src/control";
import { prepareBatch } from "../../src/ingest/prepare";
import { IngestWorkers, ingestWorkerCount } from "../../src/ingest/workers";
import { createLogger, silentLogger } from "../../src/shared/logger";
import { testContext } from "../helpers/context";
import { makeEnvelope } from "../helpers/envelopes";

const ctx = await testContext();
const live = createAccountKey(ctx.control, "acme", "live", Date.now()).key;
const readOnly = createAccountKey(ctx.control, "acme", "read", Date.now()).key;
const pool = new IngestWorkers(2, { controlDbPath: ctx.paths.controlDb, maxBatch: 10, native: false }, silentLogger);
afterAll(() => {
  pool.close();
  ctx.dispose();
});

const principals = new PrincipalCache(ctx.control);
const inProcess = { principal: (key: string) => principals.get(key), maxBatch: 10 };
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));
const withoutBatchIds = (lines: Uint8Array) =>
  new TextDecoder().decode(lines).replace(/\t[0-9a-f-]{36}-/g, "\t<batch>-");

test("workers answer exactly what the main thread answers, for good and bad batches", async () => {
  const cases: { body: unknown; headerKey: string | null }[] = [
    {
      body: { apiKey: live, envelopes: [makeEnvelope(), makeEnvelope({ walletAdapter: "tab\there" })] },
      headerKey: null,
    },
    { body: { envelopes: [makeEnvelope()] }, headerKey: live },
    { body: "{not json", headerKey: live },
    { body: [1, 2], headerKey: live },
    { body: { envelopes: [makeEnvelope()] }, headerKey: null },
    { body: { envelopes: [makeEnvelope()] }, headerKey: "txr_live_nope" },
    { body: { envelopes: [makeEnvelope()] }, headerKey: readOnly },
    { body: { apiKey: live, envelopes: Array.from({ length: 11 }, () => makeEnvelope()) }, headerKey: null },
    {
      body: { apiKey: live, envelopes: [makeEnvelope(), { ...makeEnvelope(), sentAt: "yesterday" }] },
      headerKey: null,
    },
    { body: { apiKey: live, envelopes: [] }, headerKey: null },
  ];
  const answers = await Promise.all(
    cases.map(({ body, headerKey }) => pool.prepare({ body: bytes(body), headerKey, receivedAt: 1_763_700_000_000 })),
  );
  cases.forEach(({ body, headerKey }, i) => {
    const expected = prepareBatch({ body: bytes(body), headerKey, receivedAt: 1_763_700_000_000 }, inProcess);
    const answer = answers[i];
    if (expected.ok && answer.ok) {
      expect({ ...answer, lines: withoutBatchIds(answer.lines) }).toEqual({
        ...expected,
        lines: withoutBatchIds(expected.lines),
      });
    } else {
      expect(answer).toEqual(expected);
    }
  });
  expect(answers.map((a) => (a.ok ? "ok" : a.code))).toEqual([
    "ok",
    "ok",
    "bad_request",
    "schema_violation",
    "unauthorized",
    "unauthorized",
    "forbidden",
    "payload_too_large",
    "schema_violation",
    "ok",
  ]);
});

test("a body that is a view of a larger buffer is copied, not taken from its owner", async () => {
  const body = bytes({ apiKey: live, envelopes: [makeEnvelope()] });
  const shared = new Uint8Array(body.byteLength + 100);
  shared.set(body, 50);
  const answer = await pool.prepare({
    body: shared.subarray(50, 50 + body.byteLength),
    headerKey: null,
    receivedAt: 1,
  });
  expect(answer.ok).toBe(true);
  expect(shared.byteLength).toBe(body.byteLength + 100); // still attached
});

test("closing the pool fails the jobs in flight as unavailable", async () => {
  const closing = new IngestWorkers(
    1,
    { controlDbPath: ctx.paths.controlDb, maxBatch: 1000, native: false },
    silentLogger,
  );
  const job = closing.prepare({
    body: bytes({ apiKey: live, envelopes: Array.from({ length: 1000 }, () => makeEnvelope()) }),
    headerKey: null,
    receivedAt: 1,
  });
  closing.close();
  expect(await job).toMatchObject({ ok: false, code: "unavailable" });
});

test("a worker that dies fails its jobs in flight as unavailable and is replaced", async () => {
  const logged: string[] = [];
  const logger = createLogger("error", (line) => logged.push(JSON.parse(line).message));
  const fragile = new IngestWorkers(1, { controlDbPath: ctx.paths.controlDb, maxBatch: 1000, native: false }, logger);
  try {
    const body = () => bytes({ apiKey: live, envelopes: Array.from({ length: 1000 }, () => makeEnvelope()) });
    const job = fragile.prepare({ body: body(), headerKey: null, receivedAt: 1 });
    // The thread ends under the job (as a crash would): reach the one worker of this pool.
    (fragile as unknown as { slots: { worker: Worker }[] }).slots[0].worker.terminate();
    expect(await job).toMatchObject({ ok: false, code: "unavailable" });
    expect(logged).toContain("ingest worker died; replacing it");
    // While it is replaced, jobs are refused at once; then the new worker takes them.
    expect(await fragile.prepare({ body: body(), headerKey: null, receivedAt: 1 })).toMatchObject({
      ok: false,
      code: "unavailable",
    });
    await Bun.sleep(300);
    expect(await fragile.prepare({ body: body(), headerKey: null, receivedAt: 2 })).toMatchObject({
      ok: true,
      accepted: 1000,
    });
  } finally {
    fragile.close();
  }
});

test("INGEST_WORKERS: auto is one per core, at most 8; a number is taken as it is", () => {
  expect(ingestWorkerCount("auto")).toBeGreaterThanOrEqual(1);
  expect(ingestWorkerCount("auto")).toBeLessThanOrEqual(8);
  expect(ingestWorkerCount("0")).toBe(0);
  expect(ingestWorkerCount("3")).toBe(3);
});
