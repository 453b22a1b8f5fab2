// Durable-nonce attempts on the LiteSVM local chain (in process): one whose nonce another
// transaction advanced never landed and can never land (dropped, nonce_advanced, with the account
// and both nonce values); one signed against the current nonce lands, and is recognized as a
// durable-nonce transaction from its first instruction even when its envelope did not say so.

import { beforeAll, expect, test } from "bun:test";
import { Keypair, NONCE_ACCOUNT_LENGTH, SystemProgram, Transaction } from "@solana/web3.js";
import { LocalChain } from "../../../devkit/localnet/chain";
import { uiConfirmedTransaction } from "../../../devkit/localnet/txformat";
import { durableNonceOf, readNonceAccount } from "../../../src/chain/decode/durable-nonce";
import { loadIdls } from "../../../src/chain/idl";
import { nonceAdvancedDrop, readNonceAccounts } from "../../../src/chain/resolve/lifetime";
import { dropped, resolveFromTransaction } from "../../../src/chain/resolve/outcomes";
import type { Attempt } from "../../../src/chain/resolve/types";
import type { RpcClient } from "../../../src/chain/rpc";
import { encodeBase58 } from "../../../src/shared/base58";

const chain = new LocalChain({ seed: 46 });
const payer = Keypair.generate();
const nonce = Keypair.generate();
const NONCE = nonce.publicKey.toBase58();
const IDL_DIR = "/nonexistent/txray-durable-nonce-test"; // no IDLs: built-in names only

/** getMultipleAccounts answered from the local chain, as a node answers it (base64 data, owner). */
const rpc = {
  call: async (method: string, params?: unknown[]) => {
    expect(method).toBe("getMultipleAccounts");
    const keys = params![0] as string[];
    return {
      value: keys.map((key) => {
        const account = chain.getAccount(key);
        return account && { data: [Buffer.from(account.data).toString("base64"), "base64"], owner: account.owner };
      }),
    };
  },
  batch: async () => [],
  stats: () => ({ httpRequests: 0, calls: 0, retries: 0 }),
} as unknown as RpcClient;

const storedNonce = () => readNonceAccount(chain.getAccount(NONCE)!.data)!.durableNonce;

/** A transfer that uses the durable nonce: AdvanceNonceAccount first, signed against `value`. */
function nonceTransfer(value: string, lamports: number): Transaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: value });
  tx.add(SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }));
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }));
  tx.sign(payer);
  return tx;
}

const attemptOf = (tx: Transaction, nonceFlag: boolean): Attempt => {
  const sig = encodeBase58(tx.signatures[0].signature!);
  return {
    attemptId: `attempt-${sig}`,
    accountId: "acct",
    program: SystemProgram.programId.toBase58(),
    sig,
    kind: "send",
    lastValidBlockHeight: chain.latestBlockhash().lastValidBlockHeight,
    sentAt: Date.now(),
    receivedAt: Date.now(),
    rpcHash: "a1b2c3d4e5f60718",
    rpcLabel: "local",
    payer: payer.publicKey.toBase58(),
    cuLimit: null,
    cuPriceMicroLamports: null,
    ixPrefix: null,
    nonce: nonceFlag,
    preflightError: null,
    simulationLogs: null,
  };
};

beforeAll(() => {
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
});

test("the nonce account's layout: version, state, authority, durable nonce, fee calculator", () => {
  const state = readNonceAccount(chain.getAccount(NONCE)!.data);
  expect(state).toMatchObject({ version: 1, initialized: true, authority: payer.publicKey.toBase58() });
  expect(state!.durableNonce).toHaveLength(chain.latestBlockhash().blockhash.length);
  expect(state!.lamportsPerSignature).toBe(5000);
  expect(readNonceAccount(new Uint8Array(79))).toBeNull();
});

test("a send whose nonce advanced under it is dropped as nonce_advanced; one that lands is landed", async () => {
  const signedAgainst = storedNonce();
  const lost = nonceTransfer(signedAgainst, 1_000_000);
  // Still the stored nonce: it may land, nothing is decided.
  const before = await readNonceAccounts(rpc, [NONCE]);
  expect(nonceAdvancedDrop({ nonceAccount: NONCE, nonceValue: signedAgainst }, before.get(NONCE)!)).toBeNull();

  // Another transaction uses the same nonce first: the stored nonce advances, `lost` never lands.
  const other = nonceTransfer(signedAgainst, 2_000_000);
  expect(chain.submit(other.serialize())).toMatchObject({ landed: true, err: null });
  expect(chain.submit(lost.serialize()).landed).toBe(false);
  const advancedTo = storedNonce();
  expect(advancedTo).not.toBe(signedAgainst);

  const states = await readNonceAccounts(rpc, [NONCE]);
  const diagnosis = nonceAdvancedDrop({ nonceAccount: NONCE, nonceValue: signedAgainst }, states.get(NONCE)!)!;
  const resolution = dropped(attemptOf(lost, true), diagnosis, Date.now());
  expect(resolution.outcome).toBe("dropped");
  expect(resolution.drop).toMatchObject({ dropClass: "nonce_advanced" });
  expect(resolution.drop!.evidence.map((e) => [e.kind, e.value])).toEqual([
    ["nonce_account", NONCE],
    ["nonce_signed", signedAgainst],
    ["nonce_now", advancedTo],
  ]);

  // Signed against the current nonce, it lands; its envelope did not flag it, its transaction does.
  chain.advanceBlocks(2);
  const landing = nonceTransfer(advancedTo, 3_000_000);
  const sent = chain.submit(landing.serialize());
  expect(sent).toMatchObject({ landed: true, err: null });
  const json = uiConfirmedTransaction(chain.ledger.get(sent.signature)!, "json");
  expect(durableNonceOf(json)).toEqual({
    nonceAccount: NONCE,
    authority: payer.publicKey.toBase58(),
    nonceValue: advancedTo,
  });
  const landed = resolveFromTransaction(attemptOf(landing, false), null, json, loadIdls(IDL_DIR), Date.now(), 1);
  expect(landed.outcome).toBe("landed");
  expect(landed.attempt.nonce).toBe(true);
});

test("a closed nonce account: the attempt can no longer land", () => {
  const drop = nonceAdvancedDrop({ nonceAccount: NONCE, nonceValue: "x" }, null)!;
  expect(drop.dropClass).toBe("nonce_advanced");
  expect(drop.evidence[2]).toMatchObject({ kind: "nonce_now", value: null });
});
