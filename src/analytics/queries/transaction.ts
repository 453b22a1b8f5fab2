// tx/{sig} (docs/api.md#get-v1txsig): everything the chain recorded about one transaction, for the
// transaction page next to `why`'s story: accounts (signer, writable, loaded from an address lookup
// table), SOL and token balance changes, fee and priority fee, compute used, requested and cost
// units, the recent blockhash with the envelope's last valid block height, finality, instructions
// numbered as Solana Explorer numbers them with IDL-decoded arguments, logs and the raw JSON.
// The transaction is the one `why` keeps (src/chain/resolve/transaction-details.ts): a fetch is
// made once, within the caller's chain budget (WHY_CHAIN_PER_MINUTE; for a signature txray never
// ingested also WHY_CHAIN_LOOKUPS_PER_MINUTE).
//
// Also here: the chain figures `why` adds to its story (`fee`, `cuPriceMicroLamports`,
// `priorityFee`, `costUnits`, `outsideSample`). A success the resolver decided from its status alone
// (outside the success sample, so its story has no compute figure) has its transaction fetched on
// demand the same way, which gives it compute used and requested, fee and logs.

import {
  type CallFrame,
  callStack,
  type DetailAccount,
  type DetailInstruction,
  type DetailTokenBalance,
  type TransactionDetails,
  transactionDetails,
} from "../../chain/decode";
import type { IdlRegistry } from "../../chain/idl";
import { attemptsForSignature, type IndexedAttempt, keptTransaction, signatureStatus } from "../../chain/resolve";
import type { RpcClient } from "../../chain/rpc";
import type { Context } from "../../context";
import { readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { addDays, partitionFiles } from "../../lake/partitions";
import { utcDay } from "../../lake/paths";
import { isBase58Signature } from "../../shared/base58";
import { badRequest, notFound, TxrayError } from "../../shared/errors";
import type { ExplorerLinks } from "../../shared/explorer-links";
import { describeError } from "../../shared/logger";

/** What this needs of `why`'s dependencies (WhyDeps has them all). */
export type TransactionDeps = {
  rpc: RpcClient;
  idls: IdlRegistry;
  mayAskChain?: (client: string, neverIngested: boolean) => { allowed: boolean; retryAfterSeconds: number };
  explorerLinks?: (sig: string) => ExplorerLinks | null;
};

export type TransactionAnswer = Omit<TransactionDetails, "err"> & {
  sig: string;
  outcome: "landed" | "failed_onchain";
  /** meta.err as the chain reported it; null on success. */
  err: unknown;
  slot: number | null;
  blockTime: number | null;
  /** The status the chain gave when asked with this answer; null when it was not asked (budget) or has none. */
  confirmationStatus: "processed" | "confirmed" | "finalized" | null;
  /** The sending envelope's lastValidBlockHeight, when txray took one in for this signature. */
  lastValidBlockHeight: number | null;
  /** The `getTransaction` result as the RPC returned it. */
  raw: unknown;
  links: ExplorerLinks | null;
};

const CHAIN_RETRY_AFTER_SECONDS = 30;

const unavailable = () =>
  new TxrayError(
    "unavailable",
    "the Solana RPC endpoint could not be reached to look this transaction up; try again later",
    {
      retryAfterSeconds: CHAIN_RETRY_AFTER_SECONDS,
    },
  );

type TransactionJson = { slot?: number; blockTime?: number | null; meta?: { err?: unknown } | null };

export async function transaction(
  ctx: Context,
  deps: TransactionDeps,
  params: { sig: string; client?: string },
): Promise<TransactionAnswer> {
  if (!isBase58Signature(params.sig)) throw badRequest("sig: expected a base58 64-byte transaction signature");
  const sig = params.sig;
  const client = params.client ?? "local";
  const attempts = attemptsForSignature(ctx, sig);
  let retryAfter = 0;
  const mayAsk = () => {
    const decision = deps.mayAskChain?.(client, attempts.length === 0);
    if (decision && !decision.allowed) retryAfter = decision.retryAfterSeconds;
    return !decision || decision.allowed;
  };
  let kept: Awaited<ReturnType<typeof keptTransaction>>;
  try {
    kept = await keptTransaction(deps.rpc, ctx.control, sig, ctx.clock(), mayAsk);
  } catch (error) {
    ctx.logger.warn("transaction look-up failed", { error: describeError(error) });
    throw unavailable();
  }
  if (kept.refused)
    throw new TxrayError("rate_limited", `too many chain look-ups from this client; retry in ${retryAfter}s`, {
      retryAfterSeconds: retryAfter,
    });
  const tx = kept.tx as TransactionJson | null;
  const details = tx ? transactionDetails(tx, deps.idls) : null;
  if (!tx || !details) throw notFound("the chain has no transaction with this signature (see why/{sig} for its story)");
  let status = kept.status;
  // A transaction read from the store: its finality is asked again when the budget allows (a page never fails for it).
  if (status === null && mayAsk()) status = await signatureStatus(deps.rpc, sig).catch(() => null);
  const err = tx.meta?.err ?? null;
  return {
    sig,
    outcome: err === null ? "landed" : "failed_onchain",
    slot: tx.slot ?? null,
    blockTime: typeof tx.blockTime === "number" ? tx.blockTime * 1000 : null,
    confirmationStatus: status?.confirmationStatus ?? null,
    lastValidBlockHeight: await envelopeExpiry(ctx, attempts),
    ...details,
    err,
    raw: tx,
    links: deps.explorerLinks?.(sig) ?? null,
  };
}

/** The lastValidBlockHeight the attempt's envelope carried: from the open attempt, else its envelope row in the lake. */
async function envelopeExpiry(ctx: Context, attempts: IndexedAttempt[]): Promise<number | null> {
  const open = attempts.find((entry) => entry.state === "open");
  if (open?.state === "open" && typeof open.attempt.lastValidBlockHeight === "number")
    return open.attempt.lastValidBlockHeight;
  const entry = attempts.find((candidate) => candidate.state === "resolved" && candidate.outcome !== "dropped");
  if (!entry) return null;
  const first = utcDay(entry.sentAt);
  const files = () =>
    [addDays(first, -1), first, addDays(first, 1)].flatMap((day) =>
      partitionFiles(ctx.paths.partition("envelopes", entry.program, day)),
    );
  try {
    const [row] = await readAgainAfterSwap(async () => {
      const list = files();
      if (list.length === 0) return [];
      return await ctx.duck.all<{ last_valid_block_height: number | bigint | null }>(
        `SELECT last_valid_block_height FROM read_parquet([${list.map(sqlString).join(", ")}], union_by_name = true)
         WHERE attempt_id = ${sqlString(entry.attemptId)} LIMIT 1`,
      );
    });
    const height = row?.last_valid_block_height;
    return height === null || height === undefined ? null : Number(height);
  } catch (error) {
    ctx.logger.warn("envelope read failed", { error: describeError(error) });
    return null;
  }
}

/** What `why` adds to its story from the transaction, when txray holds it (docs/api.md#get-v1whysig). */
export type ChainFigures = {
  /** meta.fee, lamports. */
  fee: number | null;
  /** The SetComputeUnitPrice the transaction paid, µlamports per compute unit (0 without one). */
  cuPriceMicroLamports: number | null;
  /** Its priority fee, lamports: ceil(price × requested compute units / 1,000,000). */
  priorityFee: number | null;
  /** meta.costUnits: what the block scheduler charged it; null where the RPC does not report it. */
  costUnits: number | null;
  /**
   * A success txray decided from its status alone (outside the success sample, RESOLVE_SAMPLE_RATE): its
   * compute, fee and logs come from a fetch on demand, and are null when the chain could not be asked now.
   */
  outsideSample: boolean;
};

type StoryFields = {
  sig: string;
  outcome: string;
  source: "ingested" | "chain";
  program: string | null;
  instruction: string | null;
  failingInstruction?: string | null;
  ixPath: string | null;
  cuUsed: number | null;
  cuRequested: number | null;
  logs: string[] | null;
  callStack: CallFrame[] | null;
};

/**
 * `why`'s story with the chain figures of its transaction: read from the store when kept there; fetched
 * (within the client's budget) for a success outside the success sample, which also gains its compute
 * and logs. The story is never failed for want of them.
 */
export async function withChainFigures<T extends StoryFields>(
  ctx: Context,
  deps: TransactionDeps,
  client: string,
  story: T,
): Promise<T & ChainFigures> {
  const outsideSample = story.outcome === "landed" && story.source === "ingested" && story.cuUsed === null;
  const none = { fee: null, cuPriceMicroLamports: null, priorityFee: null, costUnits: null, outsideSample };
  let tx: unknown = null;
  try {
    const mayFetch = () => outsideSample && (deps.mayAskChain?.(client, false).allowed ?? true);
    tx = (await keptTransaction(deps.rpc, ctx.control, story.sig, ctx.clock(), mayFetch)).tx;
  } catch (error) {
    ctx.logger.warn("on-demand transaction fetch failed", { error: describeError(error) });
  }
  const details = tx ? transactionDetails(tx, deps.idls) : null;
  if (!details) return { ...story, ...none };
  const figures = {
    fee: details.fee.lamports,
    cuPriceMicroLamports: details.fee.cuPriceMicroLamports,
    priorityFee: details.fee.priorityLamports,
    costUnits: details.compute.costUnits,
    outsideSample,
  };
  if (!outsideSample) return { ...story, ...figures };
  const logs = details.logs && details.logs.length > 0 ? details.logs : null;
  return {
    ...story,
    cuUsed: details.compute.used,
    cuRequested: details.compute.requested ?? story.cuRequested,
    logs,
    callStack: logs
      ? callStack(logs, {
          program: story.program,
          instruction: story.instruction,
          failingInstruction: story.failingInstruction ?? null,
          ixPath: story.ixPath,
        })
      : null,
    ...figures,
  };
}

export type { DetailAccount, DetailInstruction, DetailTokenBalance };
