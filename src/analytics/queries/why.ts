// why/{sig} (docs/api.md#get-v1whysig): the decoded failure story of one signature, in one RPC
// round trip once the chain has confirmed it:
//   - resolved by txray: from the signature index (src/signature-index), no chain read;
//   - held but not resolved yet (open in the resolver, flushed, or still in the spool; unresolved-attempt.ts):
//     asked of the chain at once (its status and transaction in one request) and decided by the
//     resolver's own rules (src/chain/resolve/on-demand.ts), so the answer is the row the resolver
//     records later; not confirmed yet: 404 `pending` with Retry-After;
//   - never seen: fetched from the chain and decoded, like a block explorer would (cached).
// Chain look-ups are limited per client (WHY_CHAIN_PER_MINUTE) and their answers reused for a few
// seconds; a look-up takes at most WHY_CHAIN_TIMEOUT_MS. A chain that cannot be reached (an error,
// or no answer in time) is 503 `unavailable` with Retry-After for a signature txray never took in,
// and 404 `pending` saying that the chain cannot be reached for an attempt it holds (never that its
// blockhash has not expired, which nobody could tell). Every field of the
// story is always present, `null` where it does not apply; `issue` is null for a landed transaction.
// A failure's logs (read back from the lake for a resolved one) and its call stack come with it.

import { type CallFrame, callStack, type DecodedStory, decodeTransaction, storyFingerprint } from "../../chain/decode";
import type { IdlRegistry } from "../../chain/idl";
import {
  type Attempt,
  attemptsForSignature,
  fetchTransactionCached,
  type IndexedAttempt,
  type Outcome,
  type Resolution,
  type ResolvedEntry,
  resolvedValue,
  resolveOnDemand,
} from "../../chain/resolve";
import { type ChainReading, FAILURE_WORDS, type RpcClient } from "../../chain/rpc";
import type { Context } from "../../context";
import { failingSince, issueCounts } from "../../control";
import { isBase58Signature } from "../../shared/base58";
import { badRequest, notFound, TxrayError } from "../../shared/errors";
import type { ExplorerLinks } from "../../shared/explorer-links";
import { instructionNumber } from "../../shared/instruction-number";
import { issueTitle } from "../../shared/issue-title";
import { describeError } from "../../shared/logger";
import { evidenceByAttempt } from "./attempt-evidence";
import { type ChainFigures, withChainFigures } from "./transaction";
import { pendingError, unresolvedAttempt } from "./unresolved-attempt";

export type WhyDeps = {
  rpc: RpcClient;
  idls: IdlRegistry;
  /** RESOLVE_SAMPLE_RATE: an answer given on demand follows the resolver's sample. */
  sampleRate: number;
  /**
   * Whether `client` may ask the chain now (WHY_CHAIN_PER_MINUTE; for a signature txray never ingested also
   * WHY_CHAIN_LOOKUPS_PER_MINUTE), else when to retry.
   */
  mayAskChain?: (client: string, neverIngested: boolean) => { allowed: boolean; retryAfterSeconds: number };
  /** Answers asked of the chain in the last few seconds (chain-access.ts). */
  recentAnswers?: RecentAnswers;
  payerBotScore?: (payer: string) => Promise<number | null>;
  /** The issue as the serving tables count it (top-issues); null before they know it. */
  issueSummary?: (fingerprint: string) => Promise<IssueCounts | null>;
  /** Links to the transaction on public explorers (EXPLORER_CLUSTER); null when off (a local chain). */
  explorerLinks?: (sig: string) => ExplorerLinks | null;
  /** The chain's health as the RPC clients saw it (health.ts): what a failed look-up's answer says. */
  chainReading?: () => ChainReading;
};

/** Chain answers reused for a few seconds: a client polling why/{sig} costs the chain one look-up per interval. */
export class RecentAnswers {
  private readonly answers = new Map<string, { at: number; value: Resolution | null }>();
  constructor(private readonly ttlMs: number) {}
  get(sig: string, now: number): { value: Resolution | null } | undefined {
    const hit = this.answers.get(sig);
    return hit && now - hit.at < this.ttlMs ? hit : undefined;
  }
  set(sig: string, value: Resolution | null, now: number): void {
    if (this.answers.size > 10_000) this.answers.clear();
    this.answers.set(sig, { at: now, value });
  }
}

export type IssueCounts = { fingerprint: string; count7d: number; firstSeen: number };
/** The issue block of a story: its counts and its title (docs/api.md#issue-titles). */
export type IssueRef = IssueCounts & { title: string };

export type WhyAnswer = {
  sig: string;
  outcome: Outcome;
  program: string | null;
  instruction: string | null;
  ixPath: string | null;
  /** Explorer's number of ixPath (a hash sign, then 3.2); null without one or where the call stack cannot place it. */
  ixNumber: string | null;
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

export function requireSignature(sig: string): string {
  if (!isBase58Signature(sig)) throw badRequest("sig: expected a base58 64-byte transaction signature");
  return sig;
}

/** The attempts txray holds for a signature, best first (one that reached the chain wins over a drop of a resend). */
export function attemptsBySig(ctx: Context, sig: string): IndexedAttempt[] {
  return attemptsForSignature(ctx, sig);
}

const CHAIN_RETRY_AFTER_SECONDS = 30;
/** Retry-After of an attempt txray holds while the chain cannot be reached (the look-up itself is bounded). */
const HELD_RETRY_AFTER_SECONDS = 10;

/** "(no answer within the timeout, since 2026-12-02T04:50:00Z)": what the RPC clients saw, when they saw a failure. */
function chainFailureWords(deps: WhyDeps): string {
  const reading = deps.chainReading?.();
  if (reading?.reachable !== false || reading.lastError === null) return "";
  const since = reading.since === null ? "" : `, since ${new Date(reading.since).toISOString().replace(".000Z", "Z")}`;
  return ` (${FAILURE_WORDS[reading.lastError]}${since})`;
}

/** 404 `pending` for an attempt txray holds when the chain did not answer its look-up: what is known, and only that. */
function chainUnreachablePending(deps: WhyDeps): TxrayError {
  return new TxrayError(
    "pending",
    `not resolved yet: the Solana RPC endpoint cannot be reached right now${chainFailureWords(deps)}, so whether it landed or its blockhash expired is not known; txray holds the attempt and resolves it once the chain answers`,
    { retryAfterSeconds: HELD_RETRY_AFTER_SECONDS },
  );
}

/**
 * The chain is outside txray: when it cannot be reached or fails, the answer is 503 `unavailable` with Retry-After,
 * never a 500.
 */
async function fromChain<T>(ctx: Context, deps: WhyDeps, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    ctx.logger.warn("on-demand chain look-up failed", { error: describeError(error) });
    throw new TxrayError(
      "unavailable",
      `the Solana RPC endpoint could not be reached to look this signature up${chainFailureWords(deps)}; try again later`,
      {
        retryAfterSeconds: CHAIN_RETRY_AFTER_SECONDS,
      },
    );
  }
}

/** A chain look-up for `client`, when its budget allows; `refused` is what to throw when it does not. */
function askChain(
  deps: WhyDeps,
  client: string,
  refused: (retryAfterSeconds: number) => TxrayError,
  neverIngested = false,
): void {
  const decision = deps.mayAskChain?.(client, neverIngested);
  if (decision && !decision.allowed) throw refused(decision.retryAfterSeconds);
}

/**
 * The issue block: from the serving tables (the same numbers as top-issues) when they know the
 * fingerprint; otherwise counted from the resolver's hourly issue counts, current to its last run
 * (a new issue appears in why/ before the next tables build).
 */
async function issueBlock(
  ctx: Context,
  deps: WhyDeps,
  fingerprint: string | null,
  seenAt: number | null = null,
): Promise<IssueCounts | null> {
  if (fingerprint === null) return null;
  const fromTables = (await deps.issueSummary?.(fingerprint)) ?? null;
  if (fromTables) return fromTables;
  return issueRef(ctx, fingerprint, seenAt);
}

/**
 * count7d and firstSeen of an issue over every account's resolved attempts (public aggregate; the oldest hour may be
 * whole).
 */
export function issueRef(ctx: Context, fingerprint: string | null, seenAt: number | null = null): IssueCounts | null {
  if (fingerprint === null) return null;
  const counts = issueCounts(ctx.control, fingerprint, Math.floor((ctx.clock() - 7 * 86_400_000) / 3_600_000));
  // An issue txray has not counted yet (an answer given on demand) was first seen at that transaction.
  return { fingerprint, count7d: counts.count, firstSeen: counts.firstSeen ?? seenAt ?? ctx.clock() };
}

export async function why(
  ctx: Context,
  deps: WhyDeps,
  params: { sig: string; client?: string },
): Promise<WhyAnswer & ChainFigures> {
  return withChainFigures(ctx, deps, params.client ?? "local", await whyStory(ctx, deps, params));
}

async function whyStory(ctx: Context, deps: WhyDeps, params: { sig: string; client?: string }): Promise<WhyAnswer> {
  const sig = requireSignature(params.sig);
  const client = params.client ?? "local";
  const attempts = attemptsBySig(ctx, sig);
  const resolved = attempts.find((entry): entry is ResolvedEntry => entry.state === "resolved");
  if (resolved) return answerResolved(ctx, deps, sig, resolved);

  const held = await unresolvedAttempt(ctx, sig, attempts);
  if (held) return answerHeld(ctx, deps, sig, { ...held, sig }, client);

  const cached = deps.recentAnswers?.get(sig, ctx.clock());
  if (cached?.value === null)
    throw notFound("txray has no attempt with this signature and the chain has no such transaction");
  askChain(
    deps,
    client,
    (seconds) =>
      new TxrayError("rate_limited", `too many chain look-ups from this client; retry in ${seconds}s`, {
        retryAfterSeconds: seconds,
      }),
    true,
  );
  const tx = (await fromChain(ctx, deps, () => fetchTransactionCached(deps.rpc, ctx.control, sig, ctx.clock()))) as {
    slot?: number;
    blockTime?: number | null;
    meta?: { err?: unknown; logMessages?: string[] | null } | null;
    transaction?: { message?: { accountKeys?: unknown[] } };
  } | null;
  if (!tx) {
    deps.recentAnswers?.set(sig, null, ctx.clock());
    throw notFound("txray has no attempt with this signature and the chain has no such transaction");
  }
  const story = decodeTransaction(tx, deps.idls);
  const outcome: Outcome = tx.meta?.err === null || tx.meta?.err === undefined ? "landed" : "failed_onchain";
  const program = story.topLevelProgram;
  const payer = feePayer(tx);
  return answer(sig, outcome, story, {
    program,
    payer,
    payerBotScore: payer ? ((await deps.payerBotScore?.(payer)) ?? null) : null,
    issue:
      outcome === "failed_onchain" && program
        ? await issueBlock(
            ctx,
            deps,
            storyFingerprint(program, outcome, story),
            typeof tx.blockTime === "number" ? tx.blockTime * 1000 : null,
          )
        : null,
    slot: tx.slot ?? null,
    blockTime: typeof tx.blockTime === "number" ? tx.blockTime * 1000 : null,
    sentAt: null,
    dropClass: null,
    rpcLabel: null,
    source: "chain",
    logs:
      failed(outcome) && Array.isArray(tx.meta?.logMessages) && tx.meta.logMessages.length > 0
        ? tx.meta.logMessages
        : null,
    links: deps.explorerLinks?.(sig) ?? null,
  });
}

/** Outcomes whose logs the tx page shows (the lake keeps logs for failures, docs/lake.md). */
const failed = (outcome: Outcome) => outcome === "failed_onchain" || outcome === "preflight";

/**
 * An attempt txray resolved (or decided now from the chain: `logs` then comes with it). A failure's
 * logs are read back from its row in the lake.
 */
async function answerResolved(
  ctx: Context,
  deps: WhyDeps,
  sig: string,
  entry: ResolvedEntry,
  logs: string[] | null = null,
): Promise<WhyAnswer> {
  const evidence =
    logs === null && failed(entry.outcome)
      ? await evidenceByAttempt(ctx, { program: entry.program, attemptId: entry.attemptId, resolvedAt: entry.at })
      : null;
  const kept = logs ?? evidence?.logs ?? null;
  return answer(sig, entry.outcome, entry.story, {
    program: entry.program,
    payer: entry.payer,
    payerBotScore: (await deps.payerBotScore?.(entry.payer)) ?? null,
    issue: await issueBlock(ctx, deps, entry.fingerprint, entry.sentAt),
    slot: entry.slot,
    blockTime: entry.blockTime,
    sentAt: entry.sentAt,
    dropClass: entry.drop?.dropClass ?? null,
    rpcLabel: entry.rpcLabel,
    source: "ingested",
    logs: kept && kept.length > 0 ? kept : null,
    links: deps.explorerLinks?.(sig) ?? null,
  });
}

/** An attempt txray holds unresolved: the chain is asked now (or a few seconds ago); not confirmed yet: 404 pending. */
async function answerHeld(
  ctx: Context,
  deps: WhyDeps,
  sig: string,
  attempt: Attempt & { sig: string },
  client: string,
): Promise<WhyAnswer> {
  if (attempt.kind === "preflight") throw pendingError(ctx, attempt); // decoded from its own logs by the next resolve run (seconds)
  let cached = deps.recentAnswers?.get(sig, ctx.clock());
  if (!cached) {
    askChain(deps, client, () => pendingError(ctx, attempt));
    let value: Resolution | null;
    try {
      value = await resolveOnDemand(deps.rpc, deps.idls, attempt, ctx.clock(), deps.sampleRate);
    } catch (error) {
      // The chain cannot be asked now: txray holds the attempt, which the resolver decides later.
      ctx.logger.warn("on-demand chain look-up failed", { error: describeError(error) });
      // The resolve job failing too says since when (pendingError); else what the look-up met.
      throw failingSince(ctx.control, "resolve") ? pendingError(ctx, attempt) : chainUnreachablePending(deps);
    }
    deps.recentAnswers?.set(sig, value, ctx.clock());
    cached = { value };
  }
  if (cached.value === null) throw pendingError(ctx, attempt);
  return answerResolved(ctx, deps, sig, resolvedValue(cached.value), cached.value.logMessages ?? []);
}

function answer(
  sig: string,
  outcome: Outcome,
  story: DecodedStory,
  extra: Pick<
    WhyAnswer,
    | "program"
    | "payer"
    | "payerBotScore"
    | "slot"
    | "blockTime"
    | "sentAt"
    | "dropClass"
    | "rpcLabel"
    | "source"
    | "logs"
    | "links"
  > & { issue: IssueCounts | null },
): WhyAnswer {
  const failingInstruction = story.failingInstruction ?? null; // absent from stories stored before it existed
  const title = issueTitle({
    outcome,
    errName: story.errName,
    errCode: story.errCode,
    dropClass: extra.dropClass,
    instruction: story.instruction,
  });
  const stack = extra.logs
    ? callStack(extra.logs, {
        program: extra.program,
        instruction: story.instruction,
        failingInstruction,
        ixPath: story.ixPath,
      })
    : null;
  return {
    sig,
    outcome,
    program: extra.program,
    instruction: story.instruction,
    ixPath: story.ixPath,
    ixNumber: instructionNumber(story.ixPath, stack),
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
    callStack: stack,
    links: extra.links,
  };
}

/** The fee payer is the first account key of the message (json or jsonParsed encoding). */
function feePayer(tx: { transaction?: { message?: { accountKeys?: unknown[] } } }): string | null {
  const first = tx.transaction?.message?.accountKeys?.[0];
  if (typeof first === "string") return first;
  if (first && typeof first === "object" && typeof (first as { pubkey?: unknown }).pubkey === "string")
    return (first as { pubkey: string }).pubkey;
  return null;
}
