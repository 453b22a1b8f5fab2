// `bun run bench wallet`: what one wallet page costs as a program's history grows, before and after
// lake version 4 (resolutions.payer_bucket), the same pages in the same run. A generated lake of
// TXRAY_BENCH_WALLET_ATTEMPTS (default 10,000,000) attempts over 7 days and 2 programs is made once
// and cached under $TMPDIR/txray-bench/wallet-<n>. From one program's parts two lakes are written, a
// day partition as one part each, as compaction leaves a past day:
//   before: without the bucket, resolutions sorted by attempt id in row groups of 122,880 (version 3);
//   after:  resolutions sorted and grouped as compaction writes them now (src/lake/compact.ts).
// Envelopes are the same in both (sorted by payer). For a heavy, a median and a light payer, each
// page is read 5 times per side, alternating; figures are medians of the process's CPU and of wall
// time. The pages of both sides must be equal. JSON last line.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../devkit/generate";
import { type WalletPageQuery, walletPage } from "../src/analytics/queries/wallet-history";
import { MERGED_ROW_GROUP_ROWS, mergedOrder } from "../src/lake/compact";
import { sqlString } from "../src/lake/duckdb";
import { dataPaths } from "../src/lake/paths";
import { LAKE_VERSION } from "../src/lake/schema";
import { contextAt, END_MS } from "./refresh";

const ATTEMPTS = Number(process.env.TXRAY_BENCH_WALLET_ATTEMPTS ?? 10_000_000);
const DAYS = 7;
const ROUNDS = 5;

const cache = join(tmpdir(), "txray-bench", `wallet-${ATTEMPTS}`);
const marker = join(cache, "generated.json");
if (!existsSync(marker) || JSON.parse(readFileSync(marker, "utf8")).lakeVersion !== LAKE_VERSION) {
  rmSync(cache, { recursive: true, force: true });
  console.error(`generating ${ATTEMPTS.toLocaleString("en-US")} attempts over ${DAYS} days…`);
  const generated = await generateLake({
    dataDir: join(cache, "generated"),
    envelopes: ATTEMPTS,
    programs: 2,
    days: DAYS,
    seed: 1,
    endMs: END_MS,
  });
  const ctx = await contextAt(join(cache, "generated"), END_MS);
  const program = generated.programs[0];
  const source = (dataset: string, day: string) => join(ctx.paths.lake, dataset, `program=${program}`, day);
  for (const side of ["before", "after"] as const) {
    for (const dataset of ["envelopes", "resolutions"] as const) {
      for (const day of readdirSync(join(ctx.paths.lake, dataset, `program=${program}`))) {
        const files = readdirSync(source(dataset, day)).map((name) => join(source(dataset, day), name));
        const target = join(cache, side, "lake", dataset, `program=${program}`, day);
        mkdirSync(target, { recursive: true });
        const select =
          side === "before" && dataset === "resolutions"
            ? `SELECT * EXCLUDE (payer_bucket) FROM read_parquet([${files.map(sqlString).join(", ")}]) ORDER BY attempt_id`
            : `SELECT * FROM read_parquet([${files.map(sqlString).join(", ")}]) ${await mergedOrder(ctx.duck, dataset, files)}`;
        const rowGroup = side === "before" ? 122_880 : MERGED_ROW_GROUP_ROWS[dataset];
        await ctx.duck.run(
          `COPY (${select}) TO ${sqlString(join(target, "part-c-0.parquet"))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroup}, ROW_GROUP_SIZE_BYTES '32MB')`,
        );
      }
    }
  }
  ctx.close();
  rmSync(join(cache, "generated", "lake"), { recursive: true, force: true });
  writeFileSync(marker, JSON.stringify({ lakeVersion: LAKE_VERSION, program }));
}
const { program } = JSON.parse(readFileSync(marker, "utf8")) as { program: string };

const ctx = await contextAt(join(cache, "generated"), END_MS);
const sides = {
  before: { ...ctx, paths: dataPaths(join(cache, "before")) },
  after: { ...ctx, paths: dataPaths(join(cache, "after")) },
};
const bytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, entry) => sum + (entry.isDirectory() ? bytes(join(dir, entry.name)) : statSync(join(dir, entry.name)).size),
    0,
  );
const datasetBytes = (dataset: string) => ({
  before: bytes(join(cache, "before", "lake", dataset)),
  after: bytes(join(cache, "after", "lake", dataset)),
});
const resolutionBytes = datasetBytes("resolutions");
const envelopeBytes = datasetBytes("envelopes");

const envelopes = join(cache, "after", "lake", "envelopes", `program=${program}`, "*", "*.parquet");
const [{ attempts: programAttempts }] = await ctx.duck.all<{ attempts: number }>(
  `SELECT count(*) AS attempts FROM read_parquet(${sqlString(envelopes)})`,
);
const payers = await ctx.duck.all<{ payer: string; attempts: number }>(
  `SELECT payer, count(*) AS attempts FROM read_parquet(${sqlString(envelopes)}) GROUP BY payer ORDER BY attempts DESC, payer`,
);
const picks = { heavy: payers[0], median: payers[Math.floor(payers.length / 2)], light: payers[payers.length - 1] };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results: Record<string, unknown> = {};
for (const [name, payer] of Object.entries(picks)) {
  const query: WalletPageQuery = {
    program,
    wallet: payer.payer,
    window: { name: "7d", since: END_MS - DAYS * 86_400_000, until: END_MS },
    accountId: null,
    limit: 50,
    position: null,
  };
  const cpu: Record<string, number[]> = { before: [], after: [] };
  const wall: Record<string, number[]> = { before: [], after: [] };
  const pages: Record<string, string> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? (["after", "before"] as const) : (["before", "after"] as const)) {
      const started = performance.now();
      const usage = process.cpuUsage();
      const page = await walletPage(sides[side], query);
      const used = process.cpuUsage(usage);
      wall[side].push(performance.now() - started);
      cpu[side].push((used.user + used.system) / 1000);
      pages[side] = JSON.stringify(page);
    }
  }
  if (pages.before !== pages.after) throw new Error(`the ${name} payer's page differs between the two lakes`);
  results[name] = {
    attempts: payer.attempts,
    beforeCpuMs: Math.round(median(cpu.before)),
    afterCpuMs: Math.round(median(cpu.after)),
    beforeMs: Math.round(median(wall.before)),
    afterMs: Math.round(median(wall.after)),
  };
  console.error(name, JSON.stringify(results[name]));
}
ctx.close();
console.log(
  JSON.stringify({
    lakeAttempts: ATTEMPTS,
    programAttempts,
    days: DAYS,
    payers: results,
    envelopeBytesPerAttempt: {
      before: +(envelopeBytes.before / programAttempts).toFixed(2),
      after: +(envelopeBytes.after / programAttempts).toFixed(2),
    },
    resolutionBytesPerAttempt: {
      before: +(resolutionBytes.before / programAttempts).toFixed(2),
      after: +(resolutionBytes.after / programAttempts).toFixed(2),
    },
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
  }),
);
