// bench compact: what compaction costs as a day's partitions fill, with the size-tiered merge (the
// default) and with every small part one tier (the policy the tiers replace: it re-sorts a day's part),
// on the same flushed parts in the same run. A simulated day: BENCH_PROGRAMS programs receiving
// BENCH_RATE envelopes/s each, flushed every 10 s, compacted every 2 minutes (the soak's cadence),
// for BENCH_ROUNDS compactions. Prints each policy's compaction seconds (total and longest run),
// bytes its merges wrote, parts per partition at the end, and a wallet page's read of a partition
// (median ms of one payer's rows), plus writeRatio (single tier's bytes written ÷ tiered).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { compactLake, isCompactedPart } from "../src/lake/compact";
import { sqlString } from "../src/lake/duckdb";
import { flushSpool } from "../src/lake/flush-spool";
import type { Envelope } from "../src/shared/envelope";
import { silentLogger } from "../src/shared/logger";
import { encodeFrames, framesFileOf } from "../src/spool/frames";
import { encodeSpoolBatch } from "../src/spool/line-format";
import { newSegmentName } from "../src/spool/spool";
import { makeEnvelope, randomAddress } from "../test/helpers/envelopes";

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 2);
const RATE = Number(process.env.BENCH_RATE ?? 200); // per program: a 4,000/s dapp over 20 programs
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const FLUSHES_PER_ROUND = 12; // every 10 s, compaction every 120 s
const SMALL_PART_BYTES = 64 * 1024 * 1024;

const programs = Array.from({ length: PROGRAMS }, randomAddress);
const payers = Array.from({ length: 5000 }, randomAddress);
const labels = ["helius", "triton", "quicknode", "public", "alchemy"];
const start = Date.now() - ROUNDS * 120_000;
let made = 0;
function envelope(): Envelope {
  const n = made++;
  return makeEnvelope({
    program: programs[n % PROGRAMS],
    payer: payers[(n * 7919) % payers.length],
    blockhash: randomAddress(),
    rpcLabel: labels[n % labels.length],
    rpcHash: (n % labels.length).toString(16).padStart(16, "a"),
    lastValidBlockHeight: 300_000_000 + Math.floor(n / 4000),
    sentAt: start + Math.floor(n / ((RATE * PROGRAMS) / 1000)),
    cuLimit: 200_000,
    cuPriceMicroLamports: 1000 * (n % 7),
  });
}

/** One flush's segment (10 s of envelopes), written once and copied into each lake's spool. */
function segment(index: number): { name: string; bytes: Buffer; frames: Buffer } {
  const chunks: Uint8Array[] = [];
  const count = RATE * PROGRAMS * 10;
  for (let i = 0; i < count; i += 100)
    chunks.push(
      encodeSpoolBatch(
        "acc_bench",
        start + index * 10_000 + i,
        Bun.randomUUIDv7(),
        Array.from({ length: Math.min(100, count - i) }, envelope),
      ),
    );
  return {
    name: `${newSegmentName("node1", start + index)}.sealed`,
    bytes: Buffer.concat(chunks),
    frames: Buffer.from(encodeFrames(0, chunks)),
  };
}

const work = mkdtempSync(join(tmpdir(), "txray-bench-compact-"));
const policies = { tiered: {}, singleTier: { tierBaseBytes: SMALL_PART_BYTES } };
const lakes = await Promise.all(
  Object.entries(policies).map(async ([policy, options]) => {
    const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: join(work, policy) }), { logger: silentLogger });
    mkdirSync(ctx.paths.spool("node1"), { recursive: true });
    return { policy, options, ctx, seconds: 0, longestRunSeconds: 0, bytesWritten: 0, seen: new Set<string>() };
  }),
);

const compactedParts = (root: string) =>
  (readdirSync(root, { recursive: true }) as string[]).filter(
    (name) => name.endsWith(".parquet") && isCompactedPart(name.split("/").pop()!),
  );

for (let round = 0; round < ROUNDS; round++) {
  for (let f = 0; f < FLUSHES_PER_ROUND; f++) {
    const { name, bytes, frames } = segment(round * FLUSHES_PER_ROUND + f);
    for (const lake of lakes) {
      const file = join(lake.ctx.paths.spool("node1"), name);
      writeFileSync(file, bytes);
      writeFileSync(framesFileOf(file), frames);
      await flushSpool(lake.ctx);
    }
  }
  for (const lake of lakes) {
    const t0 = performance.now();
    await compactLake(lake.ctx, lake.options);
    const seconds = (performance.now() - t0) / 1000;
    lake.seconds += seconds;
    lake.longestRunSeconds = Math.max(lake.longestRunSeconds, seconds);
    const root = lake.ctx.paths.dataset("envelopes"); // the only dataset here: nothing is resolved
    for (const name of compactedParts(root)) {
      if (lake.seen.has(name)) continue;
      lake.seen.add(name);
      lake.bytesWritten += statSync(join(root, name)).size;
    }
  }
  if ((round + 1) % 5 === 0)
    console.error(
      `round ${round + 1}/${ROUNDS}: ${lakes.map((l) => `${l.policy} ${l.seconds.toFixed(1)} s, ${(l.bytesWritten / 1e6).toFixed(0)} MB written`).join("; ")}`,
    );
}

/** Parts per partition and the median of 20 payers' reads of the first program's partition. */
async function readSide(lake: (typeof lakes)[number]) {
  const root = lake.ctx.paths.dataset("envelopes");
  const partitions: string[] = [];
  for (const program of readdirSync(root))
    for (const day of readdirSync(join(root, program))) partitions.push(join(root, program, day));
  const partsPerPartition = Math.max(
    ...partitions.map((dir) => readdirSync(dir).filter((name) => name.endsWith(".parquet")).length),
  );
  const partitionBytes = Math.max(
    ...partitions.map((dir) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)),
  );
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const [row] = await lake.ctx.duck.all<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(join(partitions[0], "*.parquet"))}) WHERE payer = ${sqlString(payers[i * 97])}`,
    );
    times.push(performance.now() - t0);
    rows += row.n;
  }
  times.sort((a, b) => a - b);
  return { partsPerPartition, partitionBytes, walletReadMs: Number(times[10].toFixed(1)), rows };
}

const reads = [];
for (const lake of lakes) reads.push(await readSide(lake));
if (reads[0].rows !== reads[1].rows)
  throw new Error(`the policies' lakes differ: ${reads[0].rows} vs ${reads[1].rows} rows`);
for (const lake of lakes) lake.ctx.close();
rmSync(work, { recursive: true, force: true });

const [tiered, single] = lakes;
console.log(
  JSON.stringify({
    envelopes: made,
    programs: PROGRAMS,
    envelopesPerSecPerProgram: RATE,
    rounds: ROUNDS,
    partitionBytes: reads[0].partitionBytes,
    tieredCompactSeconds: Number(tiered.seconds.toFixed(2)),
    singleTierCompactSeconds: Number(single.seconds.toFixed(2)),
    tieredLongestRunSeconds: Number(tiered.longestRunSeconds.toFixed(2)),
    singleTierLongestRunSeconds: Number(single.longestRunSeconds.toFixed(2)),
    tieredBytesWritten: tiered.bytesWritten,
    singleTierBytesWritten: single.bytesWritten,
    writeRatio: Number((single.bytesWritten / tiered.bytesWritten).toFixed(2)),
    tieredPartsPerPartition: reads[0].partsPerPartition,
    singleTierPartsPerPartition: reads[1].partsPerPartition,
    tieredWalletReadMs: reads[0].walletReadMs,
    singleTierWalletReadMs: reads[1].walletReadMs,
  }),
);
