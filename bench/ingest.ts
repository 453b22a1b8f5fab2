// bench ingest: durable ingest throughput (100-envelope batches, many connections, every 202 after
// an fsync'd group commit) against, in the same run with the same load generator, a bare Bun.serve
// that only parses the body (the ceiling). Targets: ≥ 100,000 envelopes/s and ≥ 0.6 of the ceiling.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountKey, openControlDb } from "../src/control";
import { dataPaths } from "../src/lake/paths";
import { makeEnvelope } from "../test/helpers/envelopes";
import { startServerProcess } from "../test/helpers/process";
import { percentile, postLoad } from "./support/load";

const BATCH = 100;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const dataDir = mkdtempSync(join(tmpdir(), "txray-bench-ingest-"));
const control = openControlDb(dataPaths(dataDir).controlDb);
const { key } = createAccountKey(control, "bench", "live", Date.now());
control.close();
const bodies = Array.from({ length: 256 }, () =>
  JSON.stringify({ apiKey: key, envelopes: Array.from({ length: BATCH }, () => makeEnvelope()) }),
);
const bodyBytes = bodies[0].length;

type Target = {
  label: string;
  url: string;
  process: { kill(signal?: string | number): void; exited: Promise<number> };
};

async function startCeiling(): Promise<Target> {
  const child = Bun.spawn(["bun", "run", join(import.meta.dir, "support/ceiling-server.ts")], {
    stderr: "pipe",
    stdout: "ignore",
  });
  const reader = child.stderr.getReader();
  let text = "";
  while (!/"url":"([^"]+)"/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  return { label: "ceiling (bare Bun.serve, parse only)", url: `${/"url":"([^"]+)"/.exec(text)![1]}/`, process: child };
}

async function startTxray(): Promise<Target> {
  const server = await startServerProcess({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_LOG_LEVEL: "info",
    INGEST_BURST: "1000000000",
    INGEST_RATE_PER_SECOND: "1000000000",
  });
  return { label: "txray (durable)", url: `${server.url}/v1/ingest`, process: server.process };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Both servers run side by side (the idle one costs nothing) and the measurements alternate, so a
// change in what else the machine is doing affects both sides alike.
const txray = await startTxray();
const ceiling = await startCeiling();
for (const target of [txray, ceiling])
  await postLoad(target.url, bodies, { connections: CONNECTIONS, seconds: 1, okStatus: 202 }); // warm-up
const samples = new Map<Target, { perSec: number[]; p99: number[]; failed: number }>([
  [txray, { perSec: [], p99: [], failed: 0 }],
  [ceiling, { perSec: [], p99: [], failed: 0 }],
]);
for (let round = 0; round < ROUNDS; round++) {
  for (const target of [txray, ceiling]) {
    const result = await postLoad(target.url, bodies, { connections: CONNECTIONS, seconds: SECONDS, okStatus: 202 });
    const sample = samples.get(target)!;
    sample.perSec.push(Math.round((result.ok * BATCH) / result.seconds));
    sample.p99.push(percentile(result.latencies, 99));
    sample.failed += result.requests - result.ok;
    console.error(
      `round ${round + 1} ${target.label}: ${sample.perSec.at(-1)} envelopes/s, p99 ${sample.p99.at(-1)!.toFixed(1)} ms`,
    );
  }
}
for (const target of [txray, ceiling]) {
  target.process.kill("SIGTERM");
  await target.process.exited;
}
rmSync(dataDir, { recursive: true, force: true });
const durable = samples.get(txray)!;
const bare = samples.get(ceiling)!;
const ratios = durable.perSec.map((value, i) => value / bare.perSec[i]);
console.log(
  JSON.stringify({
    envelopesPerSec: median(durable.perSec),
    ceilingEnvelopesPerSec: median(bare.perSec),
    ratio: Number(median(ratios).toFixed(3)),
    ratioPerRound: ratios.map((r) => Number(r.toFixed(3))),
    p99Ms: Number(median(durable.p99).toFixed(2)),
    ceilingP99Ms: Number(median(bare.p99).toFixed(2)),
    failedRequests: durable.failed,
    batch: BATCH,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    secondsPerRound: SECONDS,
    bodyBytes,
  }),
);
