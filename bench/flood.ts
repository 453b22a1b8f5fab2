// bench flood: one account names BENCH_PROGRAMS (default 30,000) distinct made-up programs, one envelope each
// (a browser's key with the program quota lifted, lastValidBlockHeight 1e12), while another account sends 10
// honest attempts of one program; the envelopes are ingested over HTTP and flushed (not timed). Then the resolver
// runs as the scheduler would until every attempt is decided, against a loopback provider that finds nothing
// (every send drops once its blockhash expires), the chain at 400 ms a block and a second of the clock per run
// while there is a backlog. Prints the runs it took; when the honest attempts were decided (runs, simulated
// seconds: BENCH_PROGRAMS=0 is the baseline); the process's peak RSS and JavaScript heap over the resolving; the
// provider's calls per send (each element of a JSON-RPC batch is one call) and status look-ups per send.

import { loadIdls } from "../src/chain/idl";
import { resolvePending } from "../src/chain/resolve";
import { createRpcClient } from "../src/chain/rpc";
import { createAccountKey } from "../src/control";
import { flushSpool } from "../src/lake/flush-spool";
import { advancingClock } from "../test/helpers/clock";
import { makeEnvelope, randomAddress } from "../test/helpers/envelopes";
import { testServer } from "../test/helpers/server";

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 30_000);
const HEIGHT = 300_000_000;
const clock = advancingClock();
/** Set when resolving starts: until then (ingest and flush, not simulated) the chain stands still. */
let startedAt: number | null = null;
/** The chain moves on a block every 400 ms of the (simulated) clock. */
const chainHeight = () => HEIGHT + (startedAt === null ? 0 : Math.floor((clock() - startedAt) / 400));
let calls = 0;
let signaturesLookedUp = 0;
const methods: Record<string, number> = {};
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = (await request.json()) as any;
    const answer = (call: { id: unknown; method: string; params?: any[] }) => {
      calls++;
      methods[call.method] = (methods[call.method] ?? 0) + 1;
      if (call.method === "getBlockHeight") return { jsonrpc: "2.0", id: call.id, result: chainHeight() };
      if (call.method === "getSignatureStatuses") signaturesLookedUp += (call.params![0] as string[]).length;
      if (call.method === "getSignatureStatuses")
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: { context: { slot: 1 }, value: (call.params![0] as string[]).map(() => null) },
        };
      return { jsonrpc: "2.0", id: call.id, result: null };
    };
    return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
  },
});

const t = await testServer(
  {
    SOLANA_RPC_URL: `http://127.0.0.1:${provider.port}`,
    ACCOUNT_PROGRAMS_PER_DAY: "0",
    INGEST_MAX_BATCH: "1000",
  },
  { clock },
);
const flood = createAccountKey(t.ctx.control, "flood", "ingest", Date.now()).key;
const honest = createAccountKey(t.ctx.control, "honest", "ingest", Date.now()).key;
const honestProgram = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
for (let sent = 0; sent < PROGRAMS; sent += 1000) {
  const envelopes = Array.from({ length: Math.min(1000, PROGRAMS - sent) }, () =>
    makeEnvelope({ program: randomAddress(), lastValidBlockHeight: 1e12, sentAt: clock() }),
  );
  const r = await t.ingest({ envelopes }, { "x-api-key": flood });
  if (r.status !== 202) throw new Error(`flood ingest: ${r.status} ${JSON.stringify(r.body)}`);
}
const honestSends = Array.from({ length: 10 }, () =>
  makeEnvelope({ program: honestProgram, lastValidBlockHeight: HEIGHT + 150, sentAt: clock() }),
);
const r = await t.ingest({ envelopes: honestSends }, { "x-api-key": honest });
if (r.status !== 202) throw new Error(`honest ingest: ${r.status}`);
await t.server.spool!.seal();
await flushSpool(t.ctx);
console.error(`ingested and flushed ${PROGRAMS} programs`);

const options = {
  rpc: createRpcClient({ url: `http://127.0.0.1:${provider.port}` }),
  idls: loadIdls(t.ctx.paths.root),
};
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
let peakHeap = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 20);
const started = performance.now();
startedAt = clock();
let runs = 0;
let honestDecidedAfterRuns: number | null = null;
let honestDecidedAfterSeconds: number | null = null;
const decided = async () =>
  (
    await t.ctx.duck
      .all<{ n: bigint }>(
        `SELECT count(*) AS n FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true) WHERE program = '${honestProgram}'`,
      )
      .catch(() => [{ n: 0n }])
  )[0].n;
for (;;) {
  const summary = await resolvePending(t.ctx, options);
  runs++;
  if (honestDecidedAfterRuns === null && Number(await decided()) === honestSends.length) {
    honestDecidedAfterRuns = runs;
    honestDecidedAfterSeconds = (clock() - startedAt) / 1000;
  }
  console.error(
    `run ${runs}: ${JSON.stringify(summary.resolved)} open ${summary.stillPending} backlog ${summary.backlog}, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
  );
  if (summary.stillPending === 0 && !summary.backlog) break;
  if (runs > 1_000) break;
  // The scheduler runs again at once while there is a backlog, else when the next attempt is due.
  clock.advance(summary.backlog ? 1_000 : Math.max(1_000, summary.nextRunInMs ?? 1_000));
}
clearInterval(sampler);
const sends = PROGRAMS + honestSends.length;
console.log(
  JSON.stringify({
    programs: PROGRAMS,
    runs,
    honestDecidedAfterRuns,
    honestDecidedAfterSeconds,
    seconds: Math.round(performance.now() - started) / 1000,
    peakRssMB: Math.round(peakRss / 2 ** 20),
    rssBeforeResolveMB: Math.round(rssBefore / 2 ** 20),
    peakHeapMB: Math.round(peakHeap / 2 ** 20),
    rpcCallsPerSend: Math.round((calls / sends) * 100) / 100,
    statusLookUpsPerSend: Math.round((signaturesLookedUp / sends) * 100) / 100,
    rpcCalls: methods,
  }),
);
await t.stop();
provider.stop();
