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
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

const dataDir = mkdtempSync(join(tmpdir(), "txray-bench-ingest-"));
const control = openControlDb(dataPaths(dataDir).controlDb);
const { key } = createAccountKey(control, "bench", "live", Date.now());
control.close();
const bodies = Array.from({ length: 256 }, () => JSON.stringify({ apiKey: key, envelopes: Array.from({ length: BATCH }, () => makeEnvelope()) }));
const bodyBytes = bodies[0].length;

async function measure(label: string, start: () => Promise<{ url: string; process: { kill(signal?: string | number): void; exited: Promise<number> } }>, path: string) {
  const server = await start();
  await postLoad(server.url + path, bodies, { connections: CONNECTIONS, seconds: 1, okStatus: 202 }); // warm-up
  const result = await postLoad(server.url + path, bodies, { connections: CONNECTIONS, seconds: SECONDS, okStatus: 202 });
  server.process.kill("SIGTERM");
  await server.process.exited;
  const envelopesPerSec = Math.round((result.ok * BATCH) / result.seconds);
  console.error(`${label}: ${envelopesPerSec} envelopes/s, ${result.ok}/${result.requests} ok, p99 ${percentile(result.latencies, 99).toFixed(1)} ms`);
  return { envelopesPerSec, p99Ms: Number(percentile(result.latencies, 99).toFixed(2)), failed: result.requests - result.ok };
}

const durable = await measure(
  "txray (durable)",
  () => startServerProcess({ TXRAY_DATA_DIR: dataDir, TXRAY_LOG_LEVEL: "info", INGEST_BURST: "1000000000", INGEST_RATE_PER_SECOND: "1000000000" }),
  "/v1/ingest",
);
const ceiling = await measure(
  "ceiling (bare Bun.serve, parse only)",
  async () => {
    const child = Bun.spawn(["bun", "run", join(import.meta.dir, "support/ceiling-server.ts")], { stderr: "pipe", stdout: "ignore" });
    const reader = child.stderr.getReader();
    let text = "";
    while (!/"url":"([^"]+)"/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    return { url: /"url":"([^"]+)"/.exec(text)![1], process: child };
  },
  "/",
);
rmSync(dataDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    envelopesPerSec: durable.envelopesPerSec,
    ceilingEnvelopesPerSec: ceiling.envelopesPerSec,
    ratio: Number((durable.envelopesPerSec / ceiling.envelopesPerSec).toFixed(3)),
    p99Ms: durable.p99Ms,
    ceilingP99Ms: ceiling.p99Ms,
    failedRequests: durable.failed,
    batch: BATCH,
    connections: CONNECTIONS,
    seconds: SECONDS,
    bodyBytes,
  }),
);
