// One attempt of each scenario, end to end: build a real transaction, send it through a provider
// with web3.js exactly as a dapp would (preflight or skipPreflight), capture what the SDK would see
// (signature, web3.js error text, simulation logs), then look the signature up on the chain to record
// what truly happened. `planFor` says what each scenario sends and expects; `runAttempt` executes.

import {
  ComputeBudgetProgram,
  type Connection,
  type PublicKey,
  SendTransactionError,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import { encodeBase58 } from "../../src/shared/base58.ts";
import type { Envelope } from "../../src/shared/envelope.ts";
import { MAX_PROCESSING_AGE } from "../localnet/blocks.ts";
import { displayTransactionError, type TransactionErrorJson } from "../localnet/errors.ts";
import type { Random } from "../localnet/prng.ts";
import type { ChainClient } from "./chain-client.ts";
import { BOT_ADAPTER, type Wallet, type World } from "./fixtures.ts";
import { TOKEN_PROGRAM_ID, transferChecked } from "./spl.ts";
import type { Attempt, DropCause, Outcome, ScenarioKind } from "./truth.ts";

/** The sdkVersion of the simulator's envelopes: txray ingests exactly what the SDK sends, from another client. */
export const SDK_VERSION = "txray-simulator/0.1.0";

/** Units the Compute Budget program's own instructions consume. */
const COMPUTE_BUDGET_IX_UNITS = 150;
/** Units left to the token program in compute_exceeded: below what a transfer needs. */
const STARVED_UNITS = 50;
/** Custom error the "broken" app release (SPL Token code under the app's id) answers to a memo. */
export const BROKEN_APP_ERROR = 12;
const HUGE_AMOUNT = 1_000_000_000_000_000n;

export interface ProviderEndpoint {
  label: string;
  url: string;
  rpcHash: string;
  connection: Connection;
}

export interface AttemptContext {
  world: World;
  provider: ProviderEndpoint;
  payer: Wallet;
  recipient: Wallet;
  /** Attempt number; folded into amounts so no two attempts share a signature. */
  index: number;
  random: Random;
  chain: ChainClient;
  now: () => number;
  /** True once the app program was redeployed with the broken release. */
  appBroken: boolean;
  /** Which web3.js text becomes preflightError (default "transactionMessage"). */
  preflightErrorText: "transactionMessage" | "message";
}

interface Plan {
  program: PublicKey;
  instructions: TransactionInstruction[];
  skipPreflight: boolean;
  cuLimit?: number;
  cuPriceMicroLamports?: number;
  /** Let the blockhash expire between fetching it and sending. */
  stale?: boolean;
  /** Wallet-style simulation before signing (no signature exists if it fails). */
  simulateUnsigned?: boolean;
  expectedOutcome: Outcome;
  expectedErr: TransactionErrorJson | null;
}

const custom = (index: number, code: number): TransactionErrorJson => ({ InstructionError: [index, { Custom: code }] });

/** Human wallets set a priority fee (and often a CU limit); the bot sends bare transactions. */
function budgetPrefix(ctx: AttemptContext, cuLimit: number | undefined) {
  const instructions: TransactionInstruction[] = [];
  let cuPriceMicroLamports: number | undefined;
  if (cuLimit !== undefined) instructions.push(ComputeBudgetProgram.setComputeUnitLimit({ units: cuLimit }));
  if (ctx.payer.walletAdapter !== BOT_ADAPTER) {
    cuPriceMicroLamports = 1_000 * (1 + Math.floor(ctx.random() * 50));
    instructions.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: cuPriceMicroLamports }));
  }
  return { instructions, cuPriceMicroLamports };
}

export function planFor(kind: ScenarioKind, ctx: AttemptContext): Plan {
  const { payer, recipient, world, index } = ctx;
  const solTransfer = (lamports: bigint) =>
    SystemProgram.transfer({ fromPubkey: payer.keypair.publicKey, toPubkey: recipient.keypair.publicKey, lamports });
  const tokenTransfer = (amount: bigint) =>
    transferChecked({
      source: payer.tokenAccount,
      mint: world.mint,
      destination: recipient.tokenAccount,
      owner: payer.keypair.publicKey,
      amount,
      decimals: world.decimals,
    });
  const plan = (
    program: PublicKey,
    main: TransactionInstruction,
    options: {
      cuLimit?: number;
      skipPreflight?: boolean;
      failure?: (index: number) => TransactionErrorJson;
      expected?: Outcome;
    } & Partial<Plan>,
  ): Plan => {
    const prefix = budgetPrefix(ctx, options.cuLimit);
    const mainIndex = prefix.instructions.length;
    return {
      program,
      instructions: [...prefix.instructions, main],
      skipPreflight: options.skipPreflight ?? false,
      cuLimit: options.cuLimit,
      cuPriceMicroLamports: prefix.cuPriceMicroLamports,
      stale: options.stale,
      simulateUnsigned: options.simulateUnsigned,
      expectedOutcome: options.expected ?? (options.failure ? "failed_onchain" : "landed"),
      expectedErr: options.failure ? options.failure(mainIndex) : null,
    };
  };
  const unique = BigInt(index + 1);
  switch (kind) {
    case "sol_transfer":
      return plan(SystemProgram.programId, solTransfer(1_000n + unique), { cuLimit: 1_000 });
    case "token_transfer":
      return plan(TOKEN_PROGRAM_ID, tokenTransfer(unique), { cuLimit: 20_000 });
    case "app_call": {
      const app = world.appProgram!;
      const memo = new TransactionInstruction({ programId: app, keys: [], data: Buffer.from(`txray #${index}`) });
      return plan(app, memo, {
        skipPreflight: true,
        failure: ctx.appBroken ? (i) => custom(i, BROKEN_APP_ERROR) : undefined,
      });
    }
    case "sol_insufficient":
      return plan(SystemProgram.programId, solTransfer(HUGE_AMOUNT + unique), {
        skipPreflight: true,
        failure: (i) => custom(i, 1),
      });
    case "token_insufficient":
      return plan(TOKEN_PROGRAM_ID, tokenTransfer(HUGE_AMOUNT + unique), {
        skipPreflight: true,
        failure: (i) => custom(i, 1),
      });
    case "compute_exceeded": {
      // Limit = what the budget instructions themselves burn + a few units: the token program starves.
      const budgetIxs = ctx.payer.walletAdapter === BOT_ADAPTER ? 1 : 2;
      const cuLimit = budgetIxs * COMPUTE_BUDGET_IX_UNITS + STARVED_UNITS;
      return plan(TOKEN_PROGRAM_ID, tokenTransfer(unique), {
        cuLimit,
        skipPreflight: true,
        failure: (i) => ({ InstructionError: [i, "ProgramFailedToComplete"] }),
      });
    }
    case "preflight_sol":
      return plan(SystemProgram.programId, solTransfer(HUGE_AMOUNT + unique), {
        failure: (i) => custom(i, 1),
        expected: "preflight",
      });
    case "preflight_token":
      return plan(TOKEN_PROGRAM_ID, tokenTransfer(HUGE_AMOUNT + unique), {
        failure: (i) => custom(i, 1),
        expected: "preflight",
      });
    case "preflight_blockhash":
      return plan(SystemProgram.programId, solTransfer(1_000n + unique), {
        stale: true,
        failure: () => "BlockhashNotFound",
        expected: "preflight",
      });
    case "preflight_unsigned":
      return plan(SystemProgram.programId, solTransfer(HUGE_AMOUNT + unique), {
        simulateUnsigned: true,
        failure: (i) => custom(i, 1),
        expected: "preflight",
      });
    case "expired":
      return plan(SystemProgram.programId, solTransfer(1_000n + unique), {
        stale: true,
        skipPreflight: true,
        expected: "dropped",
      });
  }
}

function failingProgram(err: TransactionErrorJson | null, instructions: TransactionInstruction[]): string | null {
  if (err && typeof err === "object" && "InstructionError" in err)
    return instructions[err.InstructionError[0]]?.programId.toBase58() ?? null;
  return null;
}

function customCode(err: TransactionErrorJson | null): number | null {
  if (err && typeof err === "object" && "InstructionError" in err) {
    const inner = err.InstructionError[1];
    if (typeof inner === "object" && "Custom" in inner) return inner.Custom;
  }
  return null;
}

/** The envelope's ixPrefix, as the SDK computes it: the first 8 data bytes of the program's first instruction. */
function ixPrefixOf(plan: Plan): { ixPrefix?: string } {
  const main = plan.instructions.find((ix) => ix.programId.equals(plan.program));
  return main ? { ixPrefix: Buffer.from(main.data.subarray(0, 8)).toString("hex") } : {};
}

/** Runs one attempt of `kind` through `ctx.provider` and returns its envelope with the ground truth. */
export async function runAttempt(kind: ScenarioKind, ctx: AttemptContext): Promise<Attempt> {
  const plan = planFor(kind, ctx);
  const { connection } = ctx.provider;
  const payer = ctx.payer.keypair;
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  if (plan.stale) await ctx.chain.advanceBlocks(MAX_PROCESSING_AGE + 1);
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...plan.instructions);

  const envelope = (
    fields: Pick<Envelope, "sig" | "kind" | "preflightError" | "simulationLogs">,
    sentAt: number,
  ): Envelope => ({
    ...fields,
    program: plan.program.toBase58(),
    blockhash,
    lastValidBlockHeight,
    sentAt,
    rpcHash: ctx.provider.rpcHash,
    rpcLabel: ctx.provider.label,
    walletAdapter: ctx.payer.walletAdapter,
    payer: payer.publicKey.toBase58(),
    sdkVersion: SDK_VERSION,
    ...(plan.cuLimit !== undefined ? { cuLimit: plan.cuLimit } : {}),
    ...(plan.cuPriceMicroLamports !== undefined ? { cuPriceMicroLamports: plan.cuPriceMicroLamports } : {}),
    skipPreflight: plan.skipPreflight,
    sendPath: "rpc",
    ...ixPrefixOf(plan),
  });
  const finish = (
    env: Envelope,
    outcome: Outcome,
    err: TransactionErrorJson | null,
    extra: { dropCause?: DropCause; slot?: number } = {},
  ): Attempt => {
    const dropCause = extra.dropCause ?? null;
    const sameErr = JSON.stringify(err) === JSON.stringify(plan.expectedErr);
    const consistent =
      (outcome === plan.expectedOutcome && (outcome === "dropped" || sameErr)) ||
      (outcome === "dropped" &&
        dropCause === "provider_not_forwarding" &&
        (plan.expectedOutcome === "landed" || plan.expectedOutcome === "failed_onchain"));
    return {
      envelope: env,
      truth: {
        scenario: kind,
        provider: ctx.provider.label,
        outcome,
        err,
        errCode: customCode(err),
        failingProgram: failingProgram(err, plan.instructions),
        dropCause,
        slot: extra.slot ?? null,
        expectedOutcome: plan.expectedOutcome,
        expectedErr: plan.expectedErr,
        consistent,
      },
    };
  };

  if (plan.simulateUnsigned) {
    const sentAt = ctx.now();
    const simulation = await connection.simulateTransaction(new VersionedTransaction(tx.compileMessage()), {
      sigVerify: false,
    });
    const err = simulation.value.err as TransactionErrorJson | null;
    if (err !== null) {
      const preflightError = `Transaction simulation failed: ${displayTransactionError(err)}`;
      return finish(
        envelope({ sig: null, kind: "preflight", preflightError, simulationLogs: simulation.value.logs ?? [] }, sentAt),
        "preflight",
        err,
      );
    }
  }

  tx.sign(payer);
  const signature = encodeBase58(tx.signature!);
  const wire = tx.serialize();
  const sentAt = ctx.now();
  try {
    await connection.sendRawTransaction(wire, { skipPreflight: plan.skipPreflight, maxRetries: 0 });
  } catch (error) {
    if (!(error instanceof SendTransactionError)) throw error;
    const { message: transactionMessage, logs } = error.transactionError;
    const preflightError = ctx.preflightErrorText === "message" ? error.message : transactionMessage;
    const simulationLogs = logs ?? [];
    // web3.js keeps only the text; re-simulate the same bytes to record the error as JSON.
    const replay = await ctx.chain.call<{ value: { err: TransactionErrorJson | null } }>("simulateTransaction", [
      wire.toString("base64"),
      { encoding: "base64", sigVerify: true },
    ]);
    return finish(
      envelope({ sig: signature, kind: "preflight", preflightError, simulationLogs }, sentAt),
      "preflight",
      replay.value.err,
    );
  }
  const sent = envelope({ sig: signature, kind: "send", preflightError: null, simulationLogs: [] }, sentAt);
  const status = await ctx.chain.signatureStatus(signature);
  if (!status)
    return finish(sent, "dropped", null, { dropCause: plan.stale ? "stale_blockhash" : "provider_not_forwarding" });
  return finish(sent, status.err === null ? "landed" : "failed_onchain", status.err, { slot: status.slot });
}
