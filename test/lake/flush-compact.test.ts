// Spool → Parquet: exact counts with many concurrent batches, idempotent re-flush after a crash at
// each step, and compaction that merges parts without a reader ever seeing a row twice or not at all.
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordLakeTakenBefore } from "../../src/control";
import { compactLake } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope, makePreflightEnvelope, PROGRAMS } from "../helpers/envelopes";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

function parquetFiles(root: string): string[] {
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".parquet"));
}

// Every test runs with each writer: the native one (the default) and DuckDB (FLUSH_NATIVE=off).
for (const FLUSH_NATIVE of ["on", "off"]) {
  describe(`writer: ${FLUSH_NATIVE === "on" ? "native" : "DuckDB"}`, () => {
    test("N envelopes from many concurrent batches become exactly N rows with their values", async () => {
      t = await testServer({ FLUSH_NATIVE, INGEST_BURST: "1000000" });
      const key = t.key("acme");
      const batches = Array.from({ length: 40 }, (_, b) =>
        Array.from({ length: 25 }, (_, i) =>
          makeEnvelope({
            program: i % 2 ? PROGRAMS.token : PROGRAMS.jupiter,
            lastValidBlockHeight: b * 1000 + i,
            cuLimit: 1000 + i,
          }),
        ),
      );
      const responses = await Promise.all(batches.map((envelopes) => t!.ingest({ apiKey: key, envelopes })));
      expect(responses.every((r) => r.status === 202)).toBe(true);
      await t.server.spool!.seal();
      expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1000 });

      const [{ n, distinct_sigs, programs }] = await lakeRows(
        t.ctx,
        "count(*) AS n, count(DISTINCT sig) AS distinct_sigs, count(DISTINCT program) AS programs",
      );
      expect({ n, distinct_sigs, programs }).toEqual({ n: 1000, distinct_sigs: 1000, programs: 2 });
      const expected = new Map(batches.flat().map((e) => [e.sig, e]));
      const rows = await lakeRows(t.ctx, "sig, program, last_valid_block_height, cu_limit, payer, blockhash");
      for (const row of rows) {
        const envelope = expected.get(row.sig as string)!;
        expect(row).toEqual({
          sig: envelope.sig,
          program: envelope.program,
          last_valid_block_height: envelope.lastValidBlockHeight,
          cu_limit: envelope.cuLimit,
          payer: envelope.payer,
          blockhash: envelope.blockhash,
        });
      }
      const writers = await t.ctx.duck.all<{ created_by: string }>(
        `SELECT DISTINCT created_by FROM parquet_file_metadata('${t.ctx.paths.datasetGlob("envelopes")}')`,
      );
      // (the native writer exists where a C compiler and libzstd do: .ci/run installs them)
      expect(writers.map((w) => w.created_by.split(" ")[0])).toEqual([
        FLUSH_NATIVE === "on" && t.ctx.flushWriter ? "txray" : "DuckDB",
      ]);
    });

    test("a crash after the parts were renamed in but before the commit redoes the segment without duplicates", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      expect(
        (await t.ingest({ apiKey: key, envelopes: Array.from({ length: 30 }, () => makeEnvelope()) })).status,
      ).toBe(202);
      await t.server.spool!.seal();
      await expect(
        flushSpool({
          ...t.ctx,
          beforeCommit: () => {
            throw new Error("crash");
          },
        }),
      ).rejects.toThrow("crash");
      expect(await flushSpool(t.ctx)).toEqual({ segments: 1, rows: 30 });
      expect((await lakeRows(t.ctx, "count(*) AS n"))[0].n).toBe(30);
    });

    test("a crash after the commit but before the spool file was deleted counts nothing twice", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      expect(
        (await t.ingest({ apiKey: key, envelopes: Array.from({ length: 12 }, () => makeEnvelope()) })).status,
      ).toBe(202);
      await t.server.spool!.seal();
      const dir = t.ctx.paths.spool("node1");
      const sealed = readdirSync(dir).filter((n) => n.endsWith(".sealed"));
      const saved = join(t.ctx.paths.root, "saved-segment");
      copyFileSync(join(dir, sealed[0]), saved);
      await flushSpool(t.ctx);
      copyFileSync(saved, join(dir, sealed[0])); // as if the delete never happened
      expect(await flushSpool(t.ctx)).toEqual({ segments: 1, rows: 0 });
      expect((await lakeRows(t.ctx, "count(*) AS n"))[0].n).toBe(12);
    });

    test("compaction merges small parts; concurrent readers always see every row exactly once", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      for (let i = 0; i < 8; i++) {
        expect(
          (
            await t.ingest({
              apiKey: key,
              envelopes: [...Array.from({ length: 50 }, () => makeEnvelope()), makePreflightEnvelope()],
            })
          ).status,
        ).toBe(202);
        await t.server.spool!.seal();
        await flushSpool(t.ctx);
      }
      const envelopesRoot = t.ctx.paths.dataset("envelopes");
      expect(parquetFiles(envelopesRoot).length).toBe(8);
      const before = (await lakeRows(t.ctx, "attempt_id")).map((r) => r.attempt_id as string).sort();
      expect(before.length).toBe(408);

      let reading = true;
      const seen: number[] = [];
      const reader = (async () => {
        while (reading) {
          try {
            seen.push((await lakeRows(t!.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0].n as number);
          } catch {
            // A file listed before the swap can vanish before it is opened: the query fails, never miscounts.
          }
        }
      })();
      // The reader is reading before compaction starts (on a loaded machine its first read could
      // otherwise be the one a swap fails, leaving nothing seen).
      while (seen.length === 0) await Bun.sleep(1);
      const result = await compactLake(t.ctx, { minParts: 4 });
      reading = false;
      await reader;

      expect(result).toEqual({ partitions: 1, partsMerged: 8 });
      expect(parquetFiles(envelopesRoot).length).toBe(1);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((n) => n === 408)).toBe(true);
      const after = (await lakeRows(t.ctx, "attempt_id")).map((r) => r.attempt_id as string).sort();
      expect(after).toEqual(before);
      // The merged part is in payer order (a wallet page's reader skips row groups by their payer range).
      const [merged] = parquetFiles(envelopesRoot);
      const payers = (
        await t.ctx.duck.all<{ payer: string }>(`SELECT payer FROM read_parquet('${join(envelopesRoot, merged)}')`)
      ).map((r) => r.payer);
      expect(payers.length).toBe(408);
      expect(payers).toEqual([...payers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    test("compaction leaves parts of uncommitted segments alone", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      for (let i = 0; i < 5; i++) {
        await t.ingest({ apiKey: key, envelopes: [makeEnvelope()] });
        await t.server.spool!.seal();
        await flushSpool(t.ctx);
      }
      // A sixth segment whose flush "crashed" before commit: its part is in the lake but not committed.
      await t.ingest({ apiKey: key, envelopes: [makeEnvelope()] });
      await t.server.spool!.seal();
      await flushSpool({
        ...t.ctx,
        beforeCommit: () => {
          throw new Error("crash");
        },
      }).catch(() => {});
      expect(await compactLake(t.ctx, { minParts: 4 })).toEqual({ partitions: 1, partsMerged: 5 });
      const files = parquetFiles(t.ctx.paths.dataset("envelopes"));
      expect(files.length).toBe(2);
      // Recovery then replaces the uncommitted part; still 6 rows, none twice.
      await flushSpool(t.ctx);
      expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 6, d: 6 });
    });

    test("compaction leaves parts the tables job has not taken in alone (issue 23), unless its mark is an hour old", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      const flushOne = async () => {
        await t!.ingest({ apiKey: key, envelopes: [makeEnvelope()] });
        await t!.server.spool!.seal();
        await flushSpool(t!.ctx);
      };
      for (let i = 0; i < 4; i++) await flushOne();
      await Bun.sleep(5);
      const mark = Date.now();
      recordLakeTakenBefore(t.ctx.control, mark);
      await Bun.sleep(5);
      for (let i = 0; i < 3; i++) await flushOne();
      // The four older parts are merged; the three published after the mark are not.
      expect(await compactLake(t.ctx, { minParts: 4, now: mark + 1000 })).toEqual({ partitions: 1, partsMerged: 4 });
      expect(parquetFiles(t.ctx.paths.dataset("envelopes")).length).toBe(4);
      // An hour later the mark is stale (the tables job is not running): everything small is merged.
      await flushOne();
      expect(await compactLake(t.ctx, { minParts: 4, now: mark + 3_600_001 })).toEqual({
        partitions: 1,
        partsMerged: 5,
      });
      expect((await lakeRows(t.ctx, "count(*) AS n, count(DISTINCT attempt_id) AS d"))[0]).toEqual({ n: 8, d: 8 });
    });

    test("several sealed segments flush in one pass: one part per partition, each segment recorded with its own rows", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const key = t.key("acme");
      const sizes = [5, 7, 11];
      for (const size of sizes) {
        expect(
          (await t.ingest({ apiKey: key, envelopes: Array.from({ length: size }, () => makeEnvelope()) })).status,
        ).toBe(202);
        await t.server.spool!.seal();
      }
      expect(await flushSpool(t.ctx)).toEqual({ segments: 3, rows: 23 });
      expect(parquetFiles(t.ctx.paths.dataset("envelopes")).length).toBe(1);
      const recorded = t.ctx.control
        .query<{ segment: string; rows: number }, []>("SELECT segment, rows FROM lake_segments ORDER BY segment")
        .all();
      expect(recorded.map((r) => r.rows)).toEqual(sizes);
      const perSegment = await t.ctx.duck.all<{ spool_segment: string; n: number }>(
        `SELECT spool_segment, count(*) AS n FROM read_parquet('${t.ctx.paths.datasetGlob("envelopes")}') GROUP BY ALL ORDER BY spool_segment`,
      );
      expect(perSegment.map((r) => [r.spool_segment, r.n])).toEqual(recorded.map((r) => [r.segment, r.rows]));
    });

    test("the largest envelope the schema allows (200 log lines of 2,048 escaped characters) flushes", async () => {
      t = await testServer({ FLUSH_NATIVE, INGEST_BURST: "1000000", INGEST_MAX_BODY_BYTES: "8000000" });
      const key = t.key("acme");
      const logs = Array.from({ length: 200 }, (_, i) => `${i}:${"\u0001".repeat(2040)}`);
      const envelope = makePreflightEnvelope({ preflightError: "x".repeat(8192), simulationLogs: logs });
      expect((await t.ingest({ apiKey: key, envelopes: [envelope] })).status).toBe(202);
      await t.server.spool!.seal();
      expect(await flushSpool(t.ctx)).toMatchObject({ rows: 1 });
      const [row] = await lakeRows(t.ctx, "simulation_logs, preflight_error");
      expect(row.simulation_logs).toEqual(logs);
      expect(row.preflight_error).toBe(envelope.preflightError);
    });

    test("segments written by the previous spool format (NDJSON, v1) still flush after an upgrade", async () => {
      t = await testServer({ FLUSH_NATIVE });
      const dir = t.ctx.paths.spool("node0");
      mkdirSync(dir, { recursive: true });
      const envelope = makeEnvelope({ cuLimit: 5, walletAdapter: "Backpack" });
      const line = JSON.stringify({
        accountId: "acc_old",
        receivedAt: 1_763_700_000_000,
        attemptId: "0190-old-0",
        ...envelope,
      });
      writeFileSync(join(dir, "node0-1763700000000-aaaaaa.sealed"), `${line}\n`);
      expect(await flushSpool(t.ctx)).toEqual({ segments: 1, rows: 1 });
      const [row] = await lakeRows(
        t.ctx,
        "attempt_id, account_id, sig, wallet_adapter, cu_limit, spool_segment, day::VARCHAR AS day",
      );
      expect(row).toEqual({
        attempt_id: "0190-old-0",
        account_id: "acc_old",
        sig: envelope.sig,
        wallet_adapter: "Backpack",
        cu_limit: 5,
        spool_segment: "node0-1763700000000-aaaaaa",
        day: "2025-11-21",
      });
    });
  });
}
