// Benchmark: what the SDK costs a dapp's send call. The same call (web3.js Connection
// sendRawTransaction, and kit rpc.sendTransaction(...).send()) is timed with and without the SDK,
// interleaved in the same run, against an RPC answered in memory (a web3.js `fetch` option, a kit
// transport) so the RPC round trip does not bury microseconds in noise. Between calls the loop
// yields to the event loop, so the SDK's deferred work (parsing, hashing, encoding, batching) runs
// outside the timed window as it would in a dapp; that work is timed separately, per envelope.
// Also prints the browser bundle's size (packages/sdk/dist/txray.min.js, minified and gzip).
// Last line: { web3: { plainMedianUs, wrappedMedianUs, overheadUs }, kit: {...}, backgroundUsPerEnvelope,
// bundleBytes, bundleGzipBytes, targetOverheadUs: 50, targetGzipBytes: 15360 }.
// BENCH_CALLS (default 20,000 per side).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSolanaRpcFromTransport } from "@solana/kit";
import { Connection, Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import { createTxray } from "../src/sdk";

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const payer = Keypair.generate();
const BLOCKHASH = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";

function signedTransfer(i: number) {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH });
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payer.publicKey, lamports: i + 1 }));
  tx.sign(payer);
  return tx;
}
// A pool of distinct signed transactions, reused round-robin (signing is not what is measured).
const pool = Array.from({ length: 256 }, (_, i) => signedTransfer(i));
const wires = pool.map((tx) => tx.serialize());
const base64 = wires.map((bytes) => bytes.toString("base64"));

// RPC answered in memory: the signature (any string does for the dapp's call), no network.
// (getBlockHeight, which the SDK asks off the send path for a blockhash it did not see fetched, gets a height.)
const answer = (id: unknown, method: string) =>
  `{"jsonrpc":"2.0","result":${method === "getBlockHeight" ? "289000000" : '"5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL"'},"id":${JSON.stringify(id)}}`;
const memoryFetch = (async (_url: string, init: { body: string }) => {
  const request = JSON.parse(init.body);
  return new Response(answer(request.id, request.method), { headers: { "content-type": "application/json" } });
}) as any;
const web3 = () =>
  new Connection("https://mainnet.helius-rpc.com/?api-key=bench", {
    commitment: "confirmed",
    fetch: memoryFetch,
    disableRetryOnRateLimit: true,
  });
const kitTransport = (async ({ payload }: { payload: { id: unknown; method: string } }) =>
  JSON.parse(answer(payload.id, payload.method))) as any;
const kit = () => createSolanaRpcFromTransport(kitTransport);

// The service accepts everything at once: the SDK's own HTTP is not what the send path pays for.
const txray = createTxray({
  apiKey: "txr_live_bench",
  endpoint: "http://127.0.0.1:9",
  fetch: async () => new Response('{"accepted":50}', { status: 202 }),
  walletAdapter: "Phantom",
  maxQueue: 1_000_000,
});
const plainConnection = web3();
const wrappedConnection = txray.instrument(web3());
const plainRpc = kit();
const wrappedRpc = txray.instrumentRpc(kit(), "https://mainnet.helius-rpc.com/?api-key=bench");

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function measure(name: string, plain: (i: number) => Promise<unknown>, wrapped: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 2000; i++) {
    await plain(i);
    await wrapped(i);
    if (i % 50 === 0) await yieldToLoop();
  }
  const plainNs: number[] = [];
  const wrappedNs: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    // Alternate which side goes first, so drift and cache effects fall on both.
    for (const side of i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      const started = Bun.nanoseconds();
      await (side === 0 ? plain(i) : wrapped(i));
      (side === 0 ? plainNs : wrappedNs).push(Bun.nanoseconds() - started);
      await yieldToLoop(); // the SDK's deferred work runs here, outside the timed window
    }
  }
  const result = {
    plainMedianUs: round(median(plainNs) / 1000),
    wrappedMedianUs: round(median(wrappedNs) / 1000),
    overheadUs: round((median(wrappedNs) - median(plainNs)) / 1000),
  };
  console.error(
    `${name}: plain ${result.plainMedianUs} µs, with the SDK ${result.wrappedMedianUs} µs, overhead ${result.overheadUs} µs (median of ${CALLS} calls each)`,
  );
  return result;
}

const round = (value: number) => Math.round(value * 100) / 100;

const web3Result = await measure(
  "web3.js sendRawTransaction",
  (i) => plainConnection.sendRawTransaction(wires[i % wires.length], { skipPreflight: true }),
  (i) => wrappedConnection.sendRawTransaction(wires[i % wires.length], { skipPreflight: true }),
);
const kitResult = await measure(
  "kit sendTransaction",
  (i) => plainRpc.sendTransaction(base64[i % base64.length] as any, { encoding: "base64", skipPreflight: true }).send(),
  (i) =>
    wrappedRpc.sendTransaction(base64[i % base64.length] as any, { encoding: "base64", skipPreflight: true }).send(),
);
await txray.flush();
const observed = txray.stats();
console.error(`envelopes built and sent: ${observed.sent} (skipped ${observed.skipped}, dropped ${observed.dropped})`);

// The deferred work alone: N observations turned into envelopes and batched (block height known).
const background = createTxray({
  apiKey: "txr_live_bench",
  endpoint: "http://127.0.0.1:9",
  fetch: async () => new Response("{}", { status: 202 }),
  maxQueue: 1_000_000,
  batchSize: 1000,
});
const fake = background.instrument({
  rpcEndpoint: "https://mainnet.helius-rpc.com",
  _rpcRequest: async (method: string) =>
    method === "getLatestBlockhash"
      ? { result: { context: { slot: 1 }, value: { blockhash: BLOCKHASH, lastValidBlockHeight: 100 } } }
      : { result: "x" },
} as any) as any;
await fake._rpcRequest("getLatestBlockhash", []);
const N = Math.min(CALLS, 20_000);
for (let i = 0; i < N; i++)
  await fake._rpcRequest("sendTransaction", [base64[i % base64.length], { encoding: "base64" }]);
const started = Bun.nanoseconds();
await background.flush();
const backgroundUsPerEnvelope = round((Bun.nanoseconds() - started) / 1000 / N);
console.error(
  `deferred work: ${backgroundUsPerEnvelope} µs per envelope (parse, hash, build, batch, JSON), ${background.stats().sent} sent`,
);

const bundle = readFileSync(join(import.meta.dir, "../packages/sdk/dist/txray.min.js"));
const bundleGzipBytes = Bun.gzipSync(bundle).length;
console.error(`browser bundle: ${bundle.length} bytes minified, ${bundleGzipBytes} bytes gzip (budget 15,360)`);
await txray.close();
await background.close();
console.log(
  JSON.stringify({
    web3: web3Result,
    kit: kitResult,
    backgroundUsPerEnvelope,
    bundleBytes: bundle.length,
    bundleGzipBytes,
    targetOverheadUs: 50,
    targetGzipBytes: 15 * 1024,
  }),
);
