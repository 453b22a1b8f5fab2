// why/{sig} (docs/api.md#get-v1whysig): the decoded failure story of one signature. Answers from the attempt index
// (resolved attempts txray ingested); a signature txray holds but has not resolved (spool, lake or
// queue) is `pending` (404 with Retry-After); a signature txray never saw is fetched from the chain and
// decoded on demand, like a block explorer would (cached, so it is fetched once); a chain that cannot
// be reached is 503 `unavailable` with Retry-After. Every field of the story is always present,
// `null` where it does not apply; `issue` is null for a landed transaction.

import type { Context } from "../../context";
import { indexedAttemptsBySignature, issueCounts, type IndexedAttempt } from "../../control";
import { callStack, decodeTransaction, storyFingerprint, type CallFrame, type DecodedStory } from "../../chain/decode";
import type { IdlRegistry } from "../../chain/idl";
import { transaction, type DropDiagnosis, type Outcome } from "../../chain/resolve";
import type { RpcClient } from "../../chain/rpc";
import { isBase58Signature } from "../../shared/base58";
import { badRequest, notFound, TxrayError } from "../../shared/errors";
import { describeError } from "../../shared/logger";
import { issueTitle } from "../../shared/issue-title";
import type { ExplorerLinks } from "../../shared/explorer-links";
import { evidenceByAttempt } from "./attempt-evidence";
import { throwIfUnresolved } from "./held";

export type WhyDeps = {
  rpc: RpcClient;
  idls: IdlRegistry;
  payerBotScore?: (payer: string) => Promise<number | null>;
  /** The issue as the serving tables count it (top-issues); null before they know it. */
  issueSummary?: (fingerprint: string) => Promise<IssueCounts | null>;
  /** Links to the transaction on public explorers (EXPLORER_CLUSTER); null when off (a local chain). */
  explorerLinks?: (sig: string) => ExplorerLinks | null;
};

export type IssueCounts = { fingerprint: string; count7d: number; firstSeen: number };
/** The issue block of a story: its counts and its title (docs/api.md#issue-titles). */
export type IssueRef = IssueCounts & { title: string };

export type WhyAnswer = {
  sig: string;
  outcome: Outcome;
  program: string | null;
  instruction: string | null;
  ixPath: string | null;
  cpiDepth: number | null;
  errCode: number | null;
  errName: string | null;
  cuUsed: number | null;
  cuRequested: number | null;
  payer: string | null;
  payerBotScore: number | null;
  issue: IssueRef | null;
  // Beyond the minimum every surface relies on (documented in docs/api.md):
  failingProgram: string | null;
  /** The innermost failing frame's instruction (`instruction` is the targeted program's). */
  failingInstruction: string | null;
  errMessage: string | null;
  computeExceeded: boolean;
  logTruncated: boolean;
  slot: number | null;
  blockTime: number | null;
  sentAt: number | null;
  dropClass: string | null;
  rpcLabel: string | null;
  source: "ingested" | "chain";
  /** Program logs of a failure (transaction or simulation), as recorded; null otherwise or when none were kept. */
  logs: string[] | null;
  /** The call stack rebuilt from those logs, the failing frame marked (docs/api.md#the-call-stack). */
  callStack: CallFrame[] | null;
  links: ExplorerLinks | null;
};

export type StoredStory = { outcome: Outcome; slot: number | null; blockTime: number | null; err: string | null; story: DecodedStory; drop: DropDiagnosis | null; fingerprint: string | null };

export function requireSignature(sig: string): string {
  if (!isBase58Signature(sig)) throw badRequest("sig: expected a base58 64-byte transaction signature");
  return sig;
}

/** The attempt a signature stands for: one that reached the chain wins over a drop of a resend. */
export function attemptsBySig(ctx: Context, sig: string): IndexedAttempt[] {
  return indexedAttemptsBySignature(ctx.control, sig);
}

/** 404 `pending` with Retry-After when txray holds the signature unresolved (spool, lake or queue). */
export async function throwIfPending(ctx: Context, sig: string): Promise<void> {
  await throwIfUnresolved(ctx, sig);
}

/**
 * The chain's transaction for an on-demand answer. The chain is outside txray: when the RPC endpoint
 * cannot be reached or fails, the answer is 503 `unavailable` with Retry-After, never a 500.
 */
async function fetchFromChain(ctx: Context, deps: WhyDeps, sig: string): Promise<unknown | null> {
  try {
    return await transaction(deps.rpc, ctx.control, sig, ctx.clock());
  } catch (error) {
    ctx.logger.warn("on-demand transaction fetch failed", { error: describeError(error) });
    throw new TxrayError("unavailable", "the Solana RPC endpoint could not be reached to look this signature up; try again later", {
      retryAfterSeconds: CHAIN_RETRY_AFTER_SECONDS,
    });
  }
}

const CHAIN_RETRY_AFTER_SECONDS = 30;

/**
 * The issue block: from the serving tables (the same numbers as top-issues) when they know the
 * fingerprint; otherwise counted from the attempt index, which is current to the last resolve run
 * (a new issue appears in why/ before the next tables build).
 */
async function issueBlock(ctx: Context, deps: WhyDeps, fingerprint: string | null, seenAt: number | null = null): Promise<IssueCounts | null> {
  if (fingerprint === null) return null;
  const fromTables = (await deps.issueSummary?.(fingerprint)) ?? null;
  if (fromTables) return fromTables;
  return issueRef(ctx, fingerprint, seenAt);
}

/** count7d and firstSeen of an issue over every account's resolved attempts (public aggregate). */
export function issueRef(ctx: Context, fingerprint: string | null, seenAt: number | null = null): IssueCounts | null {
  if (fingerprint === null) return null;
  const since = ctx.clock() - 7 * 86_400_000;
  const counts = issueCounts(ctx.control, fingerprint, since);
  // An issue txray has not seen before (a transaction decoded on demand) was first seen at that transaction.
  return { fingerprint, count7d: counts.count, firstSeen: counts.firstSeen ?? seenAt ?? ctx.clock() };
}

export async function why(ctx: Context, deps: WhyDeps, params: { sig: string }): Promise<WhyAnswer> {
  const sig = requireSignature(params.sig);
  const [attempt] = attemptsBySig(ctx, sig);
  if (attempt) {
    const stored = JSON.parse(attempt.story) as StoredStory;
    const evidence = failed(stored.outcome) ? await evidenceByAttempt(ctx, { program: attempt.program, attemptId: attempt.attempt_id, resolvedAt: attempt.resolved_at }) : null;
    return answer(sig, stored.outcome, stored.story, {
      program: attempt.program,
      payer: attempt.payer,
      payerBotScore: (await deps.payerBotScore?.(attempt.payer)) ?? null,
      issue: await issueBlock(ctx, deps, stored.fingerprint),
      slot: stored.slot,
      blockTime: stored.blockTime,
      sentAt: attempt.sent_at,
      dropClass: stored.drop?.dropClass ?? null,
      rpcLabel: attempt.rpc_label,
      source: "ingested",
      logs: evidence && evidence.logs.length > 0 ? evidence.logs : null,
      links: deps.explorerLinks?.(sig) ?? null,
    });
  }
  await throwIfPending(ctx, sig);

  const tx = (await fetchFromChain(ctx, deps, sig)) as {
    slot?: number; blockTime?: number | null; meta?: { err?: unknown; logMessages?: string[] | null } | null; transaction?: { message?: { accountKeys?: unknown[] } };
  } | null;
  if (!tx) throw notFound("txray has no attempt with this signature and the chain has no such transaction");
  const story = decodeTransaction(tx, deps.idls);
  const outcome: Outcome = tx.meta?.err === null || tx.meta?.err === undefined ? "landed" : "failed_onchain";
  const program = story.topLevelProgram;
  const payer = feePayer(tx);
  return answer(sig, outcome, story, {
    program,
    payer,
    payerBotScore: payer ? ((await deps.payerBotScore?.(payer)) ?? null) : null,
    issue: outcome === "failed_onchain" && program ? await issueBlock(ctx, deps, storyFingerprint(program, outcome, story), typeof tx.blockTime === "number" ? tx.blockTime * 1000 : null) : null,
    slot: tx.slot ?? null,
    blockTime: typeof tx.blockTime === "number" ? tx.blockTime * 1000 : null,
    sentAt: null,
    dropClass: null,
    rpcLabel: null,
    source: "chain",
    logs: failed(outcome) && Array.isArray(tx.meta?.logMessages) && tx.meta.logMessages.length > 0 ? tx.meta.logMessages : null,
    links: deps.explorerLinks?.(sig) ?? null,
  });
}

/** Outcomes whose logs the tx page shows (the lake keeps logs for failures, docs/lake.md). */
const failed = (outcome: Outcome) => outcome === "failed_onchain" || outcome === "preflight";

function answer(
  sig: string,
  outcome: Outcome,
  story: DecodedStory,
  extra: Pick<WhyAnswer, "program" | "payer" | "payerBotScore" | "slot" | "blockTime" | "sentAt" | "dropClass" | "rpcLabel" | "source" | "logs" | "links"> & { issue: IssueCounts | null },
): WhyAnswer {
  const failingInstruction = story.failingInstruction ?? null; // absent from stories stored before it existed
  const title = issueTitle({ outcome, errName: story.errName, errCode: story.errCode, dropClass: extra.dropClass, instruction: story.instruction });
  return {
    sig,
    outcome,
    program: extra.program,
    instruction: story.instruction,
    ixPath: story.ixPath,
    cpiDepth: story.cpiDepth,
    errCode: story.errCode,
    errName: story.errName,
    cuUsed: story.cuUsed,
    cuRequested: story.cuRequested,
    payer: extra.payer,
    payerBotScore: extra.payerBotScore,
    issue: extra.issue ? { ...extra.issue, title } : null,
    failingProgram: story.failingProgram,
    failingInstruction,
    errMessage: story.errMessage,
    computeExceeded: story.computeExceeded,
    logTruncated: story.logTruncated,
    slot: extra.slot,
    blockTime: extra.blockTime,
    sentAt: extra.sentAt,
    dropClass: extra.dropClass,
    rpcLabel: extra.rpcLabel,
    source: extra.source,
    logs: extra.logs,
    callStack: extra.logs
      ? callStack(extra.logs, { program: extra.program, instruction: story.instruction, failingInstruction, ixPath: story.ixPath })
      : null,
    links: extra.links,
  };
}

/** The fee payer is the first account key of the message (json or jsonParsed encoding). */
function feePayer(tx: { transaction?: { message?: { accountKeys?: unknown[] } } }): string | null {
  const first = tx.transaction?.message?.accountKeys?.[0];
  if (typeof first === "string") return first;
  if (first && typeof first === "object" && typeof (first as { pubkey?: unknown }).pubkey === "string") return (first as { pubkey: string }).pubkey;
  return null;
}
