// bench resolve (issue 22): BENCH_ATTEMPTS (default 100,000) send attempts, 90% landed and 10%
// failed on chain, against the soak's stand-in mainnet provider (devkit/standin) running in a
// process of its own. The envelopes are ingested over HTTP and flushed (not timed); then the
// resolver runs, as the scheduler would, until every attempt is resolved: intake from the flushed
// parts, status look-ups, block times, transactions of the failures and of the success sample,
// decoding, recording (lake, signature index, control commit) all timed. Prints attemptsPerSec,
// rpcCallsPer1000Attempts (each element of a JSON-RPC batch is one call: providers bill calls),
// rpcRequestsPer1000Attempts, the calls per method, and the load average (the machine is shared).
import { spawn } from "bun";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { loadIdls } from "../src/chain/idl";
import { resolvePending } from "../src/chain/resolve";
import { createRpcClient } from "../src/chain/rpc";
import { flushSpool } from "../src/lake/flush-spool";
import { encodeBase58 } from "../src/shared/base58";
import { testServer } from "../test/helpers/server";
import { uniqueSignatures } from "../devkit/standin";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 100_000);
const ROOT = new URL("..", import.meta.url).pathname;

// The provider in its own process: its JSON (17 KB per transaction) is not the resolver's CPU.
const standIn = spawn(["bun", "devkit/bin/standin.ts", "--landed", "90", "--failed", "10", "--dropped", "0"], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
const lines = standIn.stdout.getReader();
const decoder = new TextDecoder();
let firstLine = "";
while (!firstLine.includes("\n")) {
  const { value, done } = await lines.read();
  if (done) throw new Error("the stand-in chain did not start");
  firstLine += decoder.decode(value);
}
const { url } = JSON.parse(firstLine.split("\n")[0]) as { url: string };
const height = (await (await fetch(url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getBlockHeight" }) })).json()) as { result: number };

const t = await testServer({ SOLANA_RPC_URL: url, INGEST_BURST: "100000000", INGEST_RATE_PER_SECOND: "100000000" });
const key = t.key("bench");
const signature = uniqueSignatures(1024);
const PROGRAMS = ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc"];
const payers = Array.from({ length: 500 }, () => encodeBase58(randomBytes(32)));
const blockhash = encodeBase58(randomBytes(32));
console.error(`ingesting ${ATTEMPTS.toLocaleString()} envelopes…`);
for (let start = 0; start < ATTEMPTS; start += 1000) {
  const envelopes = Array.from({ length: Math.min(1000, ATTEMPTS - start) }, (_, i) => {
    const n = start + i;
    return {
      sig: signature(n), program: PROGRAMS[n % 3], blockhash, lastValidBlockHeight: height.result + 150, sentAt: Date.now(), rpcHash: "a1b2c3d4e5f60718",
      rpcLabel: "helius", walletAdapter: "Phantom", kind: "send", preflightError: null, simulationLogs: [], payer: payers[n % payers.length], sdkVersion: "0.1.0",
      cuLimit: 200_000, cuPriceMicroLamports: 1000 + (n % 5000), ixPrefix: ["e517cb977ae3ad2a", "0c", "f8c69e91e17587c8"][n % 3],
    };
  });
  const response = await fetch(`${t.url}/v1/ingest`, { method: "POST", body: JSON.stringify({ apiKey: key, envelopes }) });
  if (response.status !== 202) throw new Error(`ingest answered ${response.status}`);
}
await t.server.spool!.seal();
await flushSpool(t.ctx);

console.error("resolving…");
const rpc = createRpcClient({ url, concurrency: t.ctx.config.SOLANA_RPC_CONCURRENCY });
const options = { rpc, idls: loadIdls(t.ctx.paths.root), batchCalls: t.ctx.config.SOLANA_RPC_BATCH_CALLS, sampleRate: t.ctx.config.RESOLVE_SAMPLE_RATE };
const resolved: Record<string, number> = {};
const steps: Record<string, number> = {};
let runs = 0;
const started = performance.now();
for (let done = 0; done < ATTEMPTS && runs < 1_000; ) {
  const summary = await resolvePending(t.ctx, options);
  runs++;
  for (const [outcome, n] of Object.entries(summary.resolved)) {
    resolved[outcome] = (resolved[outcome] ?? 0) + n;
    done += n;
  }
  for (const [step, ms] of Object.entries(summary.stepsMs)) steps[step] = (steps[step] ?? 0) + ms;
  if (!summary.backlog && summary.nextRunInMs !== null && done < ATTEMPTS) await Bun.sleep(Math.min(summary.nextRunInMs, 1_000));
}
const seconds = (performance.now() - started) / 1000;
const total = Object.values(resolved).reduce((a, b) => a + b, 0);
standIn.kill("SIGTERM");
await standIn.exited;
let rest = "";
for (;;) {
  const { value, done } = await lines.read();
  if (done) break;
  rest += decoder.decode(value);
}
const served = JSON.parse((firstLine.split("\n").slice(1).join("\n") + rest).trim().split("\n").pop()!) as { requests: number; calls: Record<string, number> };
await t.stop();
const stats = rpc.stats();
console.log(
  JSON.stringify({
    attempts: ATTEMPTS,
    resolved: total,
    outcomes: resolved,
    runs,
    seconds: Number(seconds.toFixed(3)),
    attemptsPerSec: Math.round(total / seconds),
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
