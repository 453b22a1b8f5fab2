// Found by `bun run chaos`: compaction wrote the partition's `program` and `day` (as DATE) into the
// merged file, and from then on every tables build failed with a DuckDB internal error. The merged
// part must hold exactly the columns of the parts it replaces, and the tables keep building.
import { expect, test } from "bun:test";
import { buildServingTables } from "../../src/analytics/tables/build";
import { loadIdls } from "../../src/chain/idl";
import { resolveUntilSettled } from "../helpers/resolve";
import { createRpcClient } from "../../src/chain/rpc";
import { compactLake } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope, makePreflightEnvelope } from "../helpers/envelopes";
import { startFakeRpc } from "../helpers/fake-rpc";
import { testServer } from "../helpers/server";

test("after compaction the merged parts have the flushed parts' columns and the serving tables still build", async () => {
  const rpc = await startFakeRpc();
  const t = await testServer();
  try {
    const key = t.key("acme");
    const client = createRpcClient({ url: rpc.url });
    for (let round = 0; round < 6; round++) {
      const envelopes = Array.from({ length: 10 }, () => (round % 2 ? makePreflightEnvelope() : makeEnvelope({ lastValidBlockHeight: 5 })));
      expect((await t.ingest({ apiKey: key, envelopes })).status).toBe(202);
      await t.server.spool!.seal();
      await flushSpool(t.ctx);
      await resolveUntilSettled(t.ctx, { rpc: client, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 1 });
    }
    const columns = async (dataset: "envelopes" | "resolutions") =>
      (await t.ctx.duck.all<{ file_name: string; name: string }>(`SELECT file_name, name FROM parquet_schema('${t.ctx.paths.datasetGlob(dataset)}') WHERE name != 'duckdb_schema'`))
        .reduce((byFile, row) => byFile.set(row.file_name.split("/").pop()!.startsWith("part-c-") ? "merged" : "flushed", [...(byFile.get(row.file_name.split("/").pop()!.startsWith("part-c-") ? "merged" : "flushed") ?? []), row.name]), new Map<string, string[]>());
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
