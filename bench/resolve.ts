// bench resolve: real transactions on the LiteSVM local chain (90% landed, 10% failed on chain),
// ingested and flushed, then one resolve run against the chain. Prints rpcRequestsPer1000Attempts
// (HTTP requests the resolver made; target ≤ 100 at a 10% failure rate) and attemptsPerSec.
import { loadIdls } from "../src/chain/idl";
import { startLocalnet } from "../devkit/localnet";
import { resolvePending } from "../src/chain/resolve";
import { createRpcClient } from "../src/chain/rpc";
import { runTraffic, submitEnvelopes } from "../devkit/simulate";
import { flushSpool } from "../src/lake/flush-spool";
import { testServer } from "../test/helpers/server";

const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 2000);
const chain = await startLocalnet({ blockTimeMs: 0 });
const t = await testServer({ SOLANA_RPC_URL: chain.url, INGEST_BURST: "10000000" });
console.error(`driving ${ATTEMPTS} real transactions…`);
const traffic = await runTraffic({
  rpcUrl: chain.url,
  attempts: ATTEMPTS,
  seed: 3,
  providers: [{ label: "alpha", dropRate: 0 }],
  mix: { sol_transfer: 90, sol_insufficient: 10 },
  payers: 50,
  expireAtEnd: false,
});
const envelopes = traffic.attempts.map((a) => a.envelope);
await submitEnvelopes(t.url, t.key("bench"), envelopes);
await t.server.spool!.seal();
await flushSpool(t.ctx);

const rpc = createRpcClient({ url: chain.url, concurrency: 4 });
const started = performance.now();
const summary = await resolvePending(t.ctx, { rpc, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 0 });
const seconds = (performance.now() - started) / 1000;
const resolved = Object.values(summary.resolved).reduce((a, b) => a + b, 0);
const failed = traffic.attempts.filter((a) => a.truth.outcome === "failed_onchain").length;
await t.stop();
await chain.stop();
console.log(
  JSON.stringify({
    attempts: ATTEMPTS,
    resolved,
    failureRate: Number((failed / ATTEMPTS).toFixed(3)),
    rpcRequests: rpc.stats().httpRequests,
    rpcCalls: rpc.stats().calls,
    rpcRequestsPer1000Attempts: Number(((rpc.stats().httpRequests / ATTEMPTS) * 1000).toFixed(2)),
    seconds: Number(seconds.toFixed(3)),
    attemptsPerSec: Math.round(resolved / seconds),
  }),
);
process.exit(0);
