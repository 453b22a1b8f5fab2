// TXRAY_RETENTION_DAYS: the retention job removes lake partitions older than the period and the
// control rows about them, the serving answers forget those days, readers querying meanwhile keep
// getting answers, a running tables build is waited for, removed partitions leave the lake whole
// (into data/retired) and are deleted after the grace period; unset, 90 days are kept; `off`, everything.

import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { readPointer } from "../../src/analytics/serving/pointer";
import { buildServingTables } from "../../src/analytics/tables/build";
import { ConfigError, loadConfig } from "../../src/config";
import {
  commitResolutionBatch,
  createAccountKey,
  recordResolutionBatch,
  whenLeaseFree,
  withLease,
} from "../../src/control";
import { jobByName, schedule } from "../../src/jobs/registry";
import { retentionJob } from "../../src/jobs/retention";
import { runJob } from "../../src/jobs/run";
import { applyRetention, cutoffDay, retiredRoot } from "../../src/ops/retention";
import { type RunningServer, startServer } from "../../src/server";
import { untilVersion } from "../analytics/support";
import { testContext } from "../helpers/context";
import { type DirectoryFiles, readDirectory } from "../helpers/directory-files";

const END_MS = 1_763_700_000_000;
const DAY = 86_400_000;
type Ctx = Awaited<ReturnType<typeof testContext>>;
const open: { ctx: Ctx; server?: RunningServer }[] = [];
afterEach(async () => {
  for (const { ctx, server } of open.splice(0)) {
    await server?.stop();
    ctx.dispose();
  }
});

/** The lake every test starts from: 4,000 envelopes over 30 days (a fixed seed), its serving tables built. */
async function generateInto(ctx: Ctx): Promise<string[]> {
  const a = createAccountKey(ctx.control, "ret-a", "read", END_MS);
  const generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 4000,
    programs: 2,
    days: 30,
    seed: 5,
    endMs: END_MS,
    accounts: [a.record.accountId, "acc_other"],
    control: ctx.control,
    threads: 1,
  });
  await buildServingTables(ctx);
  return generated.programs;
}

/**
 * Generated once per test process and copied for each test; with the control plane on PostgreSQL
 * (TXRAY_TEST_POSTGRES_URL) its rows are not in the data directory, so each test generates its own.
 */
let generatedOnce: Promise<{ files: DirectoryFiles; programs: string[] }> | null = null;
async function generateFiles() {
  const ctx = await testContext({}, { clock: () => END_MS });
  let programs: string[];
  try {
    programs = await generateInto(ctx);
  } finally {
    ctx.close();
  }
  const files = readDirectory(ctx.config.dataDir);
  rmSync(ctx.config.dataDir, { recursive: true, force: true });
  return { files, programs };
}

async function world(env: Record<string, string> = {}) {
  const settings = { PUBLIC_RATE_PER_MINUTE: "1000000", ...env };
  let ctx: Ctx;
  let programs: string[];
  if (process.env.TXRAY_TEST_POSTGRES_URL) {
    ctx = await testContext(settings, { clock: () => END_MS });
    programs = await generateInto(ctx);
  } else {
    generatedOnce ??= generateFiles();
    const lake = await generatedOnce;
    ctx = await testContext(settings, { files: lake.files, clock: () => END_MS });
    programs = lake.programs;
  }
  const server = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
  open.push({ ctx, server });
  return { ctx, server, generated: { programs } };
}

const days = (ctx: Ctx, dataset: string) => {
  const root = ctx.paths.dataset(dataset as "envelopes");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((program) => readdirSync(join(root, program)).map((day) => day.slice(4)));
};
const lakeCount = async (ctx: Ctx) =>
  Number(
    (
      await ctx.duck.all<{ n: number }>(
        `SELECT count(*)::BIGINT AS n FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}')`,
      )
    )[0].n,
  );
const get = async (server: RunningServer, path: string) => {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: (await response.json()) as any };
};

test("removes partitions and control rows older than the period; the answers forget those days", async () => {
  const { ctx, server, generated } = await world({ TXRAY_RETENTION_DAYS: "10" });
  const program = generated.programs[0];
  const cutoff = cutoffDay(END_MS, 10);
  expect(days(ctx, "envelopes").some((day) => day < cutoff)).toBe(true);
  const before = await lakeCount(ctx);
  const baselineBefore = (await get(server, `/v1/baseline/${program}?window=30d`)).body.rates.attempts;
  // Hourly counts the resolver committed, 20 days and 1 day before the end.
  const hour = (at: number) => Math.floor(at / 3_600_000);
  recordResolutionBatch(ctx.control, "r-hours", [], END_MS);
  commitResolutionBatch(
    ctx.control,
    "r-hours",
    [
      { rpcHash: "old", hour: hour(END_MS - 20 * DAY), sends: 1, dropped: 0 },
      { rpcHash: "new", hour: hour(END_MS - DAY), sends: 1, dropped: 0 },
    ],
    [
      { fingerprint: "v1:old", hour: hour(END_MS - 20 * DAY), attempts: 1, firstSeen: END_MS - 20 * DAY },
      { fingerprint: "v1:new", hour: hour(END_MS - DAY), attempts: 1, firstSeen: END_MS - DAY },
    ],
  );
  // A stray directory that is not a partition is never touched.
  mkdirSync(join(ctx.paths.dataset("envelopes"), "program=not-a-program", "day=2000-01-01"), { recursive: true });

  const outcome = await runJob(ctx, retentionJob);
  expect(outcome.ok).toBe(true);
  const details = outcome.details as any;
  expect(details.cutoffDay).toBe(cutoff);
  expect(details.partitionsRemoved).toBeGreaterThan(0);
  expect(details.tablesRebuilt).toBe(true);

  for (const dataset of ["envelopes", "resolutions"])
    expect(days(ctx, dataset).filter((day) => day < cutoff && day !== "2000-01-01")).toEqual([]);
  expect(existsSync(join(ctx.paths.dataset("envelopes"), "program=not-a-program", "day=2000-01-01"))).toBe(true);
  const after = await lakeCount(ctx);
  expect(after).toBe(before - details.envelopesRemoved);
  expect(after).toBeGreaterThan(0);
  expect(ctx.control.query("SELECT rpc_hash FROM provider_hours ORDER BY rpc_hash").all()).toEqual([
    { rpc_hash: "new" },
  ]);
  expect(ctx.control.query("SELECT fingerprint FROM issue_hours ORDER BY fingerprint").all()).toEqual([
    { fingerprint: "v1:new" },
  ]);

  await untilVersion(ctx, readPointer(ctx.paths)!.version); // readers switch within 250 ms
  // Serving answers: fewer attempts over 30 days, no trend day before the cutoff, no wallet item before it.
  const baselineAfter = (await get(server, `/v1/baseline/${program}?window=30d`)).body.rates.attempts;
  expect(baselineAfter).toBeGreaterThan(0);
  expect(baselineAfter).toBeLessThan(baselineBefore);
  const cu = await get(server, `/v1/cu-headroom/${program}?window=30d`);
  for (const instruction of cu.body.instructions)
    for (const point of instruction.trend) expect(point.day >= cutoff).toBe(true);

  // Retired, not yet deleted; deleted by a run after the grace period.
  const retired = readdirSync(retiredRoot(ctx.paths));
  expect(retired.length).toBe(1);
  expect(readdirSync(join(retiredRoot(ctx.paths), retired[0]))).toEqual(expect.arrayContaining(["envelopes"]));
  const second = await applyRetention(ctx, { days: 10, graceMs: 0 });
  expect(second).toMatchObject({ partitionsRemoved: 0, purgedRetired: 1 });
  expect(readdirSync(retiredRoot(ctx.paths))).toEqual([]);
}, 60_000);

test("readers querying while retention runs keep getting answers", async () => {
  const { ctx, server, generated } = await world({ TXRAY_RETENTION_DAYS: "5" });
  let stop = false;
  const statuses = new Map<number, number>();
  const reader = (async () => {
    for (let i = 0; !stop; i++) {
      const program = generated.programs[i % 2];
      const route = ["baseline", "top-issues", "cu-headroom", "provider-report"][i % 4];
      const { status } = await get(server, `/v1/${route}/${program}?window=30d${i % 3 === 0 ? "&scope=public" : ""}`);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  })();
  const outcome = await runJob(ctx, retentionJob);
  stop = true;
  await reader;
  expect(outcome.ok).toBe(true);
  expect((outcome.details as any).partitionsRemoved).toBeGreaterThan(0);
  expect([...statuses.keys()]).toEqual([200]);
}, 60_000);

test("waits for a running tables build (its job lease) before removing anything", async () => {
  const { ctx } = await world();
  const cutoff = cutoffDay(END_MS, 7);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let leaseTaken!: () => void;
  const taken = new Promise<void>((resolve) => (leaseTaken = resolve));
  const build = withLease(ctx.control, "job:tables", async () => {
    leaseTaken();
    await held;
  });
  await taken;
  const retention = applyRetention(ctx, { days: 7 });
  await Bun.sleep(300);
  expect(days(ctx, "envelopes").some((day) => day < cutoff)).toBe(true); // still there: the build holds its lease
  release();
  await build;
  expect(await retention).toMatchObject({ cutoffDay: cutoff });
  expect(days(ctx, "envelopes").some((day) => day < cutoff)).toBe(false);
}, 60_000);

test("retention and a compaction waiting to swap never wait on each other (the leases in one order)", async () => {
  const { ctx } = await world();
  // A compaction run as src/jobs/compact.ts makes it: its job lease held, its swaps waiting for the
  // tables lease. Retention, started meanwhile, must let those swaps through, then run itself.
  let swapped = false;
  let leaseTaken!: () => void;
  const taken = new Promise<void>((resolve) => (leaseTaken = resolve));
  const compaction = withLease(ctx.control, "job:compact", async () => {
    leaseTaken();
    await Bun.sleep(100); // merging, while retention starts
    const swap = await whenLeaseFree(ctx.control, "job:tables", () => (swapped = true), { waitMs: 3_000, pollMs: 20 });
    return swap.ran;
  });
  await taken;
  const retention = applyRetention(ctx, { days: 7 });
  expect(await compaction).toBe(true);
  expect(swapped).toBe(true);
  expect(await retention).toMatchObject({ cutoffDay: cutoffDay(END_MS, 7) });
}, 60_000);

test("unset is 90 days, `off` keeps everything; the job is registered and scheduled hourly", async () => {
  expect(loadConfig({}).TXRAY_RETENTION_DAYS).toBe(90);
  expect(() => loadConfig({ TXRAY_RETENTION_DAYS: "0" })).toThrow(ConfigError);
  const { ctx } = await world({ TXRAY_RETENTION_DAYS: "off" });
  const before = await lakeCount(ctx);
  const outcome = await runJob(ctx, retentionJob);
  expect(outcome).toMatchObject({ ok: true, details: { skipped: expect.stringContaining("TXRAY_RETENTION_DAYS") } });
  expect(await lakeCount(ctx)).toBe(before);
  expect(jobByName("retention")).toBe(retentionJob);
  expect(
    (schedule(ctx.config).find((entry) => entry.job === retentionJob) as { intervalMs?: number } | undefined)
      ?.intervalMs,
  ).toBe(3_600_000);
  // Anything in data/retired from an earlier run is still purged after its grace period.
  mkdirSync(join(retiredRoot(ctx.paths), `${END_MS - 3_600_000}-0191f0a0-0000-7000-8000-000000000000`), {
    recursive: true,
  });
  writeFileSync(join(retiredRoot(ctx.paths), `${END_MS - 3_600_000}-0191f0a0-0000-7000-8000-000000000000`, "x"), "x");
  expect(await applyRetention(ctx, { days: undefined })).toMatchObject({ purgedRetired: 1 });
}, 60_000);
