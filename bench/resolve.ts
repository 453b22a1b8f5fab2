// bench resolve: BENCH_ATTEMPTS (default 100,000) send attempts, 90% landed and 10%
// failed on chain, against the soak's stand-in mainnet provider (devkit/standin) running in a
// process of its own. The envelopes are ingested over HTTP and flushed (not timed); then the
// resolver runs, as the scheduler would, until every attempt is resolved: intake from the flushed
// parts, status look-ups, block times, transactions of the failures and of the success sample,
// decoding, recording (lake, signature index, control commit) all timed. Prints attemptsPerSec,
// rpcCallsPer1000Attempts (each element of a JSON-RPC batch is one call: providers bill calls),
// rpcRequestsPer1000Attempts, the calls per method, and the load average (the machine is shared).
//
// BENCH_MIX=soak: the soak's mix instead (`bun run soak`: 60% landed, 10% failed on chain, 30% never
// landed; 10% preflight failures; 2,000 payers, three providers), as a resolver that is behind meets
// it: every send was made in the last two minutes with a blockhash already expired, so each is
// decided at its first look-up (the never-landed ones classified as drops), in rounds as the
// scheduler runs them. Both mixes print cpuMicrosPerAttempt: the process's CPU (every thread:
// JavaScript, DuckDB's, the signature index's, garbage collection; not the stand-in's) over the
// resolving, per attempt, and coresAt20000PerSec, what that costs at the soak's rate; and
// pageFaultsPerAttempt, the process's minor page faults over the same span.

import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { spawn } from "bun";
import { soakEnvelope, uniqueSignatures } from "../devkit/standin";
import { loadIdls } from "../src/chain/idl";
import { resolvePending } from "../src/chain/resolve";
import { createRpcClient } from "../src/chain/rpc";
import { flushSpool } from "../src/lake/flush-spool";
import { encodeBase58 } from "../src/shared/base58";
import { testServer } from "../test/helpers/server";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 100_000);
const SOAK_MIX = process.env.BENCH_MIX === "soak";
if (!SOAK_MIX && process.env.BENCH_MIX !== undefined && process.env.BENCH_MIX !== "default")
  throw new Error("BENCH_MIX is soak or default");
/** The scheduler's rounds (src/jobs/resolve.ts) for the soak's mix: a run goes on while attempts wait. */
const ROUNDS_MS = 20_000;
const ROOT = new URL("..", import.meta.url).pathname;

// The provider in its own process: its JSON (17 KB per transaction) is not the resolver's CPU.
const fates = SOAK_MIX ? ["60", "10", "30"] : ["90", "10", "0"];
const standIn = spawn(
  ["bun", "devkit/bin/standin.ts", "--landed", fates[0], "--failed", fates[1], "--dropped", fates[2]],
  { cwd: ROOT, stdout: "pipe", stderr: "inherit" },
);
const lines = standIn.stdout.getReader();
const decoder = new TextDecoder();
let firstLine = "";
while (!firstLine.includes("\n")) {
  const { value, done } = await lines.read();
  if (done) throw new Error("the stand-in chain did not start");
  firstLine += decoder.decode(value);
}
const { url } = JSON.parse(firstLine.split("\n")[0]) as { url: string };
const height = (await (
  await fetch(url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getBlockHeight" }) })
).json()) as { result: number };

const t = await testServer({ SOLANA_RPC_URL: url, INGEST_BURST: "100000000", INGEST_RATE_PER_SECOND: "100000000" });
const key = t.key("bench");
const signature = uniqueSignatures(1024);
const PROGRAMS = [
  "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc",
];
const payers = Array.from({ length: SOAK_MIX ? 2_000 : 500 }, () => encodeBase58(randomBytes(32)));
const blockhash = encodeBase58(randomBytes(32));
console.error(`ingesting ${ATTEMPTS.toLocaleString()} envelopes…`);
for (let start = 0; start < ATTEMPTS; start += 1000) {
  const envelopes = Array.from({ length: Math.min(1000, ATTEMPTS - start) }, (_, i) => {
    const n = start + i;
    if (SOAK_MIX) {
      // As the soak sends them, made in the last two minutes with an expired blockhash.
      return soakEnvelope(n, {
        signature,
        programs: PROGRAMS,
        payers,
        blockhash,
        sentAt: Date.now() - 120_000 + Math.floor((n / ATTEMPTS) * 60_000),
        lastValidBlockHeight: height.result - 300,
      });
    }
    return {
      sig: signature(n),
      program: PROGRAMS[n % 3],
      blockhash,
      lastValidBlockHeight: height.result + 150,
      sentAt: Date.now(),
      rpcHash: "a1b2c3d4e5f60718",
      rpcLabel: "helius",
      walletAdapter: "Phantom",
      kind: "send",
      preflightError: null,
      simulationLogs: [],
      payer: payers[n % payers.length],
      sdkVersion: "0.1.0",
      cuLimit: 200_000,
      cuPriceMicroLamports: 1000 + (n % 5000),
      ixPrefix: ["e517cb977ae3ad2a", "0c", "f8c69e91e17587c8"][n % 3],
    };
  });
  const response = await fetch(`${t.url}/v1/ingest`, {
    method: "POST",
    body: JSON.stringify({ apiKey: key, envelopes }),
  });
  if (response.status !== 202) throw new Error(`ingest answered ${response.status}`);
}
await t.server.spool!.seal();
await flushSpool(t.ctx);

console.error("resolving…");
const rpc = createRpcClient({ url, concurrency: t.ctx.config.SOLANA_RPC_CONCURRENCY });
const options = {
  roundsForMs: SOAK_MIX ? ROUNDS_MS : 0,
  rpc,
  idls: loadIdls(t.ctx.paths.root),
  batchCalls: t.ctx.config.SOLANA_RPC_BATCH_CALLS,
  sampleRate: t.ctx.config.RESOLVE_SAMPLE_RATE,
};
const resolved: Record<string, number> = {};
const steps: Record<string, number> = {};
let runs = 0;
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const faultsAtStart = process.resourceUsage().minorPageFault;
for (let done = 0; done < ATTEMPTS && runs < 1_000; ) {
  const summary = await resolvePending(t.ctx, options);
  runs++;
  for (const [outcome, n] of Object.entries(summary.resolved)) {
    resolved[outcome] = (resolved[outcome] ?? 0) + n;
    done += n;
  }
  for (const [step, ms] of Object.entries(summary.stepsMs)) steps[step] = (steps[step] ?? 0) + ms;
  if (!summary.backlog && summary.nextRunInMs !== null && done < ATTEMPTS)
    await Bun.sleep(Math.min(summary.nextRunInMs, 1_000));
}
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
const cpuMicrosPerAttempt = (cpu.user + cpu.system) / ATTEMPTS;
// Minor page faults (memory the allocators gave back and took again, first touches): each costs the kernel ~1 µs or
// more.
const pageFaultsPerAttempt = (process.resourceUsage().minorPageFault - faultsAtStart) / ATTEMPTS;
const total = Object.values(resolved).reduce((a, b) => a + b, 0);
standIn.kill("SIGTERM");
await standIn.exited;
let rest = "";
for (;;) {
  const { value, done } = await lines.read();
  if (done) break;
  rest += decoder.decode(value);
}
const served = JSON.parse((firstLine.split("\n").slice(1).join("\n") + rest).trim().split("\n").pop()!) as {
  requests: number;
  calls: Record<string, number>;
};
await t.stop();
const stats = rpc.stats();
console.log(
  JSON.stringify({
    mix: SOAK_MIX ? "soak" : "default",
    attempts: ATTEMPTS,
    resolved: total,
    outcomes: resolved,
    runs,
    seconds: Number(seconds.toFixed(3)),
    attemptsPerSec: Math.round(total / seconds),
    cpuMicrosPerAttempt: Number(cpuMicrosPerAttempt.toFixed(1)),
    coresAt20000PerSec: Number(((cpuMicrosPerAttempt * 20_000) / 1e6).toFixed(2)),
    pageFaultsPerAttempt: Number(pageFaultsPerAttempt.toFixed(2)),
    rpcCalls: stats.calls,
    rpcRequests: stats.httpRequests,
    rpcCallsPer1000Attempts: Number(((stats.calls / ATTEMPTS) * 1000).toFixed(1)),
    rpcRequestsPer1000Attempts: Number(((stats.httpRequests / ATTEMPTS) * 1000).toFixed(2)),
    callsByMethod: served.calls,
    stepsMs: steps,
    loadAverage: loadavg().map((v) => Number(v.toFixed(2))),
  }),
);
process.exit(0);
