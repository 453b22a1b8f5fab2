// Benchmark: one steady-state refresh of the serving tables after 5 minutes of new data at 100
// attempts/s (30,000 envelopes with their resolutions, some still pending), on two generated lakes
// of 30 days and 20 programs: TXRAY_BENCH_SMALL (default 5,000,000) and TXRAY_BENCH_LARGE
// (default 20,000,000) attempts. Each lake and its first (full) build are generated once and cached
// under $TMPDIR/txray-bench/refresh-<n>; a run works on a copy (the lake's parts hard-linked, the
// tables job's state copied), so it always starts from the same state.
// Last line: { smallLakeAttempts, largeLakeAttempts, smallRefreshSeconds, largeRefreshSeconds,
// ratio, bytesPerAttempt (large lake: lake + serving on disk ÷ attempts), ... } — targets: each
// refresh ≤ 10 s, the large one ≤ 1.5 × the small one, bytes per attempt ≤ 200.

import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../devkit/generate";
import { type BuildResult, buildServingTables } from "../src/analytics/tables/build";
import { STATE_SCHEMA } from "../src/analytics/tables/versions";
import { loadConfig } from "../src/config";
import { type Context, createContext } from "../src/context";
import { LAKE_VERSION } from "../src/lake/schema";
import { silentLogger } from "../src/shared/logger";

export const END_MS = 1_763_700_000_000;
const NEW_MS = 5 * 60_000;
const NEW_ATTEMPTS = 30_000;
const PROGRAMS = 20;

export async function contextAt(dataDir: string, clock: number): Promise<Context> {
  return await createContext(
    loadConfig({ TXRAY_DATA_DIR: dataDir, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" }),
    { logger: silentLogger, clock: () => clock },
  );
}

/** The cached lake of `attempts` and its first build (generated and built the first time). */
export async function cachedLake(
  attempts: number,
): Promise<{ dir: string; generated: { seconds: number; buildSeconds: number } }> {
  const dir = join(tmpdir(), "txray-bench", `refresh-${attempts}`);
  const marker = join(dir, "generated.json");
  // A lake generated under another lake contract, or built into another tables state, is stale.
  const cacheKey = { lakeVersion: LAKE_VERSION, stateSchema: STATE_SCHEMA };
  const cached = existsSync(marker) ? JSON.parse(readFileSync(marker, "utf8")) : null;
  if (cached?.lakeVersion !== cacheKey.lakeVersion || cached?.stateSchema !== cacheKey.stateSchema) {
    let generated = { seconds: Number(cached?.seconds) };
    if (cached?.lakeVersion === cacheKey.lakeVersion) {
      // The same lake (the generator is deterministic): only the tables job's state is rebuilt.
      rmSync(join(dir, "tables"), { recursive: true, force: true });
      console.error(`lake of ${attempts} attempts kept; first (full) build of state schema ${STATE_SCHEMA}…`);
    } else {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      console.error(`generating ${attempts} attempts…`);
      generated = await generateLake({
        dataDir: dir,
        envelopes: attempts,
        programs: PROGRAMS,
        days: 30,
        seed: 1,
        endMs: END_MS,
        force: true,
        chunkRows: 1_000_000,
      });
      console.error(`generated in ${generated.seconds.toFixed(0)} s; first (full) build…`);
    }
    const ctx = await contextAt(dir, END_MS);
    const build = await buildServingTables(ctx, { full: true });
    ctx.close();
    console.error(`built in ${build.seconds.toFixed(0)} s`);
    writeFileSync(marker, JSON.stringify({ ...cacheKey, seconds: generated.seconds, buildSeconds: build.seconds }));
  }
  return { dir, generated: JSON.parse(readFileSync(marker, "utf8")) };
}

/** A working copy: immutable files hard-linked, the tables job's state (changed in place) copied and synced. */
export function workingCopy(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  const walk = (source: string, target: string) => {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source, { withFileTypes: true })) {
      const s = join(source, entry.name);
      const t = join(target, entry.name);
      if (entry.isDirectory()) walk(s, t);
      else if (
        s.includes(`${join("tables", "state")}`) ||
        entry.name.startsWith("wallets-") ||
        entry.name === "control.sqlite" ||
        entry.name.endsWith(".json")
      ) {
        cpSync(s, t);
        // On disk before the refresh: its first checkpoint would otherwise flush the whole copy
        // (a state that has been running has nothing of it left to flush).
        const fd = openSync(t, "r+");
        fsyncSync(fd);
        closeSync(fd);
      } else linkSync(s, t);
    }
  };
  walk(from, to);
}

function treeBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? treeBytes(path) : statSync(path).size;
  }
  return bytes;
}

export async function measure(attempts: number): Promise<{
  refresh: BuildResult;
  bytesPerAttempt: number;
  lakeBytes: number;
  servingBytes: number;
  buildSeconds: number;
}> {
  const lake = await cachedLake(attempts);
  const work = join(tmpdir(), "txray-bench", `refresh-${attempts}-run`);
  workingCopy(lake.dir, work);
  try {
    // 5 minutes of new data at 100 attempts/s, with their resolutions (the newest half still pending).
    await generateLake({
      dataDir: work,
      envelopes: NEW_ATTEMPTS,
      programs: PROGRAMS,
      days: NEW_MS / 86_400_000,
      seed: 1,
      endMs: END_MS + NEW_MS,
      append: { variant: 1 },
    });
    const ctx = await contextAt(work, END_MS + NEW_MS);
    const load = loadavg()[0];
    const refresh = await buildServingTables(ctx);
    ctx.close();
    console.error(
      JSON.stringify({
        attempts,
        load: load.toFixed(2),
        seconds: refresh.seconds.toFixed(2),
        steps: refresh.steps,
        read: {
          parts: refresh.partsRead,
          attempts: refresh.attempts,
          resolutions: refresh.resolutions,
          daysLoaded: refresh.daysLoaded,
        },
      }),
    );
    const lakeBytes = treeBytes(join(work, "lake"));
    const servingBytes = treeBytes(join(work, "tables"));
    return {
      refresh,
      lakeBytes,
      servingBytes,
      bytesPerAttempt: (lakeBytes + servingBytes) / (attempts + NEW_ATTEMPTS),
      buildSeconds: lake.generated.buildSeconds,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const small = Number(process.env.TXRAY_BENCH_SMALL ?? 5_000_000);
  const large = Number(process.env.TXRAY_BENCH_LARGE ?? 20_000_000);
  const loadBefore = loadavg()[0];
  const a = await measure(small);
  const b = await measure(large);
  const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
  console.log(
    JSON.stringify({
      smallLakeAttempts: small,
      largeLakeAttempts: large,
      smallRefreshSeconds: round(a.refresh.seconds),
      largeRefreshSeconds: round(b.refresh.seconds),
      ratio: round(b.refresh.seconds / a.refresh.seconds),
      bytesPerAttempt: round(b.bytesPerAttempt, 1),
      smallBytesPerAttempt: round(a.bytesPerAttempt, 1),
      largeLakeBytesPerAttempt: round(b.lakeBytes / (large + NEW_ATTEMPTS), 1),
      largeServingBytesPerAttempt: round(b.servingBytes / (large + NEW_ATTEMPTS), 1),
      smallFullBuildSeconds: round(a.buildSeconds, 1),
      largeFullBuildSeconds: round(b.buildSeconds, 1),
      newAttempts: NEW_ATTEMPTS,
      duckdbMemoryLimit: loadConfig({}).DUCKDB_MEMORY_LIMIT,
      loadAverage: round(loadBefore),
      loadAverageAfter: round(loadavg()[0]),
    }),
  );
}
