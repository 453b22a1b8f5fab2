// bench flush: sealed spool segments (the exact lines ingest writes) → partitioned zstd Parquet.
// Prints envelopesPerSec (target ≥ 500,000/s) with the writer flush uses by default (the native
// one when this machine can build it), duckdbEnvelopesPerSec (FLUSH_NATIVE=off) on the same
// segments in the same run, and parquetBytesPerNdjsonByte (target ≤ 0.25: the Parquet bytes per
// byte of the same envelopes as NDJSON; parquetBytesPerSpoolByte is shown beside it).
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { flushSpool } from "../src/lake/flush-spool";
import type { Envelope } from "../src/shared/envelope";
import { silentLogger } from "../src/shared/logger";
import { encodeFrames, framesFileOf } from "../src/spool/frames";
import { encodeSpoolBatch } from "../src/spool/line-format";
import { newSegmentName } from "../src/spool/spool";
import { makeEnvelope, randomAddress } from "../test/helpers/envelopes";

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 1_000_000);
const SEGMENT_ENVELOPES = Number(process.env.BENCH_SEGMENT_ENVELOPES ?? 250_000);
const work = mkdtempSync(join(tmpdir(), "txray-bench-flush-"));
const source = join(work, "segments");
mkdirSync(source);

// Realistic variety: BENCH_PROGRAMS programs (20; skewed), 500 providers' blockhashes, 5,000 payers, 5% preflight.
const programs = Array.from({ length: Number(process.env.BENCH_PROGRAMS ?? 20) }, randomAddress);
const payers = Array.from({ length: 5000 }, randomAddress);
const blockhashes = Array.from({ length: 500 }, randomAddress);
const labels = ["helius", "triton", "quicknode", "public", "alchemy"];
let spoolBytes = 0;
let ndjsonBytes = 0; // the same envelopes as NDJSON, one per line (the size the target is stated against)
const start = 1_763_700_000_000;
for (let written = 0, s = 0; written < ENVELOPES; s++) {
  // A segment holds many 100-envelope batches, as ingest writes them.
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < SEGMENT_ENVELOPES && written < ENVELOPES; i += 100) {
    const batch: Envelope[] = [];
    for (let j = 0; j < 100 && i + j < SEGMENT_ENVELOPES && written < ENVELOPES; j++, written++)
      batch.push(envelopeNumber(written));
    for (const envelope of batch) ndjsonBytes += Buffer.byteLength(JSON.stringify(envelope)) + 1;
    chunks.push(encodeSpoolBatch("acc_bench", start + s * 1000 + i, Bun.randomUUIDv7(), batch));
  }
  const file = join(source, `${newSegmentName("node1", start + s)}.sealed`);
  writeFileSync(file, Buffer.concat(chunks));
  // Its checksum sidecar, as ingest writes it (flush verifies every batch before reading: part of what is measured).
  writeFileSync(framesFileOf(file), encodeFrames(0, chunks));
  spoolBytes += statSync(file).size;
}
console.error(
  `spool: ${ENVELOPES} envelopes, ${(spoolBytes / 1e6).toFixed(1)} MB of spool lines (${(ndjsonBytes / 1e6).toFixed(1)} MB as NDJSON)`,
);

function envelopeNumber(written: number): Envelope {
  const preflight = written % 20 === 0;
  return makeEnvelope({
    program: programs[Math.floor(Math.random() ** 2 * programs.length)],
    payer: payers[written % payers.length],
    blockhash: blockhashes[Math.floor(written / 2000) % blockhashes.length],
    rpcLabel: labels[written % labels.length],
    rpcHash: (written % labels.length).toString(16).padStart(16, "a"),
    lastValidBlockHeight: 300_000_000 + Math.floor(written / 2000),
    sentAt: start + written,
    cuLimit: 200_000,
    cuPriceMicroLamports: 1000 * (written % 7),
    ...(preflight
      ? {
          kind: "preflight" as const,
          preflightError: "Transaction simulation failed: Blockhash not found",
          simulationLogs: [],
        }
      : {}),
  });
}

/** Flushes a copy of the segments with one writer setting; seconds and Parquet bytes. */
async function flushWith(FLUSH_NATIVE: "on" | "off") {
  const dataDir = join(work, `data-${FLUSH_NATIVE}`);
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir, FLUSH_NATIVE }), { logger: silentLogger });
  const spoolDir = ctx.paths.spool("node1");
  mkdirSync(spoolDir, { recursive: true });
  for (const name of readdirSync(source)) copyFileSync(join(source, name), join(spoolDir, name));
  const writer = ctx.flushWriter ? "native" : "duckdb";
  const t0 = performance.now();
  const result = await flushSpool(ctx);
  const seconds = (performance.now() - t0) / 1000;
  const lake = ctx.paths.dataset("envelopes");
  const parquetBytes = (readdirSync(lake, { recursive: true }) as string[])
    .filter((name) => name.endsWith(".parquet"))
    .reduce((sum, name) => sum + statSync(join(lake, name)).size, 0);
  ctx.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (result.rows !== ENVELOPES) throw new Error(`flushed ${result.rows} rows, expected ${ENVELOPES}`);
  return { writer, seconds, parquetBytes, segments: result.segments };
}

const duckdb = await flushWith("off");
const flush = await flushWith("on");
rmSync(work, { recursive: true, force: true });
console.log(
  JSON.stringify({
    envelopes: ENVELOPES,
    writer: flush.writer,
    seconds: Number(flush.seconds.toFixed(3)),
    envelopesPerSec: Math.round(ENVELOPES / flush.seconds),
    duckdbEnvelopesPerSec: Math.round(ENVELOPES / duckdb.seconds),
    spoolBytes,
    ndjsonBytes,
    parquetBytes: flush.parquetBytes,
    parquetBytesPerNdjsonByte: Number((flush.parquetBytes / ndjsonBytes).toFixed(4)),
    parquetBytesPerSpoolByte: Number((flush.parquetBytes / spoolBytes).toFixed(4)),
    duckdbParquetBytesPerNdjsonByte: Number((duckdb.parquetBytes / ndjsonBytes).toFixed(4)),
    segments: flush.segments,
  }),
);
