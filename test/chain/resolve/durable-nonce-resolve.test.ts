// Durable-nonce sends through the real resolver, their envelopes naming the nonce account (the SDK
// sends it): the nonce account is read from a LiteSVM chain (in process) through a loopback RPC. A
// send whose nonce another transaction advanced, never found, is dropped `nonce_advanced` with the
// account and both values; one that landed just after its first look-up (its own landing advanced the
// nonce) is found by the look-up made after the advance was seen: `landed`; one whose envelope did
// not name its account stays open, as before (unknown only after 30 minutes). A bad nonceAccount is a 400.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair, NONCE_ACCOUNT_LENGTH, SystemProgram, Transaction } from "@solana/web3.js";
import { LocalChain } from "../../../devkit/localnet/chain";
import { uiConfirmedTransaction } from "../../../devkit/localnet/txformat";
import { readNonceAccount } from "../../../src/chain/decode/durable-nonce";
import { loadIdls } from "../../../src/chain/idl";
import { resolvePending } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { encodeBase58 } from "../../../src/shared/base58";
import { advancingClock } from "../../helpers/clock";
import { makeEnvelope } from "../../helpers/envelopes";
import { startRecordedRpc } from "../../helpers/recorded-rpc";
import { ingestAndFlush } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

const chain = new LocalChain({ seed: 47 });
const payer = Keypair.generate();
const nonce = Keypair.generate();
const NONCE = nonce.publicKey.toBase58();
const SYSTEM = SystemProgram.programId.toBase58();
const clock = advancingClock();
/** The RPC's accounts: the nonce account's data as the chain holds it, refreshed by the test. */
const accounts: Record<string, Uint8Array> = {};
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

const storedNonce = () => readNonceAccount(chain.getAccount(NONCE)!.data)!.durableNonce;
const sigOf = (tx: Transaction) => encodeBase58(tx.signatures[0].signature!);

/** A transfer that uses the durable nonce: AdvanceNonceAccount first, signed against `value`. */
function nonceTransfer(value: string, lamports: number): Transaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: value });
  tx.add(SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }));
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }));
  tx.sign(payer);
  return tx;
}

/** The envelope the SDK sends for a durable-nonce transfer: the nonce value as its blockhash. */
const envelopeOf = (tx: Transaction, withAccount: boolean) =>
  makeEnvelope({
    sig: sigOf(tx),
    program: SYSTEM,
    blockhash: tx.recentBlockhash!,
    lastValidBlockHeight: 300_000_150,
    sentAt: clock(),
    nonce: true,
    ...(withAccount ? { nonceAccount: NONCE } : {}),
  });

beforeAll(async () => {
  chain.airdrop(payer.publicKey.toBase58(), 10_000_000_000n);
  const create = new Transaction({ feePayer: payer.publicKey, recentBlockhash: chain.latestBlockhash().blockhash });
  create.add(
    ...SystemProgram.createNonceAccount({
      fromPubkey: payer.publicKey,
      noncePubkey: nonce.publicKey,
      authorizedPubkey: payer.publicKey,
      lamports: Number(chain.minimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH)),
    }).instructions,
  );
  create.sign(payer, nonce);
  expect(chain.submit(create.serialize()).err).toBeNull();
  chain.advanceBlocks(2); // a nonce advances only past the blockhash it stores
  rpc = startRecordedRpc([], { blockHeight: 300_000_000, accounts });
  t = await testServer({ SOLANA_RPC_URL: rpc.url }, { clock });
});
afterAll(async () => {
  await t?.stop();
  rpc?.stop();
});

test("an envelope with a bad nonceAccount is a 400 naming the field", async () => {
  const response = await t.ingest({
    apiKey: t.key("acme"),
    envelopes: [makeEnvelope({ nonce: true, nonceAccount: "not-a-nonce-account" })],
  });
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe("schema_violation");
  expect(response.body.error.message).toStartWith("envelopes[0].nonceAccount:");
});

test("advanced nonce, never found: dropped nonce_advanced; landed meanwhile: landed; no account: still open", async () => {
  const signedAgainst = storedNonce();
  const lost = nonceTransfer(signedAgainst, 1_000_000);
  // Another transaction uses the same nonce first: the stored nonce advances, `lost` can never land.
  expect(chain.submit(nonceTransfer(signedAgainst, 2_000_000).serialize())).toMatchObject({ landed: true });
  expect(chain.submit(lost.serialize()).landed).toBe(false);
  chain.advanceBlocks(2);
  const advancedTo = storedNonce();
  const landing = nonceTransfer(advancedTo, 3_000_000);
  const unnamed = nonceTransfer(advancedTo, 4_000_000);
  await ingestAndFlush(t, [envelopeOf(lost, true), envelopeOf(landing, true), envelopeOf(unnamed, false)]);

  // `landing` lands between its first status look-up and the nonce read: the nonce moved on for both.
  const landed = chain.submit(landing.serialize());
  expect(landed).toMatchObject({ landed: true, err: null });
  accounts[NONCE] = chain.getAccount(NONCE)!.data;
  const options = { rpc: createRpcClient({ url: rpc.url }), idls: loadIdls(t.ctx.paths.root), sampleRate: 0 };
  const first = await resolvePending(t.ctx, options);
  expect(first.resolved).toEqual({ landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 });
  expect(first.stillPending).toBe(3);

  // The look-up made after the advance was seen decides: found, landed; still not found, dropped.
  rpc.add({ sig: sigOf(landing), result: uiConfirmedTransaction(chain.ledger.get(landed.signature)!, "json") });
  clock.advance(2_500);
  const second = await resolvePending(t.ctx, options);
  expect(second.resolved).toEqual({ landed: 1, failed_onchain: 0, dropped: 1, preflight: 0 });
  expect(second.stillPending).toBe(1); // without its account: judged by time only, as before

  const drop = await t.get(`/v1/diagnose-drop/${sigOf(lost)}`);
  expect(drop.body).toMatchObject({ outcome: "dropped", dropClass: "nonce_advanced" });
  expect(drop.body.evidence.slice(0, 3).map((e: { kind: string; value: unknown }) => [e.kind, e.value])).toEqual([
    ["nonce_account", NONCE],
    ["nonce_signed", signedAgainst],
    ["nonce_now", storedNonce()],
  ]);
});
