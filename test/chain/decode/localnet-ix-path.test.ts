// ixPath of a failing top-level instruction that is not the first one (docs/architecture.md: the zero-based
// top-level index, as in the runtime's `InstructionError[index]`). Real transactions on the LiteSVM
// local chain: Compute Budget instructions, then an SPL Token TransferChecked that fails for lack
// of funds; decoded from getTransaction (on chain) and from the preflight simulation logs, with and
// without the client's error text. Then the simulator's own failing scenarios, for a human wallet
// (Compute Budget prefix) and the bot (bare transactions, where index 0 is the right answer).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  SendTransactionError,
  type TransactionInstruction,
} from "@solana/web3.js";
import { type Localnet, mulberry32, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  ChainClient,
  createWorld,
  type ProviderEndpoint,
  rpcHash,
  runAttempt,
  type ScenarioKind,
  type World,
} from "../../../devkit/simulate/index.ts";
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotent,
  createMintInstructions,
  MINT_SIZE,
  mintTo,
  TOKEN_PROGRAM_ID,
  transferChecked,
} from "../../../devkit/simulate/spl.ts";
import { type DecodedStory, decodePreflight, decodeTransaction } from "../../../src/chain/decode";
import { funded, signed } from "../../devkit/localnet/support.ts";

const TOKEN = TOKEN_PROGRAM_ID.toBase58();

let localnet: Localnet;
let connection: Connection;
let client: ChainClient;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  connection = new Connection(localnet.url, "confirmed");
  client = new ChainClient(localnet.url);
});
afterAll(async () => await localnet.stop());

/** The runtime's failing top-level index, from `{ InstructionError: [index, …] }`. */
function errIndex(err: unknown): number {
  const pair = (err as { InstructionError?: [number, unknown] } | null)?.InstructionError;
  if (!pair) throw new Error(`not an InstructionError: ${JSON.stringify(err)}`);
  return pair[0];
}

describe("Compute Budget ×2, then a failing Token transfer", () => {
  let payer: Keypair;
  let transferOf: (amount: bigint) => TransactionInstruction[];

  beforeAll(async () => {
    payer = funded(localnet, 5_000_000_000);
    const mint = Keypair.generate();
    const other = Keypair.generate().publicKey;
    const confirm = async (instructions: TransactionInstruction[], extra: Keypair[] = []) =>
      connection.confirmTransaction(
        await connection.sendRawTransaction(signed(localnet, payer, instructions, extra).serialize()),
        "confirmed",
      );
    const rentLamports = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
    await confirm(
      createMintInstructions({
        payer: payer.publicKey,
        mint: mint.publicKey,
        mintAuthority: payer.publicKey,
        decimals: 6,
        rentLamports,
      }),
      [mint],
    );
    await confirm([
      createAssociatedTokenAccountIdempotent(payer.publicKey, payer.publicKey, mint.publicKey, TOKEN_PROGRAM_ID),
      createAssociatedTokenAccountIdempotent(payer.publicKey, other, mint.publicKey, TOKEN_PROGRAM_ID),
    ]);
    const source = associatedTokenAddress(payer.publicKey, mint.publicKey);
    await confirm([mintTo(mint.publicKey, source, payer.publicKey, 100n)]);
    const destination = associatedTokenAddress(other, mint.publicKey);
    // 100 tokens held: any larger amount fails with SPL Token InsufficientFunds (custom 1).
    transferOf = (amount) => [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
      transferChecked({ source, mint: mint.publicKey, destination, owner: payer.publicKey, amount, decimals: 6 }),
    ];
  });

  test("on chain: ixPath is meta.err's InstructionError index (2), not 0", async () => {
    const signature = await connection.sendRawTransaction(signed(localnet, payer, transferOf(1_000n)).serialize(), {
      skipPreflight: true,
    });
    await connection.confirmTransaction(signature, "confirmed");
    const result = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(result?.meta?.err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    const story = decodeTransaction(JSON.parse(JSON.stringify(result)), undefined, { program: TOKEN });
    expect(story).toMatchObject({
      ixPath: "2",
      cpiDepth: 0,
      topLevelProgram: TOKEN,
      failingProgram: TOKEN,
      instruction: "TransferChecked",
      errCode: 1,
      errName: "InsufficientFunds",
    });
    expect(story.ixPath).toBe(String(errIndex(result!.meta!.err)));
  });

  test("preflight: the same index from web3.js's texts and from the simulation logs alone", async () => {
    let failure: SendTransactionError | null = null;
    try {
      await connection.sendRawTransaction(signed(localnet, payer, transferOf(1_001n)).serialize());
    } catch (error) {
      if (!(error instanceof SendTransactionError)) throw error;
      failure = error;
    }
    expect(failure).not.toBeNull();
    const { message, logs } = failure!.transactionError;
    expect(message).toContain("Error processing Instruction 2");
    // Both Compute Budget instructions log an invoke [1] line: the failing frame is the third top-level one.
    expect(logs?.filter((line) => line.endsWith(" invoke [1]"))).toHaveLength(3);
    for (const preflightError of [message, failure!.message, null]) {
      const story = decodePreflight({ preflightError, simulationLogs: logs ?? [], program: TOKEN });
      expect(story).toMatchObject({ ixPath: "2", cpiDepth: 0, failingProgram: TOKEN, errCode: 1 });
    }
  });
});

describe("the simulator's failing scenarios", () => {
  let world: World;
  let provider: ProviderEndpoint;

  beforeAll(async () => {
    world = await createWorld(connection, client, { seed: 5, payers: 2, recipients: 1 });
    const endpoint = localnet.addProvider({ label: "alpha", dropRate: 0 });
    provider = {
      label: "alpha",
      url: endpoint.url,
      rpcHash: rpcHash(endpoint.url),
      connection: new Connection(endpoint.url, "confirmed"),
    };
  });

  const cases: [ScenarioKind, number, number][] = [
    // kind, index for the human wallet (price ± limit prefix), index for the bot (no price)
    ["token_insufficient", 1, 0],
    ["compute_exceeded", 2, 1],
    ["preflight_token", 1, 0],
  ];
  let attemptNo = 0;

  for (const [kind, humanIndex, botIndex] of cases) {
    test(`${kind}: ixPath equals the runtime's InstructionError index (human ${humanIndex}, bot ${botIndex})`, async () => {
      for (const [payer, expected] of [
        [world.payers[0], humanIndex],
        [world.payers[1], botIndex],
      ] as const) {
        const attempt = await runAttempt(kind, {
          world,
          provider,
          payer,
          recipient: world.recipients[0],
          index: attemptNo++,
          random: mulberry32(1),
          chain: client,
          now: () => 1_750_000_000_000,
          appBroken: false,
          preflightErrorText: "transactionMessage",
        });
        expect(attempt.truth.consistent).toBe(true);
        expect(errIndex(attempt.truth.err)).toBe(expected);
        let story: DecodedStory;
        if (attempt.envelope.kind === "preflight") {
          story = decodePreflight({
            preflightError: attempt.envelope.preflightError,
            simulationLogs: attempt.envelope.simulationLogs,
            program: TOKEN,
          });
        } else {
          const tx = await client.call("getTransaction", [
            attempt.envelope.sig,
            { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
          ]);
          story = decodeTransaction(tx, undefined, { program: TOKEN });
        }
        expect(story.ixPath).toBe(String(expected));
        expect(story.failingProgram).toBe(TOKEN);
      }
    });
  }
});
