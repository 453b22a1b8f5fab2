// The SDK recognizes a durable-nonce transaction from its wire bytes: System AdvanceNonceAccount
// (instruction 4) first, whose first account is the nonce account it advances; its envelope carries
// that account, so the resolver can tell when the send can no longer land.
import { expect, test } from "bun:test";
import { Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import { Recorder } from "../../src/sdk/recorder";
import type { Transport } from "../../src/sdk/transport";
import { parseTransaction, targetProgram } from "../../src/sdk/wire";
import { type Envelope, envelopeSchema } from "../../src/shared/envelope";

const payer = Keypair.generate();
const nonce = Keypair.generate();
const recipient = Keypair.generate().publicKey;
const NONCE_VALUE = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";

function wire(withNonce: boolean): Uint8Array {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: NONCE_VALUE });
  if (withNonce)
    tx.add(SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }));
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1 }));
  tx.sign(payer);
  return tx.serialize();
}

test("a durable-nonce transaction: flagged, with the nonce account its first instruction advances", () => {
  const tx = parseTransaction(wire(true));
  expect(tx).toMatchObject({ nonce: true, nonceAccount: nonce.publicKey.toBase58(), blockhash: NONCE_VALUE });
  expect(targetProgram(tx, null)).toBe(SystemProgram.programId.toBase58()); // the transfer, not the advance
  expect(tx.instructions).toHaveLength(2);
});

test("a blockhash transaction has neither", () => {
  const tx = parseTransaction(wire(false));
  expect(tx.nonce).toBe(false);
  expect(tx.nonceAccount).toBeUndefined();
});

/** The envelopes a recorder builds from sends of these wire bytes, under a privacy setting. */
async function envelopesOf(bytes: Uint8Array[], privacy: "plain" | "hash"): Promise<Envelope[]> {
  const queued: Envelope[] = [];
  const transport = { enqueue: (envelope: Envelope) => queued.push(envelope), discard: () => {}, stats: {} };
  const recorder = new Recorder(
    { programs: null, privacy, salt: "salt", walletAdapter: () => "test", maxPending: 10 },
    transport as unknown as Transport,
  );
  const source = { rpcHash: "a1b2c3d4e5f60718", rpcLabel: "localhost", blockHeight: async () => 1_000 };
  for (const wireBytes of bytes)
    recorder.observe({
      source,
      sentAt: 1_763_700_000_000,
      wire: Buffer.from(wireBytes).toString("base64"),
      kind: "send",
      preflightError: null,
      logs: null,
    });
  await Bun.sleep(0);
  await recorder.settle();
  return queued;
}

test("the envelope of a durable-nonce send carries its nonce account; under privacy hash it does not", async () => {
  const [durable, plain] = await envelopesOf([wire(true), wire(false)], "plain");
  expect(durable).toMatchObject({ nonce: true, nonceAccount: nonce.publicKey.toBase58(), blockhash: NONCE_VALUE });
  expect(envelopeSchema.safeParse(durable).success).toBe(true);
  expect(plain.nonce).toBeUndefined();
  expect(plain.nonceAccount).toBeUndefined();
  const [hashed] = await envelopesOf([wire(true)], "hash");
  expect(hashed.nonce).toBe(true);
  expect(hashed.nonceAccount).toBeUndefined();
});
