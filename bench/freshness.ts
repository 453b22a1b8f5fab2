// bench freshness: how soon after a transaction is confirmed txray tells its outcome.
// A LiteSVM local chain (one block every 400 ms), a txray server in its own process with the
// scheduler at its defaults, and the simulator's traffic (BENCH_SECONDS of it, default 60) whose
// envelopes reach txray as the SDK sends them (a batch every 2 s, the SDK's flushIntervalMs). For
// each attempt that landed or failed on chain, from the moment the chain confirmed it:
//   whyP95Ms          until why/{sig} answers its final outcome (on demand from the chain, or resolved)
//   whyIngestedP95Ms  until why/{sig} answers from txray's own resolution (source "ingested")
//   routesP95Ms       until baseline and top-issues include it: the first serving version built
//                     after its resolution (window.until past it), as the routes report it
// Each sampled attempt is polled as a different client (x-forwarded-for, trusted for the bench):
// the per-client limits are for one user's questions, the bench stands for many users.
// Last stdout line: { whyP95Ms, whyIngestedP95Ms, routesP95Ms, samples, ... }.

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalnet } from "../devkit/localnet";
import { type Attempt, runTraffic } from "../devkit/simulate";
import { createAccountKey, openControlDb } from "../src/control";
import { dataPaths } from "../src/lake/paths";
import { startServerProcess } from "../test/helpers/process";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
/**
 * How long to wait after the traffic for the serving tables to include every attempt (TABLES_INTERVAL_MS is 300 s by
 * default).
 */
const ROUTES_WAIT_MS = Number(process.env.BENCH_ROUTES_WAIT_MS ?? 420_000);
const SDK_FLUSH_MS = 2_000;

const dataDir = mkdtempSync(join(tmpdir(), "txray-freshness-"));
console.error("freshness: starting the chain and the server");
const chain = await startLocalnet({ blockTimeMs: 400 });
const control = openControlDb(dataPaths(dataDir).controlDb);
const { key } = createAccountKey(control, "bench", "live", Date.now());
control.close();
// The scheduler and its intervals at their defaults; only where the data lives, the chain, and the trusted client
// header differ.
const server = await startServerProcess({
  TXRAY_DATA_DIR: dataDir,
  SOLANA_RPC_URL: chain.url,
  TXRAY_SCHEDULER: "on",
  TXRAY_LOG_LEVEL: "info",
  TRUSTED_PROXY_HEADER: "x-forwarded-for",
});
console.error(`freshness: server ${server.url}, chain ${chain.url}, ${SECONDS} s of traffic`);

type Sample = {
  attempt: Attempt;
  confirmedAt: number;
  whyAt: number | null;
  ingestedAt: number | null;
  routesAt: number | null;
  client: string;
};
const samples: Sample[] = [];
const polls: Promise<void>[] = [];

// The SDK's transport: envelopes queued and sent in a batch every SDK_FLUSH_MS.
let queue: unknown[] = [];
const sendQueued = async () => {
  const envelopes = queue;
  queue = [];
  if (envelopes.length > 0)
    await fetch(`${server.url}/v1/ingest`, { method: "POST", body: JSON.stringify({ apiKey: key, envelopes }) });
};
const transport = setInterval(() => void sendQueued(), SDK_FLUSH_MS);

async function pollWhy(sample: Sample): Promise<void> {
  const sig = sample.attempt.envelope.sig!;
  const deadline = sample.confirmedAt + 180_000;
  while (Date.now() < deadline && sample.ingestedAt === null) {
    const response = await fetch(`${server.url}/v1/why/${sig}`, {
      headers: { "x-forwarded-for": sample.client },
    }).catch(() => null);
    const now = Date.now();
    if (response?.status === 200) {
      const body = (await response.json()) as { outcome: string; source: string };
      if (body.outcome === sample.attempt.truth.outcome) {
        sample.whyAt ??= now;
        if (body.source === "ingested") sample.ingestedAt = now;
      }
    } else await response?.body?.cancel();
    await Bun.sleep(sample.whyAt === null ? 100 : 250);
  }
}

// The serving versions as the routes report them: when each build's window.until was first seen.
const versions: { seenAt: number; until: number }[] = [];
let watching = true;
const programs = new Set<string>();
const watchRoutes = (async () => {
  while (watching) {
    for (const program of programs) {
      const [baseline, top] = await Promise.all([
        fetch(`${server.url}/v1/baseline/${program}?window=1d`, { headers: { "x-forwarded-for": "10.255.0.1" } }),
        fetch(`${server.url}/v1/top-issues/${program}?window=1d`, { headers: { "x-forwarded-for": "10.255.0.2" } }),
      ]);
      if (baseline.status === 200 && top.status === 200) {
        const until = Math.min(
          ((await baseline.json()) as { window: { until: number } }).window.until,
          ((await top.json()) as { window: { until: number } }).window.until,
        );
        if (versions.length === 0 || versions[versions.length - 1].until < until)
          versions.push({ seenAt: Date.now(), until });
      } else {
        await baseline.body?.cancel();
        await top.body?.cancel();
      }
      break; // one program tells the serving version
    }
    await Bun.sleep(500);
  }
})();

let clients = 0;
const traffic = runTraffic({
  rpcUrl: chain.url,
  attempts: Math.round(SECONDS * 4),
  seed: 9,
  intervalMs: 200,
  providers: [{ label: "alpha", dropRate: 0 }],
  expireAtEnd: false,
  onAttempt: (attempt) => {
    queue.push(attempt.envelope);
    programs.add(attempt.envelope.program);
    if (
      attempt.envelope.sig === null ||
      (attempt.truth.outcome !== "landed" && attempt.truth.outcome !== "failed_onchain")
    )
      return;
    // The simulator hands the attempt over once the chain has confirmed it.
    const sample: Sample = {
      attempt,
      confirmedAt: Date.now(),
      whyAt: null,
      ingestedAt: null,
      routesAt: null,
      client: `10.${(++clients >> 8) & 255}.${clients & 255}.1`,
    };
    samples.push(sample);
    polls.push(pollWhy(sample));
  },
});
await traffic;
await sendQueued();
clearInterval(transport);
console.error(`freshness: ${samples.length} attempts confirmed; waiting for why and the routes`);
await Promise.all(polls);
const routesDeadline = Date.now() + ROUTES_WAIT_MS;
const routeOf = (sample: Sample) =>
  sample.ingestedAt === null ? null : (versions.find((v) => v.until >= sample.ingestedAt!)?.seenAt ?? null);
while (Date.now() < routesDeadline && samples.some((s) => routeOf(s) === null)) await Bun.sleep(1_000);
watching = false;
await watchRoutes;
for (const sample of samples) sample.routesAt = routeOf(sample);

/** Nearest-rank quantile; null without values. */
const quantile = (values: number[], q: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
};
const p95 = (values: number[]) => quantile(values, 0.95);
const delays = (pick: (s: Sample) => number | null) =>
  samples.map((s) => (pick(s) === null ? null : pick(s)! - s.confirmedAt)).filter((v): v is number => v !== null);
const why = delays((s) => s.whyAt);
const ingested = delays((s) => s.ingestedAt);
const routes = delays((s) => s.routesAt);
server.process.kill("SIGTERM");
await server.process.exited;
await chain.stop();
rmSync(dataDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    samples: samples.length,
    whyP95Ms: p95(why),
    whyP50Ms: quantile(why, 0.5),
    whyAnswered: why.length,
    whyIngestedP95Ms: p95(ingested),
    whyIngested: ingested.length,
    routesP95Ms: routes.length === samples.length ? p95(routes) : null,
    routesIncluded: routes.length,
    servingVersionsSeen: versions.length,
    loadAverage: loadavg().map((v) => Number(v.toFixed(2))),
  }),
);
process.exit(0);
