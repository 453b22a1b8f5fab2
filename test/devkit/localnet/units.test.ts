// Unit tests of the pure pieces (wire format, error text, fees, block window, JSON, token amounts,
// loader layouts) plus the v0 + address-lookup-table path and raw PubSub messages.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { BlockClock } from "../../../devkit/localnet/blocks.ts";
import { displayTransactionError } from "../../../devkit/localnet/errors.ts";
import { computeBudgetOf, messageFee } from "../../../devkit/localnet/fees.ts";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import { toJson } from "../../../devkit/localnet/jsonrpc.ts";
import { decodeLoaderState, encodeProgramDataAccount } from "../../../devkit/localnet/loader.ts";
import { uiTokenAmount } from "../../../devkit/localnet/tokens.ts";
import { parseTransaction, WireError } from "../../../devkit/localnet/wire.ts";
import { decodeBase58 } from "../../../src/shared/base58.ts";
import { funded, rpc } from "./support.ts";

describe("error display (agave's TransactionError Display)", () => {
  test("matches the mainnet preflight messages", () => {
    // realdata/13: "Transaction simulation failed: Error processing Instruction 3: custom program error: 0x1771"
    expect(displayTransactionError({ InstructionError: [3, { Custom: 6001 }] })).toBe(
      "Error processing Instruction 3: custom program error: 0x1771",
    );
    expect(displayTransactionError("BlockhashNotFound")).toBe("Blockhash not found");
    expect(displayTransactionError("AccountNotFound")).toBe(
      "Attempt to debit an account but found no record of a prior credit.",
    );
    expect(displayTransactionError({ InstructionError: [6, "ProgramFailedToComplete"] })).toBe(
      "Error processing Instruction 6: Program failed to complete",
    );
    expect(displayTransactionError({ InstructionError: [3, "IllegalOwner"] })).toBe(
      "Error processing Instruction 3: Provided owner is not allowed",
    );
    expect(displayTransactionError({ InsufficientFundsForRent: { account_index: 2 } })).toBe(
      "Transaction results in an account (2) with insufficient funds for rent",
    );
  });
});

describe("wire format", () => {
  test("parses a v0 message with lookups and rejects malformed bytes", () => {
    const payer = Keypair.generate();
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: BigInt("18446744073709551615"),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [Keypair.generate().publicKey, Keypair.generate().publicKey],
      },
    });
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
      instructions: [
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7 }),
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: table.state.addresses[1], lamports: 5 }),
      ],
    }).compileToV0Message([table]);
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const parsed = parseTransaction(tx.serialize());
    expect(parsed.message.version).toBe(0);
    expect(parsed.message.recentBlockhash).toBe(message.recentBlockhash);
    expect(parsed.message.addressTableLookups).toEqual([
      { accountKey: table.key.toBase58(), writableIndexes: [1], readonlyIndexes: [] },
    ]);
    expect(parsed.message.instructions[1].accounts).toEqual([0, 3]);
    expect(computeBudgetOf(parsed.message)).toEqual({
      cuLimit: 6000,
      cuLimitRequested: null,
      cuPriceMicroLamports: 7n,
    });
    expect(messageFee(parsed.message)).toBe(5001n);

    const bytes = tx.serialize();
    expect(() => parseTransaction(bytes.subarray(0, bytes.length - 1))).toThrow(WireError);
    expect(() => parseTransaction(new Uint8Array([0]))).toThrow("failed to deserialize: unexpected end of input");
    const unsigned = new Uint8Array([0, ...message.serialize()]);
    expect(() => parseTransaction(unsigned)).toThrow("Transaction requires a fee but has no signature present");
  });
});

describe("block window", () => {
  test("a blockhash is valid while height − itsHeight ≤ 150", () => {
    let n = 0;
    const clock = new BlockClock({
      initialSlot: 10,
      initialBlockHeight: 5,
      genesisBlockhash: "g",
      nextBlockhash: () => `h${++n}`,
      now: () => 0,
    });
    clock.produce(1);
    expect(clock.latest).toMatchObject({
      slot: 11,
      height: 6,
      blockhash: "h1",
      parentSlot: 10,
      previousBlockhash: "g",
    });
    clock.produce(149);
    expect(clock.isBlockhashValid("g")).toBe(true);
    clock.produce(1);
    expect(clock.isBlockhashValid("g")).toBe(false);
    expect(clock.isBlockhashValid("h1")).toBe(true);
    expect(clock.blockhashOfSlot(11)).toBe("h1");
    expect(clock.timeOfSlot(9)).toBeUndefined();
  });
});

describe("small encoders", () => {
  test("toJson keeps u64 exact and drops undefined fields", () => {
    expect(toJson({ a: 18446744073709551615n, b: undefined, c: [1, null, "x"] })).toBe(
      '{"a":18446744073709551615,"c":[1,null,"x"]}',
    );
  });
  test("uiTokenAmount formats like agave", () => {
    expect(uiTokenAmount(3_800_000n, 6)).toEqual({
      amount: "3800000",
      decimals: 6,
      uiAmount: 3.8,
      uiAmountString: "3.8",
    });
    expect(uiTokenAmount(15_000_000n, 6).uiAmountString).toBe("15");
    expect(uiTokenAmount(1n, 6).uiAmountString).toBe("0.000001");
    expect(uiTokenAmount(42n, 0).uiAmountString).toBe("42");
  });
  test("ProgramData layout round-trips", () => {
    const authority = Keypair.generate().publicKey.toBase58();
    const bytes = encodeProgramDataAccount(1234, authority, new Uint8Array([1, 2, 3]));
    expect(bytes.length).toBe(48);
    expect(decodeLoaderState(bytes)).toEqual({
      type: "programData",
      slot: 1234,
      authority,
      data: new Uint8Array([1, 2, 3]),
    });
  });
});

describe("against a running localnet", () => {
  let localnet: Localnet;
  beforeAll(async () => {
    localnet = await startLocalnet({ blockTimeMs: 0 });
  });
  afterAll(async () => {
    await localnet.stop();
  });

  test("a v0 transaction through an address lookup table reports loadedAddresses", async () => {
    const payer = funded(localnet);
    const target = Keypair.generate().publicKey;
    const tableKey = Keypair.generate().publicKey;
    // LookupTableMeta (56 bytes: type 1, deactivation u64::MAX, last extended slot 0, …) + addresses.
    const data = new Uint8Array(56 + 32);
    const view = new DataView(data.buffer);
    view.setUint32(0, 1, true);
    view.setBigUint64(4, 0xffffffffffffffffn, true);
    data.set(target.toBytes(), 56);
    localnet.chain.setAccount(tableKey.toBase58(), {
      lamports: localnet.chain.minimumBalanceForRentExemption(data.length),
      data,
      owner: "AddressLookupTab1e1111111111111111111111111",
      executable: false,
    });
    const table = new AddressLookupTableAccount({
      key: tableKey,
      state: {
        deactivationSlot: 0xffffffffffffffffn,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [target],
      },
    });
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: localnet.chain.latestBlockhash().blockhash,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports: 1_000_000_000 }),
      ],
    }).compileToV0Message([table]);
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const sent = await rpc(localnet.url, "sendTransaction", [
      Buffer.from(tx.serialize()).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(sent.error).toBeUndefined();
    const body = await rpc(localnet.url, "getTransaction", [sent.result, { maxSupportedTransactionVersion: 0 }]);
    expect(body.result.version).toBe(0);
    expect(body.result.meta.loadedAddresses).toEqual({ writable: [target.toBase58()], readonly: [] });
    expect(body.result.transaction.message.accountKeys).toEqual([
      payer.publicKey.toBase58(),
      "11111111111111111111111111111111",
    ]);
    expect(body.result.transaction.message.addressTableLookups).toEqual([
      { accountKey: tableKey.toBase58(), writableIndexes: [0], readonlyIndexes: [] },
    ]);
    expect(body.result.meta.preBalances).toEqual([2_000_000_000, 1, 0]);
    expect(body.result.meta.postBalances).toEqual([999_995_000, 1, 1_000_000_000]);
    const parsed = await rpc(localnet.url, "getTransaction", [
      sent.result,
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 },
    ]);
    expect(parsed.result.transaction.message.accountKeys[2]).toEqual({
      pubkey: target.toBase58(),
      signer: false,
      source: "lookupTable",
      writable: true,
    });
  });

  test("PubSub: signatureSubscribe fires once (also for an already-landed signature); slotSubscribe follows blocks", async () => {
    const socket = new WebSocket(localnet.wsUrl);
    const messages: any[] = [];
    socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
    await new Promise((resolve) => (socket.onopen = resolve));
    const waitFor = async (count: number) => {
      for (let i = 0; i < 100 && messages.length < count; i++) await Bun.sleep(5);
      return messages;
    };
    const signature = localnet.airdrop(Keypair.generate().publicKey.toBase58(), 1_000_000_000);
    socket.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "signatureSubscribe",
        params: [signature, { commitment: "confirmed" }],
      }),
    );
    await waitFor(2);
    expect(messages[0]).toEqual({ jsonrpc: "2.0", result: 0, id: 1 });
    expect(messages[1]).toEqual({
      jsonrpc: "2.0",
      method: "signatureNotification",
      params: { result: { context: { slot: localnet.chain.slot }, value: { err: null } }, subscription: 0 },
    });
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "slotSubscribe" }));
    await waitFor(3);
    localnet.advanceBlocks(1);
    await waitFor(4);
    expect(messages[3]).toEqual({
      jsonrpc: "2.0",
      method: "slotNotification",
      params: {
        result: {
          parent: localnet.chain.slot - 1,
          root: Math.max(1000, localnet.chain.slot - 32),
          slot: localnet.chain.slot,
        },
        subscription: 1,
      },
    });
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "accountSubscribe", params: [] }));
    await waitFor(5);
    expect(messages[4]).toEqual({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 3 });
    socket.close();
  });

  test("the Clock sysvar follows the chain's slot and block time", async () => {
    localnet.advanceBlocks(3);
    const clock = await rpc(localnet.url, "getAccountInfo", [
      "SysvarC1ock11111111111111111111111111111111",
      { encoding: "base64" },
    ]);
    const data = Buffer.from(clock.result.value.data[0], "base64");
    expect(Number(data.readBigUInt64LE(0))).toBe(localnet.chain.slot);
    expect(Number(data.readBigInt64LE(32))).toBe(Math.floor(localnet.chain.clock.latest.timeMs / 1000));
  });

  test("simulateTransaction: replaceRecentBlockhash, post-simulation accounts, inner instructions", async () => {
    const payer = funded(localnet);
    const target = Keypair.generate().publicKey;
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: Keypair.generate().publicKey.toBase58(), // unknown blockhash, unsigned
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports: 1_000_000_000 }),
      ],
    }).compileToLegacyMessage();
    const unsigned = Buffer.from(new VersionedTransaction(message).serialize()).toString("base64");
    const plain = await rpc(localnet.url, "simulateTransaction", [unsigned, { encoding: "base64" }]);
    expect(plain.result.value.err).toBe("BlockhashNotFound");
    const replaced = await rpc(localnet.url, "simulateTransaction", [
      unsigned,
      {
        encoding: "base64",
        replaceRecentBlockhash: true,
        innerInstructions: true,
        accounts: { addresses: [target.toBase58()], encoding: "base64" },
      },
    ]);
    expect(replaced.result.value.err).toBeNull();
    expect(replaced.result.value.replacementBlockhash).toEqual(localnet.chain.latestBlockhash());
    expect(replaced.result.value.accounts).toEqual([
      {
        data: ["", "base64"],
        executable: false,
        lamports: 1_000_000_000,
        owner: "11111111111111111111111111111111",
        rentEpoch: 18446744073709552000,
        space: 0,
      },
    ]);
    expect(replaced.result.value.innerInstructions).toEqual([]);
    expect(localnet.chain.getAccount(target.toBase58())).toBeNull();
    const both = await rpc(localnet.url, "simulateTransaction", [
      unsigned,
      { encoding: "base64", replaceRecentBlockhash: true, sigVerify: true },
    ]);
    expect(both.error).toEqual({
      code: -32602,
      message: "Invalid params: sigVerify may not be used with replaceRecentBlockhash",
    });
  });

  test("CORS: any origin may call the chain from a browser", async () => {
    const preflight = await fetch(localnet.url, {
      method: "OPTIONS",
      headers: { origin: "http://example.test", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    const answer = await fetch(localnet.url, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
    });
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("getAccountInfo encodings and dataSlice", async () => {
    const token = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
    const slice = await rpc(localnet.url, "getAccountInfo", [
      token,
      { encoding: "base64", dataSlice: { offset: 0, length: 4 } },
    ]);
    expect(slice.result.value.data).toEqual([Buffer.from([2, 0, 0, 0]).toString("base64"), "base64"]);
    const binary = await rpc(localnet.url, "getAccountInfo", [token]);
    expect(decodeBase58(binary.result.value.data)!.length).toBe(36);
    const zstd = await rpc(localnet.url, "getAccountInfo", [token, { encoding: "base64+zstd" }]);
    expect(Buffer.from(Bun.zstdDecompressSync(Buffer.from(zstd.result.value.data[0], "base64"))).length).toBe(36);
    const missing = await rpc(localnet.url, "getMultipleAccounts", [
      [token, Keypair.generate().publicKey.toBase58()],
      { encoding: "base64" },
    ]);
    expect(missing.result.value[1]).toBeNull();
    expect(missing.result.value[0].owner).toBe("BPFLoaderUpgradeab1e11111111111111111111111");
    expect(new PublicKey(token).toBase58()).toBe(token);
  });
});
