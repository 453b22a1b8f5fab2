// The SDK's parts on controlled inputs: the wire parser against web3.js's own deserializer (legacy,
// v0, unsigned, durable nonce, Compute Budget), program selection, rpcHash/rpcLabel (equal to the
// server-side helper, never the URL), the payer hash under privacy "hash", simulation failures as
// preflight envelopes, kit's preflight errors turned back into the RPC's TransactionError, and the
// config file path (equal to the CLI's).
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { getSolanaErrorFromJsonRpcError } from "@solana/kit";
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import { userConfigPath as cliConfigPath } from "../../src/cli/user-config";
import { createTxray, rpcHash, rpcLabel } from "../../src/sdk";
import { userConfigPath } from "../../src/sdk/config";
import { transactionErrorFromKit } from "../../src/sdk/kit-errors";
import { Recorder, SENT_SLOT_MAX_AGE_MS } from "../../src/sdk/recorder";
import type { Transport } from "../../src/sdk/transport";
import { COMPUTE_BUDGET, instructionPrefix, parseTransaction, targetProgram } from "../../src/sdk/wire";
import { encodeBase58 } from "../../src/shared/base58";
import { envelopeSchema } from "../../src/shared/envelope";
import { rpcHash as serverRpcHash } from "../../src/shared/rpc-identity";
import { recordingFetch } from "./support";

const BLOCKHASH = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N";
const MEMO = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const APP = Keypair.generate().publicKey;
const payer = Keypair.generate();
const to = Keypair.generate().publicKey;
const transfer = SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 5 });
const memo = (program = MEMO) => new TransactionInstruction({ programId: program, keys: [], data: Buffer.from("hi") });

function legacy(instructions: TransactionInstruction[], sign = true) {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(...instructions);
  if (sign) tx.sign(payer);
  return new Uint8Array(tx.serialize({ requireAllSignatures: false, verifySignatures: false }));
}

describe("wire parser", () => {
  test("legacy: signature, payer, blockhash, programs and the Compute Budget requests", () => {
    const bytes = legacy([
      ComputeBudgetProgram.setComputeUnitLimit({ units: 123_456 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5_000_000_000_123 }),
      transfer,
      memo(),
    ]);
    const expected = Transaction.from(bytes);
    const tx = parseTransaction(bytes);
    expect(tx).toMatchObject({
      signature: encodeBase58(expected.signature!),
      payer: payer.publicKey.toBase58(),
      blockhash: BLOCKHASH,
      version: "legacy",
      cuLimit: 123_456,
      cuPriceMicroLamports: 5_000_000_000_123,
      nonce: false,
    });
    expect(tx.instructions.map((ix) => ix.program)).toEqual(expected.instructions.map((ix) => ix.programId.toBase58()));
  });

  test("v0 with a lookup table: programs come from the static keys", () => {
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: BigInt("18446744073709551615"),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        authority: undefined,
        addresses: [to, Keypair.generate().publicKey],
      },
    });
    const readOnly = new TransactionInstruction({
      programId: APP,
      keys: [{ pubkey: to, isSigner: false, isWritable: false }],
      data: Buffer.from([1]),
    });
    const message = MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 9 }), readOnly],
      addressLookupTableAccounts: [table],
    });
    expect(message.addressTableLookups).toHaveLength(1); // `to` is loaded through the table
    const vtx = new VersionedTransaction(message);
    vtx.sign([payer]);
    const tx = parseTransaction(vtx.serialize());
    expect(tx).toMatchObject({
      signature: encodeBase58(vtx.signatures[0]),
      payer: payer.publicKey.toBase58(),
      blockhash: BLOCKHASH,
      version: 0,
      cuLimit: 9,
    });
    expect(tx.cuPriceMicroLamports).toBeUndefined();
    expect(tx.instructions.map((ix) => ix.program)).toEqual([COMPUTE_BUDGET, APP.toBase58()]);
  });

  test("ixPrefix: the first 8 data bytes of the targeted program's first top-level instruction, as hex", () => {
    const anchor = new TransactionInstruction({
      programId: APP,
      keys: [],
      data: Buffer.from("e517cb977ae3ad2a0102030405", "hex"),
    });
    const tx = parseTransaction(
      legacy([ComputeBudgetProgram.setComputeUnitLimit({ units: 9 }), transfer, anchor, memo(APP)]),
    );
    expect(instructionPrefix(tx, APP.toBase58())).toBe("e517cb977ae3ad2a"); // cut at 8 bytes; the first of APP's instructions
    expect(instructionPrefix(tx, SystemProgram.programId.toBase58())).toBe("0200000005000000"); // Transfer: u32 2, then the lamports
    expect(instructionPrefix(tx, COMPUTE_BUDGET)).toBe("0209000000"); // shorter than 8 bytes: all of it
    expect(instructionPrefix(tx, MEMO.toBase58())).toBeUndefined(); // no instruction of that program
    expect(envelopeSchema.shape.ixPrefix.safeParse(instructionPrefix(tx, APP.toBase58())).success).toBe(true);
  });

  test("unsigned transactions have no signature; garbage throws (and is skipped by the recorder)", () => {
    expect(parseTransaction(legacy([transfer], false)).signature).toBeNull();
    expect(() => parseTransaction(new Uint8Array([1, 2, 3]))).toThrow();
  });

  test("a durable-nonce transaction is flagged and its nonce advance is not the target", () => {
    const nonce = Keypair.generate().publicKey;
    const bytes = legacy([
      SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: payer.publicKey }),
      memo(APP),
    ]);
    const tx = parseTransaction(bytes);
    expect(tx.nonce).toBe(true);
    expect(targetProgram(tx, null)).toBe(APP.toBase58());
  });

  test("program: the first instruction's program among `programs`, else the first that is not Compute Budget", () => {
    const tx = parseTransaction(
      legacy([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }), transfer, memo(APP)]),
    );
    expect(targetProgram(tx, null)).toBe(SystemProgram.programId.toBase58());
    expect(targetProgram(tx, new Set([APP.toBase58()]))).toBe(APP.toBase58());
    expect(targetProgram(tx, new Set([MEMO.toBase58()]))).toBe(SystemProgram.programId.toBase58());
  });
});

describe("RPC identity", () => {
  const urls = [
    "https://mainnet.helius-rpc.com/?api-key=SECRET",
    "https://api.mainnet-beta.solana.com",
    "http://127.0.0.1:8899",
    "https://rpc.example.org:8443/path?x=1",
    "https://abc.solana-mainnet.quiknode.pro/TOKEN/",
  ];
  test("rpcHash is the server-side helper's value: SHA-256 of the origin only, never the path or key", () => {
    for (const url of urls) expect(rpcHash(url)).toBe(serverRpcHash(url));
    expect(rpcHash(urls[0])).toBe(rpcHash("https://mainnet.helius-rpc.com"));
    expect(rpcHash(urls[0])).toBe(
      createHash("sha256").update("https://mainnet.helius-rpc.com").digest("hex").slice(0, 16),
    );
  });

  test("rpcLabel: known providers, public, localhost, custom", () => {
    expect(urls.map(rpcLabel)).toEqual(["helius", "public", "localhost", "custom", "quicknode"]);
    expect(rpcLabel("https://api.devnet.solana.com")).toBe("public");
    expect(rpcLabel("http://localhost:8899")).toBe("localhost");
    expect(rpcLabel("https://solana-mainnet.g.alchemy.com/v2/KEY")).toBe("alchemy");
    expect(rpcLabel("https://x.rpcpool.com")).toBe("triton");
    expect(rpcLabel("https://evil-helius-rpc.com")).toBe("custom");
    expect(rpcLabel("not a url")).toBe("custom");
  });
});

/** A stand-in for a web3.js Connection: an `_rpcRequest` answering from a table. */
function fakeConnection(answers: Record<string, (args: unknown[]) => unknown>) {
  return {
    rpcEndpoint: "https://mainnet.helius-rpc.com/?api-key=SECRET",
    async _rpcRequest(method: string, args: unknown[]) {
      const answer = answers[method];
      if (!answer) throw new Error(`unexpected ${method}`);
      return answer(args);
    },
  };
}

describe("envelopes built from what a connection saw", () => {
  test('privacy "hash": the payer is sent as salted SHA-256 hex; the URL never appears', async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({
      apiKey: "txr_live_x",
      privacy: "hash",
      salt: "pepper",
      fetch: recorder.fetch,
      walletAdapter: "Backpack",
    });
    const bytes = legacy([transfer]);
    const connection = txray.instrument(
      fakeConnection({
        getLatestBlockhash: () => ({
          result: { context: { slot: 1 }, value: { blockhash: BLOCKHASH, lastValidBlockHeight: 1234 } },
        }),
        sendTransaction: () => ({ result: encodeBase58(Transaction.from(bytes).signature!) }),
      }),
    ) as any;
    await connection._rpcRequest("getLatestBlockhash", [{ commitment: "confirmed" }]);
    await connection._rpcRequest("sendTransaction", [
      Buffer.from(bytes).toString("base64"),
      { encoding: "base64", maxRetries: 5 },
    ]);
    await txray.flush();
    const [envelope] = recorder.envelopes();
    expect(envelopeSchema.safeParse(envelope).success).toBe(true);
    expect(envelope).toMatchObject({
      payer: createHash("sha256").update(`pepper${payer.publicKey.toBase58()}`).digest("hex"),
      lastValidBlockHeight: 1234,
      rpcLabel: "helius",
      walletAdapter: "Backpack",
      maxRetries: 5,
      skipPreflight: false,
    });
    expect(JSON.stringify(recorder.bodies)).not.toContain("SECRET");
    expect(JSON.stringify(recorder.bodies)).not.toContain(payer.publicKey.toBase58());
    await txray.close();
  });

  test("a failed simulateTransaction is a preflight envelope (sig null when unsigned); a successful one is nothing", async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", fetch: recorder.fetch });
    const err = { InstructionError: [0, { Custom: 1 }] };
    let fail = true;
    const connection = txray.instrument(
      fakeConnection({
        simulateTransaction: () => ({
          result: {
            context: { slot: 1 },
            value: fail ? { err, logs: ["Program log: nope"], unitsConsumed: 150 } : { err: null, logs: [] },
          },
        }),
        getBlockHeight: () => ({ result: 5000 }),
      }),
    ) as any;
    await connection._rpcRequest("simulateTransaction", [
      Buffer.from(legacy([transfer], false)).toString("base64"),
      { encoding: "base64", sigVerify: false },
    ]);
    fail = false;
    await connection._rpcRequest("simulateTransaction", [
      Buffer.from(legacy([transfer])).toString("base64"),
      { encoding: "base64" },
    ]);
    await txray.flush();
    const envelopes = recorder.envelopes();
    expect(envelopes).toHaveLength(1);
    expect(envelopes[0]).toMatchObject({
      sig: null,
      kind: "preflight",
      simulationLogs: ["Program log: nope"],
      lastValidBlockHeight: 5150,
    });
    expect(envelopes[0].preflightError).toBe(
      'Transaction simulation failed: {"err":{"InstructionError":[0,{"Custom":1}]},"unitsConsumed":150}',
    );
    expect(envelopeSchema.safeParse(envelopes[0]).success).toBe(true);
    await txray.close();
  });

  test("overlong logs and errors are cut to the envelope's limits, so the service never refuses a batch", async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", fetch: recorder.fetch });
    const connection = txray.instrument(
      fakeConnection({
        sendTransaction: () => ({
          error: {
            code: -32002,
            message: "x".repeat(10_000),
            data: { logs: Array.from({ length: 300 }, () => "y".repeat(3000)) },
          },
        }),
        getBlockHeight: () => ({ result: 1 }),
      }),
    ) as any;
    await connection._rpcRequest("sendTransaction", [
      Buffer.from(legacy([transfer])).toString("base64"),
      { encoding: "base64" },
    ]);
    await txray.flush();
    expect(envelopeSchema.safeParse(recorder.envelopes()[0]).success).toBe(true);
    await txray.close();
  });
});

describe("sentSlot: the slot the RPC reported right before the send", () => {
  /** The envelopes of one send after the given reads, through an instrumented web3.js connection. */
  async function sentAfter(reads: [string, unknown[], number][], privacy: "plain" | "hash" = "plain") {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", privacy, salt: "pepper", fetch: recorder.fetch });
    const bytes = legacy([transfer]);
    let slot = 0;
    const connection = txray.instrument(
      fakeConnection({
        getLatestBlockhash: () => ({
          result: { context: { slot }, value: { blockhash: BLOCKHASH, lastValidBlockHeight: 1234 } },
        }),
        simulateTransaction: () => ({ result: { context: { slot }, value: { err: null, logs: [] } } }),
        sendTransaction: () => ({ result: encodeBase58(Transaction.from(bytes).signature!) }),
      }),
    ) as any;
    for (const [method, args, answeredSlot] of reads) {
      slot = answeredSlot;
      await connection._rpcRequest(method, args);
    }
    await connection._rpcRequest("sendTransaction", [Buffer.from(bytes).toString("base64"), { encoding: "base64" }]);
    await txray.flush();
    const envelopes = recorder.envelopes();
    await txray.close();
    for (const envelope of envelopes) expect(envelopeSchema.safeParse(envelope).success).toBe(true);
    return envelopes;
  }
  const wire = () => Buffer.from(legacy([transfer])).toString("base64");

  test("the newest slot a processed or confirmed answer reported, under either privacy", async () => {
    const reads: [string, unknown[], number][] = [
      ["getLatestBlockhash", [{ commitment: "confirmed" }], 300_000_000],
      ["simulateTransaction", [wire(), { encoding: "base64", commitment: "processed" }], 300_000_002],
    ];
    expect((await sentAfter(reads))[0].sentSlot).toBe(300_000_002);
    expect((await sentAfter(reads, "hash"))[0].sentSlot).toBe(300_000_002);
  });

  test("none from a finalized answer (the default commitment), which trails the tip by dozens of slots", async () => {
    expect((await sentAfter([["getLatestBlockhash", [], 300_000_000]]))[0].sentSlot).toBeUndefined();
    const finalized = await sentAfter([["getLatestBlockhash", [{ commitment: "finalized" }], 300_000_000]]);
    expect(finalized[0].sentSlot).toBeUndefined();
  });

  test("none from a slot seen after the send began or too long before it, nor for a refused send", async () => {
    const queued: any[] = [];
    const transport = { enqueue: (envelope: unknown) => queued.push(envelope), discard: () => {}, stats: {} };
    const recorder = new Recorder(
      { programs: null, privacy: "plain", salt: "", walletAdapter: () => "", maxPending: 10 },
      transport as unknown as Transport,
    );
    const source = { rpcHash: "a1b2c3d4e5f60718", rpcLabel: "localhost", blockHeight: async () => 1_000 };
    recorder.rememberSlot(source, { slot: 7 }, "confirmed");
    const seenAt = Date.now();
    for (const [sentAt, kind] of [
      [seenAt - 50, "send"], // the slot arrived after this send began
      [seenAt + SENT_SLOT_MAX_AGE_MS + 1_000, "send"], // too old by then
      [seenAt + 10, "preflight"], // never reached the chain
      [seenAt + 10, "send"],
    ] as const)
      recorder.observe({
        source,
        sentAt,
        wire: wire(),
        kind,
        preflightError: kind === "preflight" ? "x" : null,
        logs: [],
      });
    await Bun.sleep(0);
    await recorder.settle();
    expect(queued.map((envelope) => envelope.sentSlot)).toEqual([undefined, undefined, undefined, 7]);
  });
});

describe("kit preflight errors", () => {
  const kitError = (err: unknown) =>
    getSolanaErrorFromJsonRpcError({ code: -32002, message: "Transaction simulation failed", data: { err, logs: [] } })
      .cause;
  for (const err of [
    { InstructionError: [2, { Custom: 6001 }] },
    { InstructionError: [0, "InsufficientFunds"] },
    { InstructionError: [1, "ComputationalBudgetExceeded"] },
    "BlockhashNotFound",
    { InsufficientFundsForRent: { account_index: 3 } },
    { DuplicateInstruction: 4 },
  ]) {
    test(`the RPC's ${JSON.stringify(err)} comes back from kit's SolanaError`, () => {
      expect(transactionErrorFromKit(kitError(err))).toEqual(err);
    });
  }
});

describe("config file", () => {
  test("the SDK reads the key from the same path the CLI writes", () => {
    for (const env of [
      { XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/a" },
      { HOME: "/home/b" },
      { XDG_CONFIG_HOME: "", HOME: "/home/c" },
    ]) {
      expect(userConfigPath(env, "/unused")).toBe(cliConfigPath(env));
    }
  });
});

describe("base58 encoding (the SDK's copy is the shared one)", () => {
  test("round trips random bytes, leading zeros included, through the shared decoder", async () => {
    const { decodeBase58 } = await import("../../src/shared/base58");
    for (let n = 0; n < 5000; n++) {
      const bytes = new Uint8Array(n % 70).map(() => Math.floor(Math.random() * 256));
      for (let z = 0; z < Math.min(bytes.length, n % 4); z++) bytes[z] = 0;
      if (n % 13 === 0) bytes.fill(255);
      const text = encodeBase58(bytes);
      expect(Array.from(decodeBase58(text)!)).toEqual(Array.from(bytes));
      expect(text).toMatch(/^[1-9A-HJ-NP-Za-km-z]*$/);
    }
    expect(encodeBase58(new Uint8Array(32))).toBe("11111111111111111111111111111111");
  });
});

describe("a failed simulation followed by a send of the same transaction", () => {
  test("is one attempt: the send's envelope replaces the simulation's while it is queued", async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", fetch: recorder.fetch });
    const bytes = legacy([transfer]);
    const sig = encodeBase58(Transaction.from(bytes).signature!);
    const connection = txray.instrument(
      fakeConnection({
        simulateTransaction: () => ({
          result: { context: { slot: 1 }, value: { err: "BlockhashNotFound", logs: [] } },
        }),
        sendTransaction: () => ({ result: sig }),
        getBlockHeight: () => ({ result: 77 }),
      }),
    ) as any;
    const wire = Buffer.from(bytes).toString("base64");
    await connection._rpcRequest("simulateTransaction", [wire, { encoding: "base64", sigVerify: true }]);
    await connection._rpcRequest("sendTransaction", [wire, { encoding: "base64", skipPreflight: true }]);
    await txray.flush();
    expect(recorder.envelopes().map((e) => [e.sig, e.kind])).toEqual([[sig, "send"]]);
    await txray.close();
  });
});

describe("kit errors that are not preflight failures", () => {
  test("an HTTP error keeps the status the RPC answered", async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", fetch: recorder.fetch });
    const { SolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } = await import("@solana/kit");
    const httpError = new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, {
      headers: new Headers(),
      message: "Too Many Requests",
      statusCode: 429,
    });
    const rpc = txray.instrumentRpc(
      {
        sendTransaction: (_wire: string, _config: object) => ({ send: async () => Promise.reject(httpError) }),
        getBlockHeight: () => ({ send: async () => 10n }),
      },
      "https://api.mainnet-beta.solana.com",
    );
    const thrown = await rpc
      .sendTransaction(Buffer.from(legacy([transfer])).toString("base64"), { encoding: "base64" })
      .send()
      .catch((e: unknown) => e);
    expect(thrown).toBe(httpError); // the very same error object
    await txray.flush();
    expect(recorder.envelopes()[0]).toMatchObject({
      kind: "preflight",
      preflightError: "429 Too Many Requests",
      rpcLabel: "public",
      lastValidBlockHeight: 160,
    });
    await txray.close();
  });
});

describe("instrumenting twice", () => {
  test("reports each attempt once (web3.js connection and kit RPC)", async () => {
    const recorder = recordingFetch(async () => new Response('{"accepted":1}', { status: 202 }));
    const txray = createTxray({ apiKey: "txr_live_x", fetch: recorder.fetch });
    const bytes = legacy([transfer]);
    const wire = Buffer.from(bytes).toString("base64");
    const sig = encodeBase58(Transaction.from(bytes).signature!);
    const connection = txray.instrument(
      txray.instrument(
        fakeConnection({ sendTransaction: () => ({ result: sig }), getBlockHeight: () => ({ result: 1 }) }),
      ),
    ) as any;
    await connection._rpcRequest("sendTransaction", [wire, { encoding: "base64" }]);
    const kitRpc = {
      sendTransaction: (_w: string, _c: object) => ({ send: async () => sig }),
      getBlockHeight: () => ({ send: async () => 1n }),
    };
    const rpc = txray.instrumentRpc(txray.instrumentRpc(kitRpc, "http://localhost:8899"), "http://localhost:8899");
    await rpc.sendTransaction(wire, { encoding: "base64" }).send();
    await txray.flush();
    expect(
      recorder
        .envelopes()
        .map((e) => e.rpcLabel)
        .sort(),
    ).toEqual(["helius", "localhost"]);
    await txray.close();
  });
});

describe("keys in a browser", () => {
  test("a key that is not an ingest key warns once in a browser; an ingest key, or a server, does not", async () => {
    const warningsFor = async (apiKey: string, browser: boolean) => {
      const warnings: string[] = [];
      const scope = globalThis as { window?: unknown };
      if (browser) scope.window = {};
      try {
        const recorder = recordingFetch(async () => new Response('{"accepted":0}', { status: 202 }));
        const txray = createTxray({ apiKey, fetch: recorder.fetch, onWarning: (message) => warnings.push(message) });
        await txray.flush();
        await txray.flush();
        await txray.close();
      } finally {
        if (browser) delete scope.window;
      }
      return warnings.filter((message) => message.includes("ingest key"));
    };
    const live = await warningsFor(`txr_live_${"a".repeat(32)}`, true);
    expect(live).toHaveLength(1);
    expect(live[0]).toContain("--kind ingest");
    expect(await warningsFor(`txr_read_${"a".repeat(32)}`, true)).toHaveLength(1);
    expect(await warningsFor(`txr_ingest_${"a".repeat(32)}`, true)).toEqual([]);
    expect(await warningsFor(`txr_live_${"a".repeat(32)}`, false)).toEqual([]);
  });
});
