// The dapp's calls are untouched: the same results and the same thrown errors (class and message)
// with and without the SDK, and a dead, slow or 429-answering txray service never throws into,
// blocks or slows a send (no timing assertions: a send must resolve while the slow service still
// holds the SDK's request). The SDK's own failures (a throwing fetch, a throwing walletAdapter
// getter, bytes it cannot parse) never reach the dapp either.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSolanaRpc } from "@solana/kit";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  VersionedTransaction,
} from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { createTxray, type Txray } from "../../src/sdk";
import { encodeBase58 } from "../../src/shared/base58";
import { deadUrl, fakeIngest } from "./support";

let chain: Localnet;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  chain = await startLocalnet({ blockTimeMs: 0 });
});
afterAll(async () => {
  for (const close of closers) await close();
  await chain.stop();
});

function sdk(options: Parameters<typeof createTxray>[0]): Txray {
  const txray = createTxray({ apiKey: "txr_live_test", onWarning: () => {}, flushTimeoutMs: 300, ...options });
  closers.push(() => txray.close());
  return txray;
}

function payer() {
  const keypair = Keypair.generate();
  chain.airdrop(keypair.publicKey.toBase58(), 5 * LAMPORTS_PER_SOL);
  return keypair;
}

function signedTransfer(from: Keypair, lamports: number) {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: chain.chain.latestBlockhash().blockhash });
  tx.add(
    SystemProgram.transfer({
      fromPubkey: from.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: lamports < 1e9 ? 1_000_000 + lamports : lamports,
    }),
  );
  tx.sign(from);
  return tx;
}

const outcome = async (call: () => Promise<unknown>) => {
  try {
    return { ok: true as const, value: await call() };
  } catch (error) {
    const e = error as Error;
    return {
      ok: false as const,
      class: e?.constructor?.name,
      message: e?.message,
      logs: (e as any)?.logs,
      context: (e as any)?.context,
    };
  }
};

describe("results and errors are identical with and without the SDK", () => {
  test("web3.js: reads, a landed send, a preflight failure, an on-chain failure, bad arguments, unparsable bytes", async () => {
    const plain = new Connection(chain.url, "confirmed");
    const wrapped = sdk({ endpoint: deadUrl() }).instrument(new Connection(chain.url, "confirmed"));
    expect(wrapped).toBeInstanceOf(Connection);
    const from = payer();

    expect(await wrapped.getBalance(from.publicKey)).toBe(await plain.getBalance(from.publicKey));
    expect(await wrapped.getLatestBlockhash()).toEqual(await plain.getLatestBlockhash());

    const landed = signedTransfer(from, 1_000);
    expect(await wrapped.sendRawTransaction(landed.serialize())).toBe(encodeBase58(landed.signature!));
    const onchain = signedTransfer(from, 1e18);
    expect(await wrapped.sendRawTransaction(onchain.serialize(), { skipPreflight: true })).toBe(
      encodeBase58(onchain.signature!),
    );

    // The same refused bytes through both: same class, message and logs (the chain state is unchanged by a failed preflight).
    const refused = signedTransfer(from, 1e18 + 1).serialize();
    const plainError = await outcome(() => plain.sendRawTransaction(refused));
    expect(plainError.ok).toBe(false);
    expect(await outcome(() => wrapped.sendRawTransaction(refused))).toEqual(plainError);
    // Misuse and garbage: web3.js's own errors come through untouched; the SDK cannot parse them and stays silent.
    const misuse = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: from.publicKey, lamports: 1 }),
    );
    expect(await outcome(() => wrapped.sendTransaction(misuse as any, undefined as any))).toEqual(
      await outcome(() => plain.sendTransaction(misuse as any, undefined as any)),
    );
    expect(await outcome(() => wrapped.sendEncodedTransaction("AAAA"))).toEqual(
      await outcome(() => plain.sendEncodedTransaction("AAAA")),
    );
    // A failed simulation returns the same value.
    const unsigned = new VersionedTransaction(signedTransfer(from, 1e18 + 2).compileMessage());
    const simulated = await wrapped.simulateTransaction(unsigned, { sigVerify: false });
    expect(simulated).toEqual(await plain.simulateTransaction(unsigned, { sigVerify: false }));
    expect(simulated.value.err).not.toBeNull();
  });

  test("web3.js: an RPC that is down fails the same way", async () => {
    const rpcUrl = deadUrl();
    const plain = new Connection(rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
    const wrapped = sdk({ endpoint: deadUrl() }).instrument(
      new Connection(rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true }),
    );
    const bytes = signedTransfer(payer(), 5).serialize();
    const expected = await outcome(() => plain.sendRawTransaction(bytes));
    expect(expected.ok).toBe(false);
    expect(await outcome(() => wrapped.sendRawTransaction(bytes))).toEqual(expected);
  });

  test("kit: a landed send, a preflight failure (same SolanaError code, context and message), a simulation", async () => {
    const plain = createSolanaRpc(chain.url);
    const wrapped = sdk({ endpoint: deadUrl() }).instrumentRpc(createSolanaRpc(chain.url), chain.url);
    const from = payer();
    expect(await wrapped.getBalance(from.publicKey.toBase58() as any).send()).toEqual(
      await plain.getBalance(from.publicKey.toBase58() as any).send(),
    );
    const wire = (tx: Transaction) => tx.serialize().toString("base64") as any;
    const landed = signedTransfer(from, 2_000);
    expect(await wrapped.sendTransaction(wire(landed), { encoding: "base64" }).send()).toBe(
      encodeBase58(landed.signature!) as any,
    );
    const refused = wire(signedTransfer(from, 1e18));
    const expected = await outcome(() => plain.sendTransaction(refused, { encoding: "base64" }).send());
    expect(expected.ok).toBe(false);
    expect(await outcome(() => wrapped.sendTransaction(refused, { encoding: "base64" }).send())).toEqual(expected);
    const simulation = (rpc: typeof plain) =>
      rpc.simulateTransaction(refused, { encoding: "base64", sigVerify: true }).send();
    const simulated = await simulation(wrapped);
    expect({ ...simulated, context: null }).toEqual({ ...(await simulation(plain)), context: null });
  });
});

describe("a txray service that is dead, slow or rate limiting never reaches the dapp", () => {
  test("dead: sends succeed, the queue is bounded (oldest dropped, counted), flush and close resolve", async () => {
    const txray = sdk({ endpoint: deadUrl(), maxQueue: 3, flushTimeoutMs: 1000 }); // room for a failed request and its retry on a loaded machine
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    const from = payer();
    const sigs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const tx = signedTransfer(from, 100 + i);
      sigs.push(await connection.sendRawTransaction(tx.serialize()));
      expect(sigs[i]).toBe(encodeBase58(tx.signature!));
    }
    await txray.flush();
    const stats = txray.stats();
    expect(stats.queued).toBe(3);
    expect(stats.dropped).toBe(2);
    expect(stats.sent).toBe(0);
    expect(stats.retries).toBeGreaterThanOrEqual(1);
    await txray.close();
  });

  test("slow: a send resolves while the service still holds the SDK's request", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let answered = false;
    const service = fakeIngest(async () => {
      await gate;
      answered = true;
      return Response.json({ accepted: 1 }, { status: 202 });
    });
    closers.push(() => service.stop());
    const txray = sdk({ endpoint: service.url, batchSize: 1, flushTimeoutMs: 200 });
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    const from = payer();
    await connection.sendRawTransaction(signedTransfer(from, 300).serialize());
    // Wait until the service holds the SDK's first request.
    while (service.requests.length === 0) await Bun.sleep(5);
    const second = signedTransfer(from, 301);
    expect(await connection.sendRawTransaction(second.serialize())).toBe(encodeBase58(second.signature!));
    expect(answered).toBe(false);
    await txray.flush(); // bounded: resolves although the service has not answered
    expect(answered).toBe(false);
    // The held request's envelope is not delivered: it still counts as queued, beside the second one.
    expect(txray.stats()).toMatchObject({ queued: 2, sent: 0 });
    release();
    for (const deadline = Date.now() + 10_000; txray.stats().sent < 2 && Date.now() < deadline; ) await txray.flush();
    expect(txray.stats()).toMatchObject({ queued: 0, sent: 2 });
  });

  test("429 with Retry-After: sends succeed, the batch is kept and not retried before the service allows it", async () => {
    const service = fakeIngest(
      () =>
        new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), {
          status: 429,
          headers: { "retry-after": "3600" },
        }),
    );
    closers.push(() => service.stop());
    const txray = sdk({ endpoint: service.url, batchSize: 1, flushTimeoutMs: 300 });
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    const tx = signedTransfer(payer(), 400);
    expect(await connection.sendRawTransaction(tx.serialize())).toBe(encodeBase58(tx.signature!));
    await txray.flush();
    await txray.flush();
    expect(service.requests.length).toBe(1);
    expect(service.requests[0].envelopes[0].sig).toBe(encodeBase58(tx.signature!));
    expect(txray.stats()).toMatchObject({ queued: 1, sent: 0, retries: 1, dropped: 0 });
  });

  test("5xx then 202: the batch is retried and delivered once", async () => {
    let calls = 0;
    const service = fakeIngest(() =>
      ++calls === 1
        ? new Response("down", { status: 503, headers: { "retry-after": "0" } })
        : Response.json({ accepted: 1 }, { status: 202 }),
    );
    closers.push(() => service.stop());
    const txray = sdk({ endpoint: service.url, batchSize: 1, flushTimeoutMs: 5000 });
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    const tx = signedTransfer(payer(), 500);
    await connection.sendRawTransaction(tx.serialize());
    await txray.flush();
    expect(service.requests.map((r) => r.envelopes[0].sig)).toEqual([
      encodeBase58(tx.signature!),
      encodeBase58(tx.signature!),
    ]);
    expect(txray.stats()).toMatchObject({ queued: 0, sent: 1, retries: 1 });
  });

  test("400/401: the batch is discarded (it can never succeed) and counted", async () => {
    const service = fakeIngest(() =>
      Response.json({ error: { code: "unauthorized", message: "bad key" } }, { status: 401 }),
    );
    closers.push(() => service.stop());
    const warnings: string[] = [];
    const txray = createTxray({
      apiKey: "txr_live_wrong",
      endpoint: service.url,
      batchSize: 1,
      flushTimeoutMs: 1000,
      onWarning: (m) => warnings.push(m),
    });
    closers.push(() => txray.close());
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    await connection.sendRawTransaction(signedTransfer(payer(), 600).serialize());
    await txray.flush();
    expect(txray.stats()).toMatchObject({ queued: 0, sent: 0, rejected: 1 });
    expect(warnings.join("\n")).toContain("401");
    expect(warnings.join("\n")).not.toContain("txr_live_wrong");
  });

  test("the SDK's own failures: a throwing fetch and a throwing walletAdapter getter", async () => {
    const txray = sdk({
      endpoint: "http://127.0.0.1:9",
      fetch: (() => {
        throw new Error("fetch exploded");
      }) as any,
      walletAdapter: () => {
        throw new Error("no wallet");
      },
      flushTimeoutMs: 300,
    });
    const connection = txray.instrument(new Connection(chain.url, "confirmed"));
    const tx = signedTransfer(payer(), 700);
    expect(await connection.sendRawTransaction(tx.serialize())).toBe(encodeBase58(tx.signature!));
    await txray.flush();
    expect(txray.stats().queued).toBe(1);
  });

  test("bad options are refused at creation, not at send time", () => {
    expect(() => createTxray({ privacy: "hash" })).toThrow(TypeError);
    expect(() => createTxray({ endpoint: "not a url" })).toThrow(TypeError);
    expect(() => createTxray({ batchSize: 0 })).toThrow(TypeError);
  });
});
