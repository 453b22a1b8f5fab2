// bench ingest-nodes: durable ingest through one ingest node, and through two ingest nodes side by
// side (TXRAY_ROLES=ingest, each its own process, spool and TXRAY_NODE_ID, one data directory and
// control plane), in the same run with the same load generator as `bench ingest`. Rounds alternate
// (one node, then both) so a change in the host's load affects both sides alike. The figures: per
// node and together. On a machine whose cores the nodes and the load generator share, two nodes
// cannot beat one by much; the point is per-node cost and that nodes add up where cores do.
//
// TXRAY_CONTROL_URL in the environment puts the control plane on that PostgreSQL; default SQLite.
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
const controlUrl = process.env.TXRAY_CONTROL_URL;

const dataDir = mkdtempSync(join(tmpdir(), "txray-bench-nodes-"));
const control = openControlDb(dataPaths(dataDir).controlDb, controlUrl);
const { key } = createAccountKey(control, `bench-${Date.now()}`, "live", Date.now());
control.close();
const bodies = Array.from({ length: 256 }, () =>
  JSON.stringify({ apiKey: key, envelopes: Array.from({ length: BATCH }, () => makeEnvelope()) }),
);

const node = (id: string) =>
  startServerProcess({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_ROLES: "ingest",
    TXRAY_NODE_ID: id,
    TXRAY_LOG_LEVEL: "info",
    INGEST_BURST: "1000000000",
    INGEST_RATE_PER_SECOND: "1000000000",
    ...(controlUrl ? { TXRAY_CONTROL_URL: controlUrl } : {}),
  });
const nodes = [await node("bench-a"), await node("bench-b")];
const urls = nodes.map((n) => `${n.url}/v1/ingest`);
for (const url of urls) await postLoad(url, bodies, { connections: CONNECTIONS, seconds: 1, okStatus: 202 }); // warm-up

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const one: number[] = [];
const oneP99: number[] = [];
const perNode: number[][] = [[], []];
const together: number[] = [];
const twoP99: number[] = [];
let failed = 0;
for (let round = 0; round < ROUNDS; round++) {
  const alone = await postLoad(urls[0], bodies, { connections: CONNECTIONS, seconds: SECONDS, okStatus: 202 });
  failed += alone.requests - alone.ok;
  one.push(Math.round((alone.ok * BATCH) / alone.seconds));
  oneP99.push(percentile(alone.latencies, 99));
  // Both nodes at once, the same total connections split between them.
  const both = await Promise.all(
    urls.map((url) => postLoad(url, bodies, { connections: CONNECTIONS / 2, seconds: SECONDS, okStatus: 202 })),
  );
  for (const [i, result] of both.entries()) perNode[i].push(Math.round((result.ok * BATCH) / result.seconds));
  failed += both.reduce((sum, result) => sum + result.requests - result.ok, 0);
  together.push(perNode[0].at(-1)! + perNode[1].at(-1)!);
  twoP99.push(
    percentile(
      both.flatMap((result) => result.latencies),
      99,
    ),
  );
  console.error(
    `round ${round + 1}: one node ${one.at(-1)} envelopes/s; two nodes ${perNode[0].at(-1)} + ${perNode[1].at(-1)} = ${together.at(-1)} envelopes/s`,
  );
}
for (const n of nodes) {
  n.process.kill("SIGTERM");
  await n.process.exited;
}
rmSync(dataDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    oneNodeEnvelopesPerSec: median(one),
    twoNodesEnvelopesPerSec: median(together),
    twoNodesPerNodeEnvelopesPerSec: [median(perNode[0]), median(perNode[1])],
    twoOverOne: Number(median(together.map((value, i) => value / one[i])).toFixed(3)),
    oneNodeP99Ms: Number(median(oneP99).toFixed(2)),
    twoNodesP99Ms: Number(median(twoP99).toFixed(2)),
    failedRequests: failed,
    control: controlUrl ? "postgres" : "sqlite",
    batch: BATCH,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    secondsPerRound: SECONDS,
  }),
);
