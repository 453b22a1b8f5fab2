// The tables job's contracts: a new version is built in a new file and the pointer switched;
// readers in this process pick it up without a restart and old files go; a refresh reads only the
// lake parts it had not read (a new resolution part: that part); generated fingerprints equal the
// resolver's. (Incremental against full rebuild, figure by figure: refresh.test.ts.)

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { baseline } from "../../src/analytics/queries";
import { readPointer } from "../../src/analytics/serving/pointer";
import { servingTables } from "../../src/analytics/serving/reader";
import { buildServingTables } from "../../src/analytics/tables/build";
import { issueFingerprint } from "../../src/chain/decode/fingerprint";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { ENVELOPE_COLUMNS, RESOLUTION_COLUMNS } from "../../src/lake/schema";
import { DAY, END_MS, makeWorld, untilVersion, type World } from "./support";

// Every build here is a full DuckDB build of an 8,000-attempt lake (~30 statements plus the side
// files): about 1 s alone, but 8-10 s each on a 2-core machine at load 15, which is where the
// whole suite runs. The world takes one build; the swap tests take three and two. Their time
// limits are sized for that load (bun's 5 s default is not); nothing here asserts on time.
const HEAVY_MS = 120_000;

let world: World;
beforeAll(async () => {
  world = await makeWorld(8_000);
}, HEAVY_MS);
afterAll(async () => await world?.stop());

describe("swap", () => {
  test(
    "a rebuild switches readers to a new file without restart; old files are removed",
    async () => {
      const program = world.generated.programs[1];
      const before = await servingTables(world.ctx);
      const first = await baseline(world.ctx, { program, window: "30d", accountId: null });
      const outcome = await runJob(world.ctx, tablesJob);
      expect(outcome.ok).toBe(true);
      const after = await untilVersion(world.ctx, before.version + 1);
      expect(after.version).toBe(before.version + 1);
      expect(await baseline(world.ctx, { program, window: "30d", accountId: null })).toEqual(first);
      await buildServingTables(world.ctx);
      await buildServingTables(world.ctx);
      const files = readdirSync(world.ctx.paths.tables).filter((n) => n.endsWith(".duckdb"));
      const current = readPointer(world.ctx.paths)!;
      expect(files.sort()).toEqual(
        [`serving-${current.version - 1}.duckdb`, `serving-${current.version}.duckdb`].sort(),
      );
      expect((await untilVersion(world.ctx, current.version)).version).toBe(current.version);
      // The file this process read before is gone, and reading still works.
      expect(existsSync(join(world.ctx.paths.tables, `serving-${before.version}.duckdb`))).toBe(false);
      expect((await baseline(world.ctx, { program, window: "7d", accountId: null })).rates.attempts).toBeGreaterThan(0);
    },
    HEAVY_MS,
  );

  test(
    "incremental: nothing new reads nothing; a new resolution part is read alone and resolves its attempt",
    async () => {
      const unchanged = await buildServingTables(world.ctx);
      expect(unchanged).toMatchObject({ full: false, partsRead: 0, attempts: 0, resolutions: 0 });
      // Resolve a pending attempt: write one more resolution part for its day.
      const pending = world.rows.find((r) => r.outcome === null && r.kind === "send")!;
      const day = new Date(pending.received_at).toISOString().slice(0, 10);
      const dir = join(world.ctx.paths.lake, "resolutions", `program=${pending.program}`, `day=${day}`);
      await world.ctx.duck.run(
        `COPY (SELECT * REPLACE ('${pending.attempt_id}' AS attempt_id, 'landed' AS outcome, NULL::VARCHAR AS fingerprint)
             FROM read_parquet('${dir}/*.parquet') LIMIT 1) TO '${dir}/part-test-0.parquet' (FORMAT parquet)`,
      );
      const before = await baseline(world.ctx, { program: pending.program, window: "30d", accountId: null });
      const rebuilt = await buildServingTables(world.ctx);
      expect(rebuilt).toMatchObject({ full: false, partsRead: 1, attempts: 0, resolutions: 1 });
      await untilVersion(world.ctx, rebuilt.version);
      const after = await baseline(world.ctx, { program: pending.program, window: "30d", accountId: null });
      expect(after.rates.landed).toBe(before.rates.landed + 1);
      expect(after.pending).toBe(before.pending - 1);
    },
    HEAVY_MS,
  );

  test(
    "overlapping builds in one process each get their own version and file",
    async () => {
      // Before builds were serialised, both picked the same next version and wrote one file from two DuckDB instances.
      const [one, two] = await Promise.all([buildServingTables(world.ctx), buildServingTables(world.ctx)]);
      expect(two.version).toBe(one.version + 1);
      expect(readPointer(world.ctx.paths)!.version).toBe(two.version);
      const files = readdirSync(world.ctx.paths.tables)
        .filter((n) => n.endsWith(".duckdb"))
        .sort();
      expect(files).toEqual([`serving-${one.version}.duckdb`, `serving-${two.version}.duckdb`].sort());
      expect((await untilVersion(world.ctx, two.version)).version).toBe(two.version);
      const program = world.generated.programs[1];
      expect((await baseline(world.ctx, { program, window: "30d", accountId: null })).rates.attempts).toBeGreaterThan(
        0,
      );
    },
    HEAVY_MS,
  );
});

describe("generator", () => {
  test("writes the lake contract's columns and the resolver's fingerprints", async () => {
    const lake = world.ctx.paths.lake;
    const envelopeColumns = await world.ctx.duck.all<{ column_name: string }>(
      `DESCRIBE SELECT * FROM read_parquet('${lake}/envelopes/**/*.parquet', hive_partitioning = false)`,
    );
    expect(envelopeColumns.map((c) => c.column_name)).toEqual(ENVELOPE_COLUMNS.map((c) => c.name));
    const resolutionColumns = await world.ctx.duck.all<{ column_name: string }>(
      `DESCRIBE SELECT * FROM read_parquet('${lake}/resolutions/**/*.parquet', hive_partitioning = false)`,
    );
    expect(resolutionColumns.map((c) => c.column_name)).toEqual(RESOLUTION_COLUMNS.map((c) => c.name));
    const failures = world.rows.filter((r) => r.outcome !== "landed" && r.outcome !== null && r.fingerprint !== null);
    const keys = new Map(
      (
        await world.ctx.duck.all<{ attempt_id: string; error_key: string | null }>(
          `SELECT attempt_id, error_key FROM read_parquet('${lake}/resolutions/**/*.parquet')`,
        )
      ).map((row) => [row.attempt_id, row.error_key]),
    );
    const outcomes = new Set<string>();
    for (const r of failures) {
      outcomes.add(r.outcome!);
      const errorKey = r.outcome === "dropped" ? r.drop_class : (r.err_code ?? keys.get(r.attempt_id) ?? null);
      expect(r.fingerprint).toBe(
        issueFingerprint({
          program: r.program,
          outcome: r.outcome!,
          failingProgram: r.failing_program,
          instruction: r.instruction,
          key: errorKey,
        }),
      );
    }
    expect([...outcomes].sort()).toEqual(["dropped", "failed_onchain", "preflight"]);
    expect(world.rows.length).toBe(8_000);
    expect(Math.max(...world.rows.map((r) => r.received_at))).toBeLessThanOrEqual(END_MS);
    expect(Math.min(...world.rows.map((r) => r.received_at))).toBeGreaterThanOrEqual(END_MS - 30 * DAY);
  });
});
