// bench flush: sealed spool segments (the exact lines ingest writes) → partitioned zstd Parquet.
// Prints envelopesPerSec (target ≥ 500,000/s) and parquetBytesPerNdjsonByte (target ≤ 0.25: the
// Parquet bytes per byte of the same envelopes as NDJSON; parquetBytesPerSpoolByte is shown beside it).
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { newSegmentName } from "../src/ingest/spool";
import { encodeSpoolBatch } from "../src/ingest/spool-line";
import type { Envelope } from "../src/ingest/envelope";
import { silentLogger } from "../src/shared/logger";
import { makeEnvelope, randomAddress } from "../test/helpers/envelopes";

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 1_000_000);
const SEGMENT_ENVELOPES = Number(process.env.BENCH_SEGMENT_ENVELOPES ?? 250_000);
const dataDir = mkdtempSync(join(tmpdir(), "txray-bench-flush-"));
const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir }), { logger: silentLogger });

// Realistic variety: BENCH_PROGRAMS programs (20; skewed), 500 providers' blockhashes, 5,000 payers, 5% preflight.
const programs = Array.from({ length: Number(process.env.BENCH_PROGRAMS ?? 20) }, randomAddress);
const payers = Array.from({ length: 5000 }, randomAddress);
const blockhashes = Array.from({ length: 500 }, randomAddress);
const labels = ["helius", "triton", "quicknode", "public", "alchemy"];
const spoolDir = ctx.paths.spool("node1");
mkdirSync(spoolDir, { recursive: true });
let spoolBytes = 0;
let ndjsonBytes = 0; // the same envelopes as NDJSON, one per line (the size the target is stated against)
const start = 1_763_700_000_000;
for (let written = 0, s = 0; written < ENVELOPES; s++) {
  // A segment holds many 100-envelope batches, as ingest writes them.
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < SEGMENT_ENVELOPES && written < ENVELOPES; i += 100) {
    const batch: Envelope[] = [];
    for (let j = 0; j < 100 && i + j < SEGMENT_ENVELOPES && written < ENVELOPES; j++, written++) batch.push(envelopeNumber(written));
    for (const envelope of batch) ndjsonBytes += Buffer.byteLength(JSON.stringify(envelope)) + 1;
    chunks.push(encodeSpoolBatch("acc_bench", start + s * 1000 + i, Bun.randomUUIDv7(), batch));
  }
  const file = join(spoolDir, newSegmentName("node1", start + s) + ".sealed");
  writeFileSync(file, Buffer.concat(chunks));
  spoolBytes += statSync(file).size;
}
console.error(`spool: ${ENVELOPES} envelopes, ${(spoolBytes / 1e6).toFixed(1)} MB of spool lines (${(ndjsonBytes / 1e6).toFixed(1)} MB as NDJSON)`);

function envelopeNumber(written: number): Envelope {
  const preflight = written % 20 === 0;
  return makeEnvelope({
    program: programs[Math.floor(Math.pow(Math.random(), 2) * programs.length)],
    payer: payers[written % payers.length],
    blockhash: blockhashes[Math.floor(written / 2000) % blockhashes.length],
    rpcLabel: labels[written % labels.length],
    rpcHash: (written % labels.length).toString(16).padStart(16, "a"),
    lastValidBlockHeight: 300_000_000 + Math.floor(written / 2000),
    sentAt: start + written,
    cuLimit: 200_000,
    cuPriceMicroLamports: 1000 * (written % 7),
    ...(preflight ? { kind: "preflight" as const, preflightError: "Transaction simulation failed: Blockhash not found", simulationLogs: [] } : {}),
  });
}

const { flushSpool } = await import("../src/lake/flush");
const t0 = performance.now();
const result = await flushSpool(ctx);
const seconds = (performance.now() - t0) / 1000;
const parquetBytes = (readdirSync(ctx.paths.dataset("envelopes"), { recursive: true }) as string[])
  .filter((name) => name.endsWith(".parquet"))
  .reduce((sum, name) => sum + statSync(join(ctx.paths.dataset("envelopes"), name)).size, 0);
ctx.close();
rmSync(dataDir, { recursive: true, force: true });
if (result.rows !== ENVELOPES) throw new Error(`flushed ${result.rows} rows, expected ${ENVELOPES}`);
console.log(JSON.stringify({
  envelopes: ENVELOPES,
  seconds: Number(seconds.toFixed(3)),
  envelopesPerSec: Math.round(ENVELOPES / seconds),
  spoolBytes,
  ndjsonBytes,
  parquetBytes,
  parquetBytesPerNdjsonByte: Number((parquetBytes / ndjsonBytes).toFixed(4)),
  parquetBytesPerSpoolByte: Number((parquetBytes / spoolBytes).toFixed(4)),
  segments: result.segments,
}));
