// The SDK recognizes a durable-nonce transaction from its wire bytes: System AdvanceNonceAccount
// (instruction 4) first, whose first account is the nonce account it advances.
import { expect, test } from "bun:test";
import { Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import { parseTransaction, targetProgram } from "../../src/sdk/wire";

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
