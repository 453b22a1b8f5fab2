// @solana/kit against the local chain, unchanged: createSolanaRpc (bigint-parsing JSON),
// createSolanaRpcSubscriptions, airdropFactory and sendAndConfirmTransactionFactory (which rely on
// signatureNotifications and slotNotifications over the PubSub socket).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AccountRole,
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  assertIsTransactionWithBlockhashLifetime,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";

let localnet: Localnet;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 20 });
});
afterAll(async () => {
  await localnet.stop();
});

const SYSTEM = address("11111111111111111111111111111111");

function transferData(amount: bigint): Uint8Array {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, amount, true);
  return data;
}

describe("@solana/kit", () => {
  test("reads: blockhash, slot, rent, account info with exact u64 rentEpoch", async () => {
    const rpc = createSolanaRpc(localnet.url);
    const { value } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
    expect(value.lastValidBlockHeight).toBeGreaterThanOrEqual(1050n);
    expect(typeof (await rpc.getSlot().send())).toBe("bigint");
    expect(await rpc.getMinimumBalanceForRentExemption(82n).send()).toBe(lamports(1461600n));
    const token = await rpc
      .getAccountInfo(address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"), { encoding: "base64" })
      .send();
    // kit 8 no longer types rentEpoch, but it still parses the exact u64 the server sends.
    expect((token.value as unknown as { rentEpoch: bigint }).rentEpoch).toBe(18446744073709551615n);
    expect(token.value?.executable).toBe(true);
    expect(token.value?.owner).toBe(address("BPFLoaderUpgradeab1e11111111111111111111111"));
    expect(token.value?.space).toBe(36n);
  });

  test("airdrop and a signed transfer confirm through kit's subscription-based factories", async () => {
    const rpc = createSolanaRpc(localnet.url);
    const rpcSubscriptions = createSolanaRpcSubscriptions(localnet.wsUrl);
    const payer = await generateKeyPairSigner();
    const recipient = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: payer.address,
      lamports: lamports(2_000_000_000n),
      commitment: "confirmed",
    });
    expect((await rpc.getBalance(payer.address).send()).value).toBe(lamports(2_000_000_000n));

    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: SYSTEM,
            accounts: [
              { address: payer.address, role: AccountRole.WRITABLE_SIGNER, signer: payer },
              { address: recipient.address, role: AccountRole.WRITABLE },
            ],
            data: transferData(1_000_000_000n),
          },
          m,
        ),
    );
    const signedTx = await signTransactionMessageWithSigners(message);
    assertIsTransactionWithBlockhashLifetime(signedTx);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signedTx, { commitment: "confirmed" });
    const signature = getSignatureFromTransaction(signedTx);

    const statuses = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
    expect(statuses.value[0]?.err).toBeNull();
    expect((await rpc.getBalance(recipient.address).send()).value).toBe(lamports(1_000_000_000n));
    const landed = await rpc.getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 }).send();
    expect(landed?.version).toBe(0);
    expect(landed?.meta?.fee).toBe(lamports(5000n));
    expect(landed?.meta?.loadedAddresses).toEqual({ writable: [], readonly: [] });
    // A v0 transaction asked for without maxSupportedTransactionVersion is -32015, like mainnet.
    const refused = await rpc
      .getTransaction(signature, { encoding: "json" })
      .send()
      .catch((e: Error) => e);
    expect(String(refused)).toContain("Transaction version (0) is not supported by the requesting client");
  });
});
