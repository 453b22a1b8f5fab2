// Found by `bun run chaos`: compaction wrote the partition's `program` and `day` (as DATE) into the
// merged file, and from then on every tables build failed with a DuckDB internal error. The merged
// part must hold exactly the columns of the parts it replaces, and the tables keep building.
import { expect, test } from "bun:test";
import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { buildServingTables } from "../../src/analytics/tables/build";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { compactLake } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope, makePreflightEnvelope, randomAddress } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";
import { resolveUntilSettled } from "../helpers/resolve";
import { testServer } from "../helpers/server";

test("after compaction the merged parts have the flushed parts' columns and the serving tables still build", async () => {
  const rpc = await startFakeRpc();
  const t = await testServer();
  try {
    const key = t.key("acme");
    const client = createRpcClient({ url: rpc.url });
    for (let round = 0; round < 6; round++) {
      const envelopes = Array.from({ length: 10 }, () =>
        round % 2 ? makePreflightEnvelope() : makeEnvelope({ lastValidBlockHeight: 5 }),
      );
      expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
      await t.server.spool!.seal();
      await flushSpool(t.ctx);
      await resolveUntilSettled(t.ctx, { rpc: client, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 1 });
    }
    const columns = async (dataset: "envelopes" | "resolutions") =>
      (
        await t.ctx.duck.all<{ file_name: string; name: string }>(
          `SELECT file_name, name FROM parquet_schema('${t.ctx.paths.datasetGlob(dataset)}') WHERE name != 'duckdb_schema'`,
        )
      ).reduce(
        (byFile, row) =>
          byFile.set(row.file_name.split("/").pop()!.startsWith("part-c-") ? "merged" : "flushed", [
            ...(byFile.get(row.file_name.split("/").pop()!.startsWith("part-c-") ? "merged" : "flushed") ?? []),
            row.name,
          ]),
        new Map<string, string[]>(),
      );
    const before = { envelopes: await columns("envelopes"), resolutions: await columns("resolutions") };
    expect((await compactLake(t.ctx)).partsMerged).toBeGreaterThanOrEqual(12);
    for (const dataset of ["envelopes", "resolutions"] as const) {
      const after = await columns(dataset);
      expect(new Set(after.get("merged"))).toEqual(new Set(before[dataset].get("flushed")));
    }
    expect((await buildServingTables(t.ctx)).attempts).toBe(60);
  } finally {
    await t.stop();
    await rpc.stop();
  }
}, 60_000);

/** Six rounds of ten envelopes (random payers) flushed and resolved; the resolution parts' paths. */
async function resolvedRounds(t: Awaited<ReturnType<typeof testServer>>, rpcUrl: string): Promise<string[]> {
  const key = t.key("acme");
  const client = createRpcClient({ url: rpcUrl });
  for (let round = 0; round < 6; round++) {
    const envelopes = Array.from({ length: 10 }, () =>
      round % 2
        ? makePreflightEnvelope({ payer: randomAddress() })
        : makeEnvelope({ lastValidBlockHeight: 5, payer: randomAddress() }),
    );
    expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    await resolveUntilSettled(t.ctx, { rpc: client, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 1 });
  }
  return resolutionParts(t);
}

const resolutionParts = (t: Awaited<ReturnType<typeof testServer>>) =>
  readdirSync(t.ctx.paths.dataset("resolutions"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".parquet"))
    .map((name) => join(t.ctx.paths.dataset("resolutions"), name));

/** Rewrites a part under its name as lake version 3 wrote it: without payer_bucket. */
async function asVersion3(t: Awaited<ReturnType<typeof testServer>>, part: string): Promise<void> {
  await t.ctx.duck.run(
    `COPY (SELECT * EXCLUDE (payer_bucket) FROM read_parquet('${part}')) TO '${part}.v3' (FORMAT parquet)`,
  );
  renameSync(`${part}.v3`, part);
}

test("merged resolutions are sorted by payer bucket, then attempt id; the rows of a version 3 part keep no bucket", async () => {
  const rpc = await startFakeRpc();
  const t = await testServer();
  try {
    const parts = await resolvedRounds(t, rpc.url);
    expect(parts.length).toBe(6);
    await asVersion3(t, parts[0]);
    const oldRows = (await t.ctx.duck.all<{ n: number }>(`SELECT count(*) AS n FROM read_parquet('${parts[0]}')`))[0].n;
    expect(oldRows).toBeGreaterThan(0);
    expect((await compactLake(t.ctx)).partsMerged).toBeGreaterThanOrEqual(6);
    const [merged, ...others] = resolutionParts(t);
    expect(others).toEqual([]);
    const rows = await t.ctx.duck.all<{ payer_bucket: number | null; attempt_id: string }>(
      `SELECT payer_bucket, attempt_id FROM read_parquet('${merged}')`,
    );
    expect(rows.length).toBe(60);
    expect(rows.filter((r) => r.payer_bucket === null).length).toBe(oldRows);
    const order = (r: { payer_bucket: number | null; attempt_id: string }) =>
      `${r.payer_bucket === null ? "~" : String(r.payer_bucket).padStart(5, "0")} ${r.attempt_id}`;
    expect(rows.map(order)).toEqual(rows.map(order).sort());
    expect(new Set(rows.filter((r) => r.payer_bucket !== null).map((r) => r.payer_bucket)).size).toBeGreaterThan(10);
  } finally {
    await t.stop();
    await rpc.stop();
  }
}, 60_000);

test("a merge of parts that all predate payer_bucket (lake version 3) leaves the column out, by attempt id", async () => {
  const rpc = await startFakeRpc();
  const t = await testServer();
  try {
    for (const part of await resolvedRounds(t, rpc.url)) await asVersion3(t, part);
    expect((await compactLake(t.ctx)).partsMerged).toBeGreaterThanOrEqual(6);
    const [merged, ...others] = resolutionParts(t);
    expect(others).toEqual([]);
    const columns = (await t.ctx.duck.all<{ name: string }>(`SELECT name FROM parquet_schema('${merged}')`)).map(
      (c) => c.name,
    );
    expect(columns).toContain("attempt_id");
    expect(columns).not.toContain("payer_bucket");
    const ids = (await t.ctx.duck.all<{ attempt_id: string }>(`SELECT attempt_id FROM read_parquet('${merged}')`)).map(
      (r) => r.attempt_id,
    );
    expect(ids.length).toBe(60);
    expect(ids).toEqual([...ids].sort());
  } finally {
    await t.stop();
    await rpc.stop();
  }
}, 60_000);
