// Issue 10's end-to-end check: a real web3.js Connection and a real kit RPC on the LiteSVM local
// chain, wrapped by the SDK, send a landed transfer, an on-chain failure (skipPreflight), a
// preflight failure and a versioned transaction; the running txray server receives complete,
// correct envelopes (accepted by its validator), and after flush and resolve, why/{sig} tells each
// attempt's truth.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { flushSpool } from "../../src/lake/flush-spool";
import { createTxray, SDK_VERSION, type Txray } from "../../src/sdk";
import { encodeBase58 } from "../../src/shared/base58";
import { envelopeSchema } from "../../src/shared/envelope";
import { rpcHash } from "../../src/shared/rpc-identity";
import { resolveUntilSettled } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";
import { recordingFetch } from "./support";

let chain: Localnet;
let t: TestServer;
let txray: Txray;
let recorder: ReturnType<typeof recordingFetch>;
const sigs: Record<string, string> = {};
const lastValid: Record<string, number> = {};
let heightAtKitSend = 0;
let web3Payer = "";
const HUGE = 1_000_000_000_000_000;
const SYSTEM = "11111111111111111111111111111111";

function fundedKeypair(lamports = 5 * LAMPORTS_PER_SOL) {
  const keypair = Keypair.generate();
  chain.airdrop(keypair.publicKey.toBase58(), lamports);
  return keypair;
}

function kitTransfer(from: string, to: string, amount: bigint) {
  const data = new Uint8Array(12);
  new DataView(data.buffer).setUint32(0, 2, true);
  new DataView(data.buffer).setBigUint64(4, amount, true);
  return {
    programAddress: address(SYSTEM),
    accounts: [
      { address: address(from), role: AccountRole.WRITABLE_SIGNER },
      { address: address(to), role: AccountRole.WRITABLE },
    ],
    data,
  };
}

beforeAll(async () => {
  chain = await startLocalnet({ blockTimeMs: 0 });
  t = await testServer({ SOLANA_RPC_URL: chain.url });
  recorder = recordingFetch();
  txray = createTxray({
    apiKey: t.key("dapp"),
    endpoint: t.url,
    walletAdapter: "Phantom",
    fetch: recorder.fetch,
    flushIntervalMs: 60_000,
  });
  const connection = txray.instrument(new Connection(chain.url, { commitment: "confirmed", wsEndpoint: chain.wsUrl }));
  expect(connection).toBeInstanceOf(Connection);
  const payer = fundedKeypair();
  web3Payer = payer.publicKey.toBase58();
  const to = Keypair.generate().publicKey;
  const transfer = (lamports: number) =>
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports });

  // web3.js: a landed legacy transfer through sendAndConfirmTransaction.
  sigs.web3Landed = await sendAndConfirmTransaction(connection, new Transaction().add(transfer(1_000_000)), [payer]);
  // web3.js: an on-chain failure sent with skipPreflight.
  sigs.web3Failed = await connection.sendTransaction(new Transaction().add(transfer(HUGE)), [payer], {
    skipPreflight: true,
    maxRetries: 2,
  });
  // web3.js: a preflight failure; the envelope still carries the signed transaction's signature.
  const refused = new Transaction().add(transfer(HUGE + 1));
  const error = await connection.sendTransaction(refused, [payer]).catch((e) => e);
  expect(error).toBeInstanceOf(SendTransactionError);
  sigs.web3Preflight = encodeBase58(refused.signature!);
  // web3.js: a versioned (v0) transaction with Compute Budget instructions, its blockhash fetched
  // through the instrumented connection.
  const latest = await connection.getLatestBlockhash();
  lastValid.web3Versioned = latest.lastValidBlockHeight;
  chain.advanceBlocks(3); // the SDK must report the blockhash's own expiry, not today's height + 150
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: latest.blockhash,
    instructions: [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 5_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 12_345 }),
      transfer(2_000_000),
    ],
  }).compileToV0Message();
  const v0 = new VersionedTransaction(message);
  v0.sign([payer]);
  sigs.web3Versioned = await connection.sendTransaction(v0, { maxRetries: 0 });

  // kit: landed, on-chain failure, preflight failure; the blockhash comes from elsewhere (the chain
  // itself), so the SDK falls back to the block height + 150.
  const rpc = txray.instrumentRpc(createSolanaRpc(chain.url), chain.url);
  const kitPayerKeys = fundedKeypair();
  const signer = await createKeyPairSignerFromBytes(kitPayerKeys.secretKey);
  const recipient = Keypair.generate().publicKey.toBase58();
  const plainRpc = createSolanaRpc(chain.url);
  const kitSend = async (amount: bigint, config: Record<string, unknown>, blockhashFrom = rpc) => {
    const { value } = await blockhashFrom.getLatestBlockhash().send();
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(signer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(value, m),
        (m) => appendTransactionMessageInstructions([kitTransfer(signer.address, recipient, amount)], m),
      ),
    );
    const sig = getSignatureFromTransaction(tx);
    const result = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64", ...config } as any)
      .send()
      .catch((e: unknown) => e);
    return { sig, result };
  };
  // This blockhash comes from an uninstrumented RPC, and blocks pass before the send: the SDK
  // falls back to the block height at send time + 150.
  const kitLandedBlockhash = (await plainRpc.getLatestBlockhash().send()).value;
  chain.advanceBlocks(2);
  heightAtKitSend = chain.chain.blockHeight;
  expect(Number(kitLandedBlockhash.lastValidBlockHeight)).toBeLessThan(heightAtKitSend + 150);
  const kitLanded = await kitSend(3_000_000n, {}, plainRpc);
  expect(kitLanded.result).toBe(kitLanded.sig);
  sigs.kitLanded = kitLanded.sig;
  const kitFailed = await kitSend(BigInt(HUGE), { skipPreflight: true, maxRetries: 3n });
  expect(kitFailed.result).toBe(kitFailed.sig);
  sigs.kitFailed = kitFailed.sig;
  const kitPreflight = await kitSend(BigInt(HUGE) + 1n, {});
  expect(kitPreflight.result).toBeInstanceOf(Error);
  sigs.kitPreflight = kitPreflight.sig;

  await txray.flush();
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const summary = await resolveUntilSettled(t.ctx, {
    rpc: createRpcClient({ url: chain.url }),
    idls: loadIdls(t.ctx.paths.root),
    recheckDelayMs: 20,
  });
  expect(summary.stillPending).toBe(0);
}, 60_000);

afterAll(async () => {
  await txray?.close();
  await t?.stop();
  await chain?.stop();
});

const envelopeOf = (sig: string) => recorder.envelopes().filter((e) => e.sig === sig);

describe("envelopes the server receives", () => {
  test("one envelope per attempt, each valid under the wire contract, all accepted", () => {
    const envelopes = recorder.envelopes();
    expect(envelopes.length).toBe(7);
    for (const envelope of envelopes) expect(envelopeSchema.safeParse(envelope).success).toBe(true);
    for (const sig of Object.values(sigs)) expect(envelopeOf(sig).length).toBe(1);
    expect(txray.stats()).toMatchObject({ sent: 7, queued: 0, dropped: 0, rejected: 0 });
    // The key travels in the body (docs/sdk.md), so sendBeacon can carry it.
    for (const body of recorder.bodies) expect(body.apiKey).toMatch(/^txr_live_/);
  });

  test("every required envelope field, filled from what the SDK saw", () => {
    const [landed] = envelopeOf(sigs.web3Landed);
    const payer = landed.payer;
    expect(landed).toMatchObject({
      sig: sigs.web3Landed,
      program: SYSTEM,
      rpcHash: rpcHash(chain.url),
      rpcLabel: "localhost",
      walletAdapter: "Phantom",
      kind: "send",
      preflightError: null,
      simulationLogs: [],
      sdkVersion: SDK_VERSION,
      skipPreflight: false,
    });
    expect(typeof landed.blockhash).toBe("string");
    // The blockhash came from getLatestBlockhash on this connection: its own expiry is reported.
    expect(landed.lastValidBlockHeight).toBe(900 + 150);
    expect(Math.abs(landed.sentAt - Date.now())).toBeLessThan(60_000);
    expect(payer).toBe(web3Payer);
  });

  test("skipPreflight, maxRetries and the Compute Budget requests are reported", () => {
    expect(envelopeOf(sigs.web3Failed)[0]).toMatchObject({ kind: "send", skipPreflight: true, maxRetries: 2 });
    const [versioned] = envelopeOf(sigs.web3Versioned);
    expect(versioned).toMatchObject({
      kind: "send",
      program: SYSTEM,
      cuLimit: 5_000,
      cuPriceMicroLamports: 12_345,
      maxRetries: 0,
    });
    expect(versioned.ixPrefix).toMatch(/^02000000[0-9a-f]{8}$/); // System Transfer (u32 2) and the low bytes of its lamports
    expect(envelopeOf(sigs.kitFailed)[0]).toMatchObject({ kind: "send", skipPreflight: true, maxRetries: 3 });
  });

  test("preflight failures carry the signature, the RPC's error and its simulation logs", () => {
    for (const sig of [sigs.web3Preflight, sigs.kitPreflight]) {
      const [preflight] = envelopeOf(sig);
      expect(preflight.kind).toBe("preflight");
      expect(preflight.preflightError).toContain("Transaction simulation failed");
      expect(preflight.preflightError).toContain('"InstructionError":[0,{"Custom":1}]');
      expect(preflight.simulationLogs.length).toBeGreaterThan(0);
      expect(preflight.simulationLogs.join("\n")).toContain("11111111111111111111111111111111");
    }
  });

  test("lastValidBlockHeight: what getLatestBlockhash said, else the block height at send + 150", () => {
    expect(envelopeOf(sigs.web3Versioned)[0].lastValidBlockHeight).toBe(lastValid.web3Versioned);
    expect(envelopeOf(sigs.kitLanded)[0].lastValidBlockHeight).toBe(heightAtKitSend + 150);
    // kit's own getLatestBlockhash through the instrumented RPC is remembered too.
    expect(envelopeOf(sigs.kitFailed)[0].lastValidBlockHeight).toBe(heightAtKitSend + 150);
  });
});

describe("why/{sig} answers every attempt after flush and resolve", () => {
  const cases: [string, string, number | null][] = [
    ["web3Landed", "landed", null],
    ["web3Failed", "failed_onchain", 1],
    ["web3Preflight", "preflight", 1],
    ["web3Versioned", "landed", null],
    ["kitLanded", "landed", null],
    ["kitFailed", "failed_onchain", 1],
    ["kitPreflight", "preflight", 1],
  ];
  for (const [name, outcome, errCode] of cases) {
    test(`${name}: ${outcome}`, async () => {
      const response = await t.get(`/v1/why/${sigs[name]}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ sig: sigs[name], outcome, program: SYSTEM, errCode });
      if (outcome !== "landed") expect(response.body.errName).toBe("ResultWithNegativeLamports");
    });
  }
});
