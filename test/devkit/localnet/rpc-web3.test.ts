// The local chain seen through a real @solana/web3.js v1 Connection and through raw JSON-RPC:
// mainnet shapes for blocks, transfers that land, failures recorded with meta.err and logs, the
// -32002 preflight error, blockhash expiry, status-cache behaviour and batches.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionExpiredBlockheightExceededError,
} from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import { encodeBase58 } from "../../../src/shared/base58.ts";
import { base64, funded, key, rpc, signed } from "./support.ts";

let localnet: Localnet;
let connection: Connection;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0, now: () => 1_750_000_000_000 });
  connection = new Connection(localnet.url, { commitment: "confirmed", wsEndpoint: localnet.wsUrl });
});
afterAll(async () => {
  await localnet.stop();
});

describe("chain state", () => {
  test("genesis slot, height and blockhash window as mainnet reports them", async () => {
    expect(await connection.getSlot()).toBe(1000);
    expect(await connection.getBlockHeight()).toBe(900);
    const latest = await connection.getLatestBlockhash();
    expect(latest).toEqual({ blockhash: localnet.chain.clock.blockhash, lastValidBlockHeight: 1050 });
    expect(await connection.getEpochInfo()).toEqual({
      absoluteSlot: 1000,
      blockHeight: 900,
      epoch: 0,
      slotIndex: 1000,
      slotsInEpoch: 432000,
      transactionCount: 0,
    });
    expect(await connection.getGenesisHash()).toBe(localnet.chain.genesisHash);
    expect(await connection.getVersion()).toEqual({ "feature-set": 3294202862, "solana-core": "2.2.7" });
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890880);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2039280);
    expect((await rpc(localnet.url, "getHealth")).result).toBe("ok");
    expect(await (await fetch(`${localnet.url}/health`)).text()).toBe("ok");
  });

  test("raw getLatestBlockhash carries the mainnet context", async () => {
    const body = await rpc(localnet.url, "getLatestBlockhash", [{ commitment: "finalized" }]);
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: body.id,
      result: {
        context: { apiVersion: "2.2.7", slot: localnet.chain.slot },
        value: { blockhash: localnet.chain.clock.blockhash, lastValidBlockHeight: localnet.chain.blockHeight + 150 },
      },
    });
  });
});

describe("transactions", () => {
  test("a SOL transfer lands and getTransaction returns the mainnet json shape", async () => {
    const payer = funded(localnet, 2 * LAMPORTS_PER_SOL);
    const recipient = Keypair.generate().publicKey;
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: recipient,
      lamports: LAMPORTS_PER_SOL / 2,
    });
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(transfer), [payer]);
    expect(await connection.getBalance(recipient)).toBe(500_000_000);

    const body = await rpc(localnet.url, "getTransaction", [
      signature,
      { encoding: "json", maxSupportedTransactionVersion: 0 },
    ]);
    const tx = body.result;
    expect(tx).toEqual({
      slot: 1000,
      transaction: {
        message: {
          accountKeys: [key(payer.publicKey), key(recipient), "11111111111111111111111111111111"],
          header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
          instructions: [{ accounts: [0, 1], data: "3Bxs3zvX19cRxrhM", programIdIndex: 2, stackHeight: null }],
          recentBlockhash: localnet.chain.clock.blockhash,
        },
        signatures: [signature],
      },
      meta: {
        err: null,
        status: { Ok: null },
        fee: 5000,
        preBalances: [2_000_000_000, 0, 1],
        postBalances: [1_499_995_000, 500_000_000, 1],
        innerInstructions: [],
        logMessages: [
          "Program 11111111111111111111111111111111 invoke [1]",
          "Program 11111111111111111111111111111111 success",
        ],
        preTokenBalances: [],
        postTokenBalances: [],
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: 150,
      },
      version: "legacy",
      blockTime: 1_750_000_000,
    });
    // web3.js validates the same answer with its own schema.
    const parsed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.meta?.fee).toBe(5000);
    expect(parsed?.version).toBe("legacy");
    // base64 encoding returns the exact wire bytes.
    const raw = await rpc(localnet.url, "getTransaction", [signature, { encoding: "base64" }]);
    expect(raw.result.transaction[1]).toBe("base64");
    expect(raw.result.version).toBeUndefined();
    expect(localnet.chain.ledger.get(signature)!.transaction.bytes).toEqual(
      new Uint8Array(Buffer.from(raw.result.transaction[0], "base64")),
    );
  });

  test("an on-chain failure lands with meta.err, logs and the fee charged", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const recipient = Keypair.generate().publicKey;
    const tx = signed(localnet, payer, [
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 5 * LAMPORTS_PER_SOL }),
    ]);
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });

    const status = await connection.getSignatureStatus(signature, { searchTransactionHistory: true });
    expect(status.value).toEqual({
      slot: 1000,
      confirmations: 0,
      err: { InstructionError: [0, { Custom: 1 }] },
      status: { Err: { InstructionError: [0, { Custom: 1 }] } },
      confirmationStatus: "confirmed",
    } as never);
    const result = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(result!.meta!.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(result!.meta!.logMessages).toEqual([
      "Program 11111111111111111111111111111111 invoke [1]",
      "Transfer: insufficient lamports 999995000, need 5000000000",
      "Program 11111111111111111111111111111111 failed: custom program error: 0x1",
    ]);
    expect(result!.meta!.fee).toBe(5000);
    expect(result!.meta!.preBalances).toEqual([1_000_000_000, 0, 1]);
    expect(result!.meta!.postBalances).toEqual([999_995_000, 0, 1]);
    expect(await connection.getBalance(payer.publicKey)).toBe(999_995_000);
  });

  test("preflight failure is JSON-RPC -32002 with RpcSimulateTransactionResult data, and nothing lands", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const recipient = Keypair.generate().publicKey;
    const tx = signed(localnet, payer, [
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 3 * LAMPORTS_PER_SOL }),
    ]);
    const body = await rpc(localnet.url, "sendTransaction", [base64(tx), { encoding: "base64" }]);
    expect(body.result).toBeUndefined();
    expect(body.error).toEqual({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
      data: {
        err: { InstructionError: [0, { Custom: 1 }] },
        logs: [
          "Program 11111111111111111111111111111111 invoke [1]",
          "Transfer: insufficient lamports 999995000, need 3000000000",
          "Program 11111111111111111111111111111111 failed: custom program error: 0x1",
        ],
        accounts: null,
        unitsConsumed: 150,
        returnData: null,
        innerInstructions: null,
        replacementBlockhash: null,
      },
    });
    const signature = tx.signatures[0].signature!;
    expect(
      (await connection.getSignatureStatus(encodeBase58(signature), { searchTransactionHistory: true })).value,
    ).toBeNull();
    expect(await connection.getBalance(payer.publicKey)).toBe(LAMPORTS_PER_SOL);

    // web3.js surfaces it as SendTransactionError with the message and logs.
    const error = await connection.sendRawTransaction(tx.serialize()).catch((e) => e);
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as SendTransactionError).transactionError).toEqual({
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
      logs: body.error!.data.logs,
    });
  });

  test("base58 sendTransaction (the RPC default encoding) and simulateTransaction", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const tx = signed(localnet, payer, [
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    ]);
    const simulation = await rpc(localnet.url, "simulateTransaction", [
      encodeBase58(tx.serialize()),
      { sigVerify: true },
    ]);
    expect(simulation.result.value).toEqual({
      err: null,
      logs: ["Program 11111111111111111111111111111111 invoke [1]", "Program 11111111111111111111111111111111 success"],
      accounts: null,
      unitsConsumed: 150,
      returnData: null,
      innerInstructions: null,
      replacementBlockhash: null,
    });
    const sent = await rpc(localnet.url, "sendTransaction", [encodeBase58(tx.serialize())]);
    expect(sent.result).toBe(encodeBase58(tx.signatures[0].signature!));
    // Sending it again is a duplicate.
    const again = await rpc(localnet.url, "sendTransaction", [encodeBase58(tx.serialize())]);
    expect(again.error?.code).toBe(-32002);
    expect(again.error?.message).toBe("Transaction simulation failed: This transaction has already been processed");
    // A tampered signature fails signature verification before simulation.
    const bytes = tx.serialize();
    bytes[10] ^= 0xff;
    const forged = await rpc(localnet.url, "sendTransaction", [bytes.toString("base64"), { encoding: "base64" }]);
    expect(forged.error).toEqual({ code: -32003, message: "Transaction signature verification failure" });
  });

  test("fees: getFeeForMessage includes the priority fee; getRecentPrioritizationFees reports it per slot", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const target = Keypair.generate().publicKey;
    const tx = signed(localnet, payer, [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2_500 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports: 1_000_000 }),
    ]);
    const message = tx.compileMessage();
    expect((await connection.getFeeForMessage(message)).value).toBe(5000 + 25);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed!.meta!.fee).toBe(5025);
    expect(landed!.meta!.preBalances[0] - landed!.meta!.postBalances[0]).toBe(5025 + 1_000_000);
    const fees = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: [target] });
    expect(fees.at(-1)).toEqual({ slot: localnet.chain.slot, prioritizationFee: 2500 });
  });
});

describe("expiry", () => {
  test("a blockhash is valid for 150 blocks; after that BlockhashNotFound and the send never lands", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const transfer = (lamports: number) =>
      signed(
        localnet,
        payer,
        [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports })],
        [],
        blockhash,
      );

    localnet.advanceBlocks(150);
    expect(await connection.getBlockHeight()).toBe(lastValidBlockHeight);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    const stillValid = await connection.sendRawTransaction(transfer(1_000_000).serialize());
    expect((await connection.getSignatureStatus(stillValid)).value?.err).toBeNull();

    const body = await rpc(localnet.url, "txray_advanceBlocks", { count: 1 });
    expect(body.result.blockHeight).toBe(lastValidBlockHeight + 1);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);
    expect((await connection.getFeeForMessage(transfer(2_000_000).compileMessage())).value).toBeNull();

    const stale = transfer(3_000_000);
    const preflight = await rpc(localnet.url, "sendTransaction", [base64(stale), { encoding: "base64" }]);
    expect(preflight.error).toEqual({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: {
        err: "BlockhashNotFound",
        logs: [],
        accounts: null,
        unitsConsumed: 0,
        returnData: null,
        innerInstructions: null,
        replacementBlockhash: null,
      },
    });
    const skipped = await connection.sendRawTransaction(stale.serialize(), { skipPreflight: true });
    expect((await connection.getSignatureStatus(skipped, { searchTransactionHistory: true })).value).toBeNull();
    expect(await connection.getTransaction(skipped, { maxSupportedTransactionVersion: 0 })).toBeNull();
    // web3.js's block-height strategy gives up the way it does on mainnet.
    const confirmation = connection.confirmTransaction({ signature: skipped, blockhash, lastValidBlockHeight });
    await expect(confirmation).rejects.toBeInstanceOf(TransactionExpiredBlockheightExceededError);
  });

  test("statuses leave the status cache after 300 slots but stay in history, finalized", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const tx = signed(localnet, payer, [
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    ]);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const slot = localnet.chain.slot;
    localnet.advanceBlocks(31);
    expect((await connection.getSignatureStatus(signature)).value).toMatchObject({
      confirmations: 31,
      confirmationStatus: "confirmed",
    });
    localnet.advanceBlocks(1);
    expect((await connection.getSignatureStatus(signature)).value).toMatchObject({
      slot,
      confirmations: null,
      confirmationStatus: "finalized",
    });
    localnet.advanceBlocks(300 - 32 + 1);
    expect((await connection.getSignatureStatus(signature)).value).toBeNull();
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toMatchObject({
      slot,
      confirmations: null,
      err: null,
      confirmationStatus: "finalized",
    });
  });
});

describe("history and blocks", () => {
  test("getSignaturesForAddress (newest first), getBlock and getBlockTime", async () => {
    const payer = funded(localnet, LAMPORTS_PER_SOL);
    const target = Keypair.generate().publicKey;
    const send = async (lamports: number) => {
      const tx = signed(localnet, payer, [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports }),
      ]);
      return connection.sendRawTransaction(tx.serialize());
    };
    const first = await send(1_000_000);
    localnet.advanceBlocks(1);
    const second = await send(2_000_000);
    const slot = localnet.chain.slot;
    localnet.advanceBlocks(1);
    const list = await connection.getSignaturesForAddress(target);
    expect(list.map((s) => s.signature)).toEqual([second, first]);
    expect(list[0]).toEqual({
      signature: second,
      slot,
      err: null,
      memo: null,
      blockTime: 1_750_000_000,
      confirmationStatus: "confirmed",
    });
    const block = await connection.getBlock(slot, { maxSupportedTransactionVersion: 0 });
    expect(block!.transactions.map((t) => t.transaction.signatures[0])).toEqual([second]);
    expect(block!.parentSlot).toBe(slot - 1);
    expect(await connection.getBlockTime(slot)).toBe(1_750_000_000);
    const current = await rpc(localnet.url, "getBlock", [localnet.chain.slot]);
    expect(current.error).toEqual({ code: -32004, message: `Block not available for slot ${localnet.chain.slot}` });
  });
});

describe("JSON-RPC framing", () => {
  test("batches answer in order; notifications get no answer; errors per item", async () => {
    const response = await fetch(localnet.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "getSlot" },
        { jsonrpc: "2.0", method: "getHealth" },
        { jsonrpc: "2.0", id: "b", method: "getBlockHeight", params: [{ commitment: "confirmed" }] },
        { jsonrpc: "2.0", id: 3, method: "noSuchMethod" },
        { jsonrpc: "2.0", id: 4, method: "getBalance", params: ["not-a-key"] },
        { id: 5, method: "getSlot" },
      ]),
    });
    expect(await response.json()).toEqual([
      { jsonrpc: "2.0", result: localnet.chain.slot, id: 1 },
      { jsonrpc: "2.0", result: localnet.chain.blockHeight, id: "b" },
      { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 3 },
      { jsonrpc: "2.0", error: { code: -32602, message: "Invalid param: Invalid" }, id: 4 },
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: 5 },
    ]);
  });

  test("parse error, empty batch and bad params", async () => {
    const post = async (body: string) => (await fetch(localnet.url, { method: "POST", body })).json();
    expect(await post("{not json")).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" },
      id: null,
    });
    expect(await post("[]")).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: null });
    const bad = await rpc(localnet.url, "getMinimumBalanceForRentExemption", ["lots"]);
    expect(bad.error).toEqual({
      code: -32602,
      message: "Invalid params: params[0]: Invalid input: expected number, received string",
    });
    const commitment = await rpc(localnet.url, "getTransaction", ["1".repeat(64), { commitment: "processed" }]);
    expect(commitment.error).toEqual({
      code: -32602,
      message: "Invalid params: Method does not support commitment below `confirmed`",
    });
  });
});

describe("block timer", () => {
  test("with blockTimeMs, slot and height advance on their own; txray_setBlockTime stops it", async () => {
    const timed = await startLocalnet({ blockTimeMs: 10 });
    try {
      // Wait for the blocks themselves, not for a time: a loaded machine runs a 10 ms interval
      // far less often than every 10 ms (a fixed 120 ms sleep saw fewer than 5 blocks there).
      const deadline = Date.now() + 30_000;
      while (timed.chain.slot < 1005 && Date.now() < deadline) await Bun.sleep(10);
      const slot = timed.chain.slot;
      expect(slot).toBeGreaterThanOrEqual(1005);
      expect(timed.chain.blockHeight).toBe(slot - 100);
      const body = await rpc(timed.url, "txray_setBlockTime", { ms: 0 });
      expect(body.result).toEqual({ blockTimeMs: 0 });
      const frozen = timed.chain.slot;
      // Several block times with no block (an interval still running would have produced some).
      await Bun.sleep(50);
      expect(timed.chain.slot).toBe(frozen);
    } finally {
      await timed.stop();
    }
  }, 40_000);
});
