// The resolver against recorded mainnet answers: pending stays pending (404 `pending` with
// Retry-After), expiry needs a second look-up (in a later run), and a crash between writing the
// resolutions and committing them is redone without a duplicate row (nor a visible index entry).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { RESOLUTION_COLUMNS } from "../../../src/lake/schema";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope, randomSignature } from "../../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../../helpers/recorded-rpc";
import { ingestAndFlush, resolveUntilSettled } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

const landedFailure = recordedTransaction("18_");
const HEIGHT = 300_000_000;
const stillValid = randomSignature();
const expired = randomSignature();
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;
const clock = advancingClock();

beforeAll(async () => {
  rpc = startRecordedRpc([landedFailure], { blockHeight: HEIGHT });
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
  const program = "11111111111111111111111111111111";
  await ingestAndFlush(t, [
    makeEnvelope({ sig: landedFailure.sig, program, lastValidBlockHeight: HEIGHT + 10, sentAt: Date.now() }),
    makeEnvelope({ sig: stillValid, program, lastValidBlockHeight: HEIGHT + 100, sentAt: Date.now() }),
    makeEnvelope({ sig: expired, program, lastValidBlockHeight: HEIGHT - 5, sentAt: Date.now() }),
  ]);
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

const resolutionRows = () =>
  t.ctx.duck.all<{
    sig: string;
    outcome: string;
    drop_class: string | null;
    err_name: string | null;
    fingerprint: string | null;
  }>(
    `SELECT e.sig, r.outcome, r.drop_class, r.err_name, r.fingerprint FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true) r
     JOIN read_parquet('${t.ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true) e USING (attempt_id) ORDER BY r.outcome`,
  );

test("a crash before the commit is undone by the next run; why answers from the chain meanwhile; each attempt is resolved exactly once", async () => {
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 5 };
  await expect(
    resolvePending(t.ctx, {
      ...options,
      beforeCommit: () => {
        throw new Error("crash");
      },
    }),
  ).rejects.toThrow("crash");
  // The attempt is still open: why asks the chain (on demand) and answers as the resolver will record it.
  const onDemand = await t.get(`/v1/why/${landedFailure.sig}`);
  expect(onDemand.status).toBe(200);
  expect(onDemand.body).toMatchObject({
    outcome: "failed_onchain",
    source: "ingested",
    errName: "ResultWithNegativeLamports",
    rpcLabel: "helius",
  });
  expect((await t.get(`/v1/diagnose-drop/${landedFailure.sig}`)).body.error.code).toBe("pending");

  const summary = await resolveUntilSettled(t.ctx, options);
  expect(summary.discardedBatches).toBe(1);
  expect(summary.resolved).toEqual({ landed: 0, failed_onchain: 1, dropped: 1, preflight: 0 });
  expect(summary.stillPending).toBe(1);
  const rows = await resolutionRows();
  expect(rows.map((r) => [r.sig, r.outcome, r.drop_class])).toEqual([
    [expired, "dropped", "expired_blockhash"],
    [landedFailure.sig, "failed_onchain", null],
  ]);
  expect(rows[1].err_name).toBe("ResultWithNegativeLamports");
  expect(rows.every((r) => /^v1:[0-9a-f]{16}$/.test(r.fingerprint!))).toBe(true);
  // The files hold exactly the contract's columns: no second copy of the signature (lake version 3).
  const columns = await t.ctx.duck.all<{ column_name: string }>(
    `DESCRIBE SELECT * FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = false)`,
  );
  expect(columns.map((c) => c.column_name)).toEqual(RESOLUTION_COLUMNS.map((c) => c.name));
  expect(columns.map((c) => c.column_name)).not.toContain("sig");
  // Each row names its envelope's payer's bucket (lake version 4), as any engine computes it.
  const buckets = await t.ctx.duck.all<{ payer_bucket: number | null; expected: number }>(
    `SELECT r.payer_bucket, (md5_number_lower(e.payer) >> 48)::USMALLINT AS expected
     FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = false) r
     JOIN read_parquet('${t.ctx.paths.datasetGlob("envelopes")}', hive_partitioning = false) e USING (attempt_id)`,
  );
  expect(buckets.length).toBe(2);
  for (const row of buckets) {
    expect(row.payer_bucket).not.toBeNull();
    expect(row.payer_bucket).toBe(row.expected);
  }
});

test("why/ and diagnose-drop/ answer from the resolutions; pending is 404 with Retry-After", async () => {
  const story = await t.get(`/v1/why/${landedFailure.sig}`);
  expect(story.body).toMatchObject({
    outcome: "failed_onchain",
    source: "ingested",
    errCode: 1,
    errName: "ResultWithNegativeLamports",
    issue: { count7d: 1 },
  });
  const drop = await t.get(`/v1/diagnose-drop/${expired}`);
  expect(drop.body).toMatchObject({
    outcome: "dropped",
    dropClass: "expired_blockhash",
    provider: { rpcLabel: "helius", dropRate: 0.5, sends7d: 2 },
  });
  expect(drop.body.evidence[0]).toMatchObject({ kind: "blockhash_expired", value: 5 });
  const pending = await t.get(`/v1/why/${stillValid}`);
  expect(pending.status).toBe(404);
  expect(pending.body.error.code).toBe("pending");
  expect(Number(pending.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await t.get(`/v1/diagnose-drop/${stillValid}`)).body.error.code).toBe("pending");
});

test("a run looks up only what is due: the open attempt once it is due, nothing resolved twice", async () => {
  clock.advance(1_100); // the still-valid attempt is looked up again a second after its last look-up
  const before = rpc.requests();
  const client = createRpcClient({ url: rpc.url });
  await resolvePending(t.ctx, { rpc: client, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 5 });
  expect(client.stats().calls).toBeLessThanOrEqual(2); // block height + one status call for the pending one
  expect(rpc.requests() - before).toBeLessThanOrEqual(2);
});

test("an attempt never found whose lastValidBlockHeight the chain never reaches is dropped as unknown after a day", async () => {
  const { createContext } = await import("../../../src/context");
  const { loadConfig } = await import("../../../src/config");
  const { silentLogger } = await import("../../../src/shared/logger");
  const later = await createContext(
    loadConfig({ TXRAY_DATA_DIR: t.ctx.config.dataDir, TXRAY_CONTROL_URL: t.ctx.config.TXRAY_CONTROL_URL }),
    { logger: silentLogger, clock: () => Date.now() + 25 * 3600_000 },
  );
  const summary = await resolvePending(later, {
    rpc: createRpcClient({ url: rpc.url }),
    idls: loadIdls(later.paths.root),
    recheckDelayMs: 5,
  });
  later.close();
  expect(summary.resolved.dropped).toBe(1);
  expect(summary.stillPending).toBe(0);
  const drop = await t.get(`/v1/diagnose-drop/${stillValid}`);
  expect(drop.body).toMatchObject({ outcome: "dropped", dropClass: "unknown" });
  expect(drop.body.evidence[0].kind).toBe("not_seen");
});
