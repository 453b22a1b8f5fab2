// Regression (issue 23): a tables run after new data arrived ran out of DuckDB memory on some lakes,
// every retry, and the dashboards stayed frozen at the last good version. Reproduced with 2M
// generated envelopes and ~10,000 new ones under the default 1 GB ceiling; here the same lake
// shape at a tenth of the size under a proportionally lower ceiling (200k envelopes, 150 MB:
// today's code fails it the same way, in the `attempts` step), so it runs in seconds.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import { baseline } from "../../src/analytics/queries";
import { buildServingTables } from "../../src/analytics/tables/build";
import { testContext } from "../helpers/context";
import { END_MS, untilVersion } from "./support";

const HEAVY_MS = 240_000;
const MINUTE = 60_000;

let ctx: Awaited<ReturnType<typeof testContext>>;
let lake: GenerateResult;
beforeAll(async () => {
  ctx = await testContext({ DUCKDB_MEMORY_LIMIT: "150MB" });
  (ctx as { clock: () => number }).clock = () => END_MS;
  lake = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 200_000,
    programs: 20,
    days: 30,
    seed: 1,
    endMs: END_MS - 10 * MINUTE,
    threads: 2,
  });
}, HEAVY_MS);
afterAll(() => {
  ctx.dispose();
});

test(
  "a refresh after new data arrived finishes under the memory ceiling and includes the new attempts",
  async () => {
    const first = await buildServingTables(ctx, { full: true });
    await untilVersion(ctx, first.version);
    const program = lake.programs[0];
    const before = await baseline(ctx, { program, window: "1d", accountId: null });
    // ~10,000 envelopes with their resolutions received in the last ten minutes, on the same programs.
    const added = await generateLake({
      dataDir: ctx.config.dataDir,
      envelopes: 10_000,
      programs: 20,
      days: 10 / 1440,
      seed: 1,
      endMs: END_MS,
      threads: 2,
      append: { variant: 1 },
    });
    const [{ n }] = await ctx.duck.all<{ n: number }>(
      `SELECT count(*) AS n FROM read_parquet('${ctx.paths.lake}/envelopes/program=${program}/**/part-gen1v1-*.parquet')`,
    );
    expect(added.envelopes).toBe(10_000);
    expect(n).toBeGreaterThan(0);

    const refreshed = await buildServingTables(ctx);
    await untilVersion(ctx, refreshed.version);
    const after = await baseline(ctx, { program, window: "1d", accountId: null });
    expect(after.rates.attempts + after.pending).toBe(before.rates.attempts + before.pending + n);
  },
  HEAVY_MS,
);
