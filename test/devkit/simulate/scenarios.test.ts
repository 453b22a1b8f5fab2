// Each simulator scenario, run once through a non-dropping provider: the envelope it produces (every
// required field) and the ground truth, cross-checked against the chain itself.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Connection } from "@solana/web3.js";
import { type Localnet, mulberry32, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  type Attempt,
  type AttemptContext,
  BOT_ADAPTER,
  ChainClient,
  createWorld,
  envelopeSchema,
  type ProviderEndpoint,
  rpcHash,
  runAttempt,
  type ScenarioKind,
  SDK_VERSION,
  type World,
} from "../../../devkit/simulate/index.ts";

const SYSTEM = "11111111111111111111111111111111";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const NOW = 1_750_000_000_000;

let localnet: Localnet;
let client: ChainClient;
let world: World;
let alpha: ProviderEndpoint;
let index = 0;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  client = new ChainClient(localnet.url);
  world = await createWorld(new Connection(localnet.url, "confirmed"), client, { seed: 3, payers: 2, recipients: 1 });
  const provider = localnet.addProvider({ label: "alpha", dropRate: 0 });
  alpha = {
    label: "alpha",
    url: provider.url,
    rpcHash: rpcHash(provider.url),
    connection: new Connection(provider.url, "confirmed"),
  };
});
afterAll(async () => {
  await localnet.stop();
});

/** payers[0] is a human (Phantom, sets a priority fee); payers[1] is the bot (bare transactions). */
function context(overrides: Partial<AttemptContext> = {}): AttemptContext {
  return {
    world,
    provider: alpha,
    payer: world.payers[0],
    recipient: world.recipients[0],
    index: index++,
    random: mulberry32(1),
    chain: client,
    now: () => NOW,
    appBroken: false,
    preflightErrorText: "transactionMessage",
    ...overrides,
  };
}

async function run(kind: ScenarioKind, overrides: Partial<AttemptContext> = {}): Promise<Attempt> {
  const attempt = await runAttempt(kind, context(overrides));
  expect(envelopeSchema.safeParse(attempt.envelope).success).toBe(true);
  expect(attempt.truth.consistent).toBe(true);
  return attempt;
}

async function onChainErr(signature: string) {
  const body = await client.call<{ meta: { err: unknown } } | null>("getTransaction", [
    signature,
    { maxSupportedTransactionVersion: 0 },
  ]);
  return body?.meta.err;
}

describe("world", () => {
  test("payers are funded, the bot has no wallet adapter, the app program is deployed", async () => {
    expect(world.payers.map((p) => p.walletAdapter)).toEqual(["Phantom", BOT_ADAPTER]);
    // payers[0] paid for the setup (mint authority); the bot's airdrop is untouched.
    expect(localnet.chain.getBalance(world.payers[1].keypair.publicKey.toBase58())).toBe(20_000_000_000n);
    const app = localnet.chain.getAccount(world.appProgram!.toBase58());
    expect(app?.owner).toBe("BPFLoaderUpgradeab1e11111111111111111111111");
    expect(alpha.rpcHash).toBe(createHash("sha256").update(new URL(alpha.url).origin).digest("hex").slice(0, 16));
  });
});

describe("scenarios", () => {
  test("sol_transfer lands; the envelope carries every required field and the CU settings", async () => {
    const { envelope, truth } = await run("sol_transfer");
    const latest = localnet.chain.latestBlockhash();
    expect(envelope).toEqual({
      sig: envelope.sig,
      program: SYSTEM,
      blockhash: latest.blockhash,
      lastValidBlockHeight: latest.lastValidBlockHeight,
      sentAt: NOW,
      rpcHash: alpha.rpcHash,
      rpcLabel: "alpha",
      walletAdapter: "Phantom",
      kind: "send",
      preflightError: null,
      simulationLogs: [],
      payer: world.payers[0].keypair.publicKey.toBase58(),
      sdkVersion: SDK_VERSION,
      cuLimit: 1000,
      cuPriceMicroLamports: envelope.cuPriceMicroLamports,
      skipPreflight: false,
      sendPath: "rpc",
      ixPrefix: envelope.ixPrefix,
    });
    expect(envelope.cuPriceMicroLamports! % 1000).toBe(0);
    expect(envelope.ixPrefix).toMatch(/^02000000[0-9a-f]{8}$/); // System Transfer (u32 2), then the lamports' low bytes
    expect(truth).toMatchObject({
      scenario: "sol_transfer",
      outcome: "landed",
      err: null,
      slot: localnet.chain.slot,
      dropCause: null,
    });
    expect(localnet.chain.ledger.get(envelope.sig!)?.err).toBeNull();
  });

  test("token_transfer by the bot lands with no priority fee", async () => {
    const { envelope, truth } = await run("token_transfer", { payer: world.payers[1] });
    expect(envelope).toMatchObject({ program: TOKEN, walletAdapter: BOT_ADAPTER, cuLimit: 20000, kind: "send" });
    expect(envelope.cuPriceMicroLamports).toBeUndefined();
    expect(truth.outcome).toBe("landed");
  });

  test("sol_insufficient and token_insufficient fail on chain with custom error 1 (skipPreflight)", async () => {
    const sol = await run("sol_insufficient");
    expect(sol.envelope.skipPreflight).toBe(true);
    expect(sol.truth).toMatchObject({
      outcome: "failed_onchain",
      err: { InstructionError: [1, { Custom: 1 }] },
      errCode: 1,
      failingProgram: SYSTEM,
    });
    expect(await onChainErr(sol.envelope.sig!)).toEqual({ InstructionError: [1, { Custom: 1 }] });
    const token = await run("token_insufficient", { payer: world.payers[1] });
    expect(token.truth).toMatchObject({
      outcome: "failed_onchain",
      err: { InstructionError: [0, { Custom: 1 }] },
      errCode: 1,
      failingProgram: TOKEN,
    });
  });

  test("compute_exceeded starves the token program", async () => {
    const { envelope, truth } = await run("compute_exceeded");
    expect(envelope.cuLimit).toBe(350);
    expect(truth).toMatchObject({
      outcome: "failed_onchain",
      err: { InstructionError: [2, "ProgramFailedToComplete"] },
      errCode: null,
      failingProgram: TOKEN,
    });
    const record = localnet.chain.ledger.get(envelope.sig!)!;
    expect(record.computeUnitsConsumed).toBe(350);
    expect(record.logMessages.at(-1)).toBe(`Program ${TOKEN} failed: exceeded CUs meter at BPF instruction`);
  });

  test("preflight_sol captures web3.js's message and the simulation logs; the signature never lands", async () => {
    const { envelope, truth } = await run("preflight_sol", { payer: world.payers[1] });
    expect(envelope.kind).toBe("preflight");
    expect(envelope.preflightError).toBe(
      "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
    );
    expect(envelope.simulationLogs).toEqual([
      `Program ${SYSTEM} invoke [1]`,
      expect.stringMatching(/^Transfer: insufficient lamports \d+, need 1000000000000\d+$/),
      `Program ${SYSTEM} failed: custom program error: 0x1`,
    ]);
    expect(envelope.sig).not.toBeNull();
    expect(localnet.chain.ledger.has(envelope.sig!)).toBe(false);
    expect(truth).toMatchObject({ outcome: "preflight", err: { InstructionError: [0, { Custom: 1 }] } });
  });

  test("preflightErrorText 'message' keeps web3.js's full SendTransactionError text", async () => {
    const { envelope } = await run("preflight_token", { preflightErrorText: "message" });
    expect(envelope.preflightError).toStartWith(
      "Simulation failed. \nMessage: Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1. \nLogs: \n[",
    );
    expect(envelope.simulationLogs).toContain("Program log: Error: insufficient funds");
  });

  test("preflight_unsigned has no signature; preflight_blockhash fails on the stale blockhash", async () => {
    const unsigned = await run("preflight_unsigned");
    expect(unsigned.envelope.sig).toBeNull();
    expect(unsigned.envelope.preflightError).toBe(
      "Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1",
    );
    expect(unsigned.envelope.simulationLogs).toHaveLength(5); // SetComputeUnitPrice (2 lines) + the failing transfer (3)
    expect(unsigned.envelope.simulationLogs[4]).toBe(`Program ${SYSTEM} failed: custom program error: 0x1`);
    const height = localnet.chain.blockHeight;
    const stale = await run("preflight_blockhash");
    expect(localnet.chain.blockHeight).toBe(height + 151);
    expect(stale.envelope.preflightError).toBe("Transaction simulation failed: Blockhash not found");
    expect(stale.envelope.simulationLogs).toEqual([]);
    expect(stale.envelope.lastValidBlockHeight).toBe(height + 150);
    expect(stale.truth.err).toBe("BlockhashNotFound");
  });

  test("expired: sent with skipPreflight on a dead blockhash, answered, never lands", async () => {
    const { envelope, truth } = await run("expired");
    expect(envelope.kind).toBe("send");
    expect(envelope.lastValidBlockHeight).toBeLessThan(localnet.chain.blockHeight);
    expect(truth).toMatchObject({ outcome: "dropped", dropCause: "stale_blockhash", expectedOutcome: "dropped" });
    expect(await client.signatureStatus(envelope.sig!)).toBeNull();
  });

  test("app_call lands on the memo release and fails with 0xc on the broken release", async () => {
    const ok = await run("app_call");
    expect(ok.envelope.program).toBe(world.appProgram!.toBase58());
    expect(ok.truth.outcome).toBe("landed");
    await client.deployProgram({ programId: world.appProgram!.toBase58(), template: "spl-token" });
    const broken = await run("app_call", { appBroken: true });
    expect(broken.truth).toMatchObject({
      outcome: "failed_onchain",
      err: { InstructionError: [1, { Custom: 12 }] },
      errCode: 12,
      failingProgram: world.appProgram!.toBase58(),
    });
  });

  test("a provider that does not forward turns a send into a drop", async () => {
    const black = localnet.addProvider({ label: "black", dropRate: 1 });
    const provider = {
      label: "black",
      url: black.url,
      rpcHash: rpcHash(black.url),
      connection: new Connection(black.url, "confirmed"),
    };
    const { envelope, truth } = await run("token_insufficient", { provider });
    expect(envelope).toMatchObject({ kind: "send", rpcLabel: "black", rpcHash: provider.rpcHash });
    expect(truth).toMatchObject({
      outcome: "dropped",
      dropCause: "provider_not_forwarding",
      expectedOutcome: "failed_onchain",
      consistent: true,
    });
    expect(provider.rpcHash).not.toBe(alpha.rpcHash);
  });
});
