// A resolve run (docs/operations.md, "How resolving works"; docs/architecture.md "Outcomes, drops
// and issues"): new segments of the lake become open attempts, and the attempts due are looked up:
//   confirmed, no error          landed, from the status alone (block time of its slot), unless the
//                                attempt is in the success sample: then decoded from its transaction
//   confirmed, error             failed_onchain, decoded from its transaction
//   processed only               looked up again in a second (it may still be forked out)
//   not found, blockhash expired looked up once more RECHECK_DELAY_MS later, in a later run; still not
//                                found: dropped, classified (drops.ts). Declaring "expired" for a
//                                transaction that in fact landed is the classic confirmation bug.
//   not found, not expired       looked up again after 1, 2, 4, … 30 s, and right after its expected expiry
//   preflight                    decoded from the envelope's own error text and logs, no chain reads
// Expiry is the chain's block height against the attempt's lastValidBlockHeight, or against its cap
// (the height at its first look-up + MAX_BLOCKS_TO_EXPIRY) when the client's value is further: a drop
// the cap decided is `unknown` (lifetime.ts). Times are derived from the block rate measured from the
// chain's own heights, never from a fixed slot time (slot times change: docs/solana.md).
// Durable-nonce attempts cannot expire by block height (lifetime.ts). One whose envelope named its nonce
// account is judged by that account (getMultipleAccounts, within the call budget): a stored nonce other
// than the one it was signed against, or the account gone, is looked up once more RECHECK_DELAY_MS
// later, as an expiry is; still not found: dropped `nonce_advanced`. Without the account, or while its
// nonce still matches, it is dropped `unknown` after NONCE_WAIT_MS.
// The run then records its resolutions (record.ts) and, every RESOLVE_CHECKPOINT_MS, checkpoints its
// open attempts (checkpoint.ts). It reports when it should run next (`nextRunInMs`): the scheduler
// runs it again then, or as soon as flush commits new segments. A scheduled run goes on in rounds
// while envelopes keep arriving (`roundsForMs`): a round's recording (DuckDB's staging, the index
// thread, the syncs) goes on while the next round takes in and looks up, its segments kept out of
// that intake until its commit marks them taken. One recording at a time; a checkpoint and the
// run's end wait for it, and a recording that fails fails the run (the state is then rebuilt).

import type { Context } from "../../context";
import {
  blockHeightObservations,
  forgetResolvedHoursBefore,
  forgetTransactionsBeyond,
  forgetTransactionsFetchedBefore,
  recordBlockHeight,
  recordResolverProgress,
} from "../../control";
import { fault } from "../../shared/fault";
import { yieldToEventLoop } from "../../shared/pause";
import { checkStop, stoppableSleep } from "../../shared/stop";
import type { IdlRegistry } from "../idl";
import { chainHealth, type RpcClient } from "../rpc";
import { CALLS_PER_ROUND_WITH_SENDS, callBudgetOf, withinCallBudget } from "./call-budget";
import { blockHeight, type SignatureStatus, signatureStatuses, transactions } from "./chain-reads";
import {
  classifyDropsFrom,
  estimateHeightAt,
  HEIGHT_ANSWER_MS,
  NEIGHBOUR_WINDOW_MS,
  type Neighbour,
  type NeighbourSet,
  payerProgramKey,
  SAME_PAYER_WINDOW_MS,
  type SamePayerSend,
  SendColumns,
  unknownDrop,
} from "./drops";
import { intakeNewSegments } from "./intake";
import { implausibleExpiryDrop, nonceAdvancedDrop, readNonceAccounts } from "./lifetime";
import { capExpiry, cappedExpiry, expiryOf, type OpenAttempt, openAttempt, withinProgramBudget } from "./open-attempts";
import {
  dropped,
  isConfirmed,
  landedFromStatus,
  needsTransaction,
  resolveFromTransaction,
  resolvePreflight,
} from "./outcomes";
import { readResolvedSends } from "./recent-sends";
import { discardUncommittedBatches, recordRun } from "./record";
import { startIndexUpkeep } from "./signatures";
import { checkpoint, checkpointDue, currentState, dropState, nextVersion, type ResolverState } from "./state";
import type { Attempt, Resolution } from "./types";

export type ResolveOptions = {
  rpc: RpcClient;
  idls: IdlRegistry;
  /** Most due attempts looked up per run. */
  maxAttempts?: number;
  /** Most distinct programs a round looks up and records (MAX_PROGRAMS_PER_ROUND). */
  maxPrograms?: number;
  /** JSON-RPC calls per HTTP request (SOLANA_RPC_BATCH_CALLS). */
  batchCalls?: number;
  /** Share of landed successes whose transaction is fetched (RESOLVE_SAMPLE_RATE). */
  sampleRate?: number;
  /** Wait before the second look-up of an attempt that was not found after its blockhash expired. */
  recheckDelayMs?: number;
  /** How often the open attempts are checkpointed. */
  checkpointMs?: number;
  beforeCommit?: () => void;
  /**
   * A scheduled run goes on in rounds for up to this long while envelopes keep arriving: each
   * round's intake and look-ups overlap the previous round's recording. 0 (the default): one round.
   */
  roundsForMs?: number;
  /** Graceful shutdown: the run ends at a safe point (before reading the chain or recording). */
  signal?: AbortSignal;
};

export type ResolveSummary = {
  /**
   * chunksReadByDay: chunks read from their days' partitions because their flushed parts were compacted (or
   * unrecorded).
   */
  intake: { segments: number; attempts: number; chunksReadByDay: number };
  resolved: Record<string, number>;
  /** Attempts still open (waiting to land or to expire). */
  stillPending: number;
  discardedBatches: number;
  /**
   * More work is waiting than one run takes (due attempts or envelopes beyond this run's caps): the scheduler runs the
   * job again soon.
   */
  backlog: boolean;
  /**
   * When the next open attempt is due (the scheduler runs the job again then at the latest); null when none is open.
   */
  nextRunInMs: number | null;
  /**
   * Milliseconds spent per step (state, intake, statuses, times, transactions, drops, record, checkpoint, upkeep; those
   * the run reached).
   */
  stepsMs: Record<string, number>;
  /**
   * Milliseconds per phase of the run's recordings (rows, staging, index, publish: record.ts); they overlap the next
   * round's steps.
   */
  recordingMs: Record<string, number>;
  /** Rounds the run made (roundsForMs). */
  rounds: number;
  /** Issues (fingerprints) the run counted attempts of for the first time: the tables job refreshes at once for them. */
  newIssues: number;
  /**
   * The call budget (RESOLVE_RPC_CALLS_PER_SECOND) at the run's end: calls it holds (negative after a round that
   * overspent) and the sends its rounds left for later because it could not pay for them; null without a limit.
   */
  callBudget: { callsPerSecond: number; availableCalls: number; deferredSends: number } | null;
};

export const DEFAULT_SAMPLE_RATE = 1 / 32;
/**
 * Due attempts looked up per run: twice an intake's worth (everything a run takes in is due at once,
 * beside the open attempts due again), so an attempt is normally looked up by the run that took it
 * in and, when it is decided then, never needs an open entry in the signature index; a backlog
 * beyond it waits for the next run (`backlog`: moments later). Accounts take turns within it
 * (open-attempts.ts takeDue), so one account's backlog leaves the others their share of every run.
 */
const MAX_ATTEMPTS_PER_RUN = 200_000;
/**
 * Distinct programs a round looks up and records (open-attempts.ts withinProgramBudget): its recording writes a lake
 * partition per program at once, ~0.3 MB of DuckDB's memory each (3,000 of them exhausted the default 1 GB).
 */
export const MAX_PROGRAMS_PER_ROUND = 250;
const DEFAULT_BATCH_CALLS = 10;
const RECHECK_DELAY_MS = 2_000;
const CHECKPOINT_MS = 30_000;
const NONCE_WAIT_MS = 30 * 60_000;
/**
 * Far beyond any blockhash lifetime (150 blocks: about a minute, less as slots shorten): an attempt still not found is
 * dropped whatever its lastValidBlockHeight says.
 */
const MAX_PENDING_MS = 24 * 3600_000;
/** How long the signature index keeps an attempt (why, diagnose-drop); shorter when TXRAY_RETENTION_DAYS is. */
const INDEX_RETENTION_MS = 30 * 86_400_000;
/** How long why's answers for signatures txray never ingested are kept (the control database's transaction cache). */
const TRANSACTION_CACHE_MS = 7 * 86_400_000;
/** At most this many fetched transactions are kept (a few KB each: ~150 MB), whatever the rate of `why`. */
const MAX_CACHED_TRANSACTIONS = 50_000;
/** diagnose-drop reads 7 days of provider hours and why 7 days of issue hours; a day more is kept. */
const HOURS_RETENTION_MS = 8 * 86_400_000;
/** Block height observations (for the height at a past send time) at most this often. */
const HEIGHT_SAMPLE_MS = 15_000;
/** Attempts decoded between pauses for the event loop. */
const YIELD_EVERY = 2_000;
/** The block rate is measured over the chain heights observed in this window (at least PACE_MIN_SPAN_MS of it). */
const PACE_WINDOW_MS = 10 * 60_000;
const PACE_MIN_SPAN_MS = 60_000;

export async function resolvePending(ctx: Context, options: ResolveOptions): Promise<ResolveSummary> {
  // Milliseconds per step of the run, in its details (/v1/status): where a slow run's time went.
  const steps: Record<string, number> = {};
  let mark = performance.now();
  const lap = () => {
    const at = performance.now();
    const ms = Math.round(at - mark);
    mark = at;
    return ms;
  };
  const discardedBatches = discardUncommittedBatches(ctx);
  const state = await currentState(ctx);
  try {
    return await run(ctx, options, state, discardedBatches, lap, steps);
  } catch (error) {
    dropState(ctx); // half a run's changes are in memory only: rebuild from the checkpoint next time
    throw error;
  }
}

async function run(
  ctx: Context,
  options: ResolveOptions,
  state: ResolverState,
  discardedBatches: number,
  lap: () => number,
  steps: Record<string, number>,
): Promise<ResolveSummary> {
  const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS_PER_RUN;
  const roundsUntil = performance.now() + (options.roundsForMs ?? 0);
  const intake = { segments: 0, attempts: 0, chunksReadByDay: 0 };
  const resolved: Record<string, number> = { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 };
  let backlog = false;
  let rounds = 0;
  // The previous round's recording while this one takes in and looks up, and the segments it took.
  let recording: Promise<void> | null = null;
  /** Where the recordings' time went (record.ts), beside the steps: they overlap the next round's. */
  const recordingMs: Record<string, number> = {};
  const newIssues = { count: 0 };
  /** Sends a round of this run left for later for want of budget (a send deferred by two rounds counts once). */
  const budgetDeferred = new Set<string>();
  let budgetAvailable: number | null = null;
  let recordingSegments = new Set<string>();
  const recorded = async () => {
    const pending = recording;
    recording = null;
    recordingSegments = new Set();
    if (pending) await pending;
  };
  try {
    for (;;) {
      rounds++;
      // Every mark this round makes carries `now`, later than any mark before (checkpoint.ts).
      const now = Math.max(ctx.clock(), state.through + 1);
      addStep(steps, "state", lap());
      const taken = await intakeNewSegments(
        ctx,
        (attempts) => {
          for (const attempt of attempts) state.open.add(openAttempt(attempt, now));
        },
        { exclude: recordingSegments },
      );
      addStep(steps, "intake", lap());
      checkStop(options.signal);

      const popped = state.open.takeDue(now, maxAttempts);
      const byPrograms = withinProgramBudget(popped, options.maxPrograms ?? MAX_PROGRAMS_PER_ROUND);
      const budget = callBudgetOf(ctx, now);
      const { taken: due, deferred: unaffordable } = budget
        ? withinCallBudget(byPrograms.taken, budget.available(now))
        : { taken: byPrograms.taken, deferred: [] };
      const deferred = byPrograms.deferred;
      for (const attempt of deferred) state.open.reschedule(attempt, now);
      // Sends the budget cannot pay for are due again once it can pay for a round's look-up: no run spins meanwhile.
      const affordableAt = budget ? now + Math.max(1, budget.msUntil(CALLS_PER_ROUND_WITH_SENDS, now)) : now;
      for (const attempt of unaffordable) state.open.reschedule(attempt, affordableAt);
      for (const attempt of unaffordable) budgetDeferred.add(attempt.attemptId);
      const callsBefore = options.rpc.stats().calls;
      const callsLeft = budget
        ? () => budget.available(now) - (options.rpc.stats().calls - callsBefore)
        : () => Number.POSITIVE_INFINITY;
      let resolutions: Resolution[];
      try {
        resolutions = await resolveDue(ctx, options, state, due, now, lap, steps, callsLeft);
      } finally {
        budget?.spend(options.rpc.stats().calls - callsBefore);
        if (budget) budgetAvailable = budget.available(now);
      }
      checkStop(options.signal);
      if (resolutions.length > 0) fault("resolve:after-read");

      // Attempts the signature index does not hold yet (taken in this round, or replayed after a
      // restart) and still open get an open entry; those resolved in the same round get only their resolved one.
      const resolvedIds = new Set(resolutions.map((r) => r.attempt.attemptId));
      const unindexed: OpenAttempt[] = [];
      for (const attempt of state.open.values())
        if (!attempt.indexed && !resolvedIds.has(attempt.attemptId)) unindexed.push(attempt);
      // One recording at a time: batches commit in order, each round's marks after the previous round's.
      await recorded();
      addStep(steps, "record", lap());
      const recordingNow = recordRun(ctx, { resolutions, open: unindexed, segments: taken.names }, now, {
        beforeCommit: options.beforeCommit,
        recordingMs,
        newIssues,
      });
      recordingNow.catch(() => {}); // awaited by the next round or at the end; a failure meanwhile is not unhandled
      recording = recordingNow;
      recordingSegments = new Set(taken.names);
      for (const attempt of unindexed) attempt.indexed = true;
      for (const r of resolutions) state.open.remove(r.attempt.attemptId);
      state.recent.add(resolutions, now);
      state.through = now;

      intake.segments += taken.segments;
      intake.attempts += taken.attempts;
      intake.chunksReadByDay += taken.chunksReadByDay;
      for (const r of resolutions) resolved[r.outcome]++;
      backlog = popped.length === maxAttempts || taken.more || deferred.length > 0;
      // Another round while envelopes keep arriving, within the run's time: its intake and look-ups
      // overlap this round's recording (DuckDB's staging, the index thread, the syncs).
      const another = (taken.attempts > 0 || backlog) && performance.now() < roundsUntil && !options.signal?.aborted;
      const checkpointNow = checkpointDue(state, now, options.checkpointMs ?? CHECKPOINT_MS);
      if (!another || checkpointNow) {
        await recorded(); // a checkpoint and the run's end come after the commits
        addStep(steps, "record", lap());
      }
      if (checkpointNow) {
        checkpoint(ctx, state, now);
        addStep(steps, "checkpoint", lap()); // apart from upkeep: at 20,000/s a checkpoint of ~300,000 open attempts takes ~1 s
      }
      const nextDueAt = state.open.nextDueAt();
      state.version = nextVersion(state);
      recordResolverProgress(ctx.control, {
        version: state.version,
        at: now,
        openAttempts: state.open.size,
        nextDueAt: Number.isFinite(nextDueAt) ? nextDueAt : null,
      });
      await upkeep(ctx, state, now);
      addStep(steps, "upkeep", lap());
      if (another) continue;
      return {
        intake,
        resolved,
        stillPending: state.open.size,
        discardedBatches,
        backlog,
        nextRunInMs: Number.isFinite(nextDueAt) ? Math.max(0, nextDueAt - ctx.clock()) : null,
        stepsMs: steps,
        recordingMs,
        rounds,
        newIssues: newIssues.count,
        callBudget:
          budgetAvailable === null
            ? null
            : {
                callsPerSecond: ctx.config.RESOLVE_RPC_CALLS_PER_SECOND,
                availableCalls: Math.floor(budgetAvailable),
                deferredSends: budgetDeferred.size,
              },
      };
    }
  } catch (error) {
    await recorded().catch(() => {}); // the round being recorded commits or not; either way the state is dropped (resolvePending)
    throw error;
  }
}

const addStep = (steps: Record<string, number>, step: string, ms: number) => (steps[step] = (steps[step] ?? 0) + ms);

/**
 * Runs until nothing is left to decide soon (`txray jobs run resolve`, tests): a run looks each due
 * attempt up once and a drop needs a second look in a later run, so this runs again, as the scheduler
 * would, until no attempt is open or the next one is due later than `settleMs` (an attempt that has
 * not landed and whose blockhash has not expired stays open). The summary adds up the runs.
 */
export async function resolveSettled(
  ctx: Context,
  options: ResolveOptions,
  { settleMs = 3_000, maxMs = 120_000 } = {},
): Promise<ResolveSummary & { runs: number }> {
  const started = Date.now();
  const resolved: Record<string, number> = { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 };
  const intake = { segments: 0, attempts: 0, chunksReadByDay: 0 };
  let discardedBatches = 0;
  let newIssues = 0;
  let runs = 0;
  for (;;) {
    const last = await resolvePending(ctx, options);
    runs++;
    discardedBatches += last.discardedBatches;
    newIssues += last.newIssues;
    for (const [outcome, n] of Object.entries(last.resolved)) resolved[outcome] = (resolved[outcome] ?? 0) + n;
    for (const key of ["segments", "attempts", "chunksReadByDay"] as const) intake[key] += last.intake[key];
    const settled =
      !last.backlog && (last.stillPending === 0 || last.nextRunInMs === null || last.nextRunInMs > settleMs);
    if (settled || Date.now() - started > maxMs)
      return { ...last, intake, resolved, discardedBatches, newIssues, runs };
    if (!last.backlog) await stoppableSleep(Math.max(1, last.nextRunInMs ?? 0), options.signal);
  }
}

/** The due attempts looked up on the chain (as few calls as possible), decoded and classified; the rest rescheduled. */
async function resolveDue(
  ctx: Context,
  options: ResolveOptions,
  state: ResolverState,
  due: OpenAttempt[],
  now: number,
  lap: () => number,
  steps: Record<string, number>,
  callsLeft: () => number = () => Number.POSITIVE_INFINITY,
): Promise<Resolution[]> {
  const resolutions: Resolution[] = [];
  const sends: OpenAttempt[] = [];
  for (const attempt of due) {
    if (attempt.kind === "preflight") resolutions.push(resolvePreflight(attempt, options.idls, now));
    else if (attempt.sig === null)
      resolutions.push(dropped(attempt, unknownDrop(attempt, now - attempt.sentAt), now)); // cannot happen: validation requires a signature on sends
    else sends.push(attempt);
  }
  if (sends.length === 0) return resolutions;
  const batchCalls = options.batchCalls ?? DEFAULT_BATCH_CALLS;
  const sampleRate = options.sampleRate ?? DEFAULT_SAMPLE_RATE;
  const recheckDelay = options.recheckDelayMs ?? RECHECK_DELAY_MS;

  const asked = ctx.clock();
  const height = await blockHeight(options.rpc);
  // Kept for drop classification only when answered promptly, at the time it arrived (drops.ts, estimateHeightAt).
  const answered = ctx.clock();
  if (answered - state.lastHeightAt >= HEIGHT_SAMPLE_MS && answered - asked <= HEIGHT_ANSWER_MS) {
    recordBlockHeight(ctx.control, answered, height);
    state.lastHeightAt = answered;
  }
  const statuses = await signatureStatuses(
    options.rpc,
    sends.map((a) => a.sig!),
    batchCalls,
  );
  addStep(steps, "statuses", lap());

  const msPerBlock = measuredMsPerBlock(ctx, state, now);
  const fetch: { attempt: OpenAttempt; status: SignatureStatus }[] = [];
  const fromStatus: { attempt: OpenAttempt; status: SignatureStatus }[] = [];
  let expired: { attempt: OpenAttempt; heightAtExpiry: number }[] = [];
  /** Durable-nonce attempts not found whose nonce account is read this round. */
  const nonceReads: OpenAttempt[] = [];
  for (const attempt of sends) {
    const status = statuses.get(attempt.sig!) ?? null;
    if (attempt.checks === 0) capExpiry(attempt, height);
    attempt.checks++;
    if (isConfirmed(status))
      (needsTransaction(attempt, status, sampleRate) ? fetch : fromStatus).push({ attempt, status });
    else if (status !== null)
      state.open.reschedule(attempt, now + 1_000); // processed only: confirmed (or forked out) within about a second
    else if (attempt.nonce && attempt.nonceAccount && attempt.nonceValue) {
      // Not found after its nonce was seen advanced (or a first look): the account decides, read below.
      if (attempt.expiry !== null && now - attempt.expiry.observedAt < recheckDelay)
        state.open.reschedule(attempt, attempt.expiry.observedAt + recheckDelay);
      else nonceReads.push(attempt);
    } else if (attempt.nonce) {
      if (now - attempt.sentAt > NONCE_WAIT_MS)
        resolutions.push(dropped(attempt, unknownDrop(attempt, now - attempt.sentAt), now));
      else state.open.reschedule(attempt, now + retryMs(attempt));
    } else if (height > expiryOf(attempt)) {
      if (attempt.expiry === null) {
        // Already the recheck's worth of blocks past its expiry (taken in late: a backlog, a
        // restart), this look-up is the conclusive one, as the recheck would have been. Without a
        // measured block rate the recheck decides.
        if (msPerBlock !== null && (height - expiryOf(attempt)) * msPerBlock >= recheckDelay)
          expired.push({ attempt, heightAtExpiry: height });
        else {
          attempt.expiry = { observedAt: now, height };
          state.open.reschedule(attempt, now + recheckDelay);
        }
      } else if (now - attempt.expiry.observedAt >= recheckDelay)
        expired.push({ attempt, heightAtExpiry: attempt.expiry.height });
      else state.open.reschedule(attempt, attempt.expiry.observedAt + recheckDelay);
    } else if (now - attempt.receivedAt > MAX_PENDING_MS)
      resolutions.push(dropped(attempt, unknownDrop(attempt, now - attempt.sentAt), now));
    else {
      const untilExpiryMs = msPerBlock === null ? Infinity : (expiryOf(attempt) - height) * msPerBlock + 500;
      state.open.reschedule(attempt, now + Math.min(retryMs(attempt), Math.max(1_000, untilExpiryMs)));
    }
  }

  if (nonceReads.length > 0) {
    checkStop(options.signal);
    resolutions.push(
      ...(await judgeByNonceAccounts(options.rpc, state, nonceReads, now, height, recheckDelay, callsLeft)),
    );
    addStep(steps, "nonces", lap());
  }

  if (fromStatus.length > 0) {
    const times = await state.slotTimes.of(
      options.rpc,
      fromStatus.map((s) => s.status.slot),
      batchCalls,
    );
    for (const { attempt, status } of fromStatus)
      resolutions.push(
        landedFromStatus(attempt, status, times.get(status.slot) ?? null, options.idls, state.names, now),
      );
    addStep(steps, "times", lap());
  }

  if (fetch.length > 0) {
    checkStop(options.signal);
    const txs = await transactions(
      options.rpc,
      fetch.map((f) => f.attempt.sig!),
      batchCalls,
    );
    for (const [i, { attempt, status }] of fetch.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await yieldToEventLoop();
      const tx = txs.get(attempt.sig!) ?? null;
      if (tx === null)
        state.open.reschedule(attempt, now + 1_000); // the status is ahead of the node's ledger: next run
      else {
        const resolution = resolveFromTransaction(attempt, status, tx, options.idls, now, sampleRate, state.names);
        if (resolution.slot !== null) state.slotTimes.remember(resolution.slot, resolution.blockTime);
        resolutions.push(resolution);
      }
    }
    addStep(steps, "transactions", lap());
  }

  // A drop the cap decided shows no blockhash expiry: the client's lastValidBlockHeight is still ahead.
  const capped = expired.filter((e) => cappedExpiry(e.attempt));
  if (capped.length > 0) {
    for (const { attempt, heightAtExpiry } of capped)
      resolutions.push(dropped(attempt, implausibleExpiryDrop(attempt, attempt.expiryCap!, heightAtExpiry), now));
    expired = expired.filter((e) => !cappedExpiry(e.attempt));
  }
  if (expired.length > 0) {
    const neighbours = await loadNeighbours(
      ctx,
      state,
      expired.map((e) => e.attempt),
      resolutions,
      now,
    );
    await yieldToEventLoop();
    const estimate = heightEstimator(ctx);
    const diagnoses = classifyDropsFrom(
      expired.map(({ attempt, heightAtExpiry }) => ({
        attempt,
        heightAtExpiry,
        heightAtSend: estimate(attempt.sentAt),
      })),
      neighbours,
    );
    for (const [i, { attempt }] of expired.entries()) resolutions.push(dropped(attempt, diagnoses[i], now));
    addStep(steps, "drops", lap());
  }
  return resolutions;
}

/** Nonce accounts a getMultipleAccounts call reads (lifetime.ts readNonceAccounts). */
const NONCE_ACCOUNTS_PER_CALL = 100;

/**
 * Durable-nonce attempts not found on chain, judged by their nonce accounts (read in calls of up to 100, as many as the
 * call budget leaves; the others wait for a later round). An advanced nonce (or a closed account) is a drop once a
 * status look-up made after the advance was seen still finds nothing: the attempt may have advanced it itself, landing
 * between its look-up and the read. While the nonce still matches, the attempt may land: looked up again, and dropped
 * `unknown` after NONCE_WAIT_MS as one without its account is.
 */
async function judgeByNonceAccounts(
  rpc: RpcClient,
  state: ResolverState,
  attempts: OpenAttempt[],
  now: number,
  height: number,
  recheckDelay: number,
  callsLeft: () => number,
): Promise<Resolution[]> {
  const affordable = Math.max(0, Math.floor(callsLeft())) * NONCE_ACCOUNTS_PER_CALL;
  const accounts = [...new Set(attempts.map((a) => a.nonceAccount!))].slice(0, affordable);
  const read = new Set(accounts);
  let states: Awaited<ReturnType<typeof readNonceAccounts>> | null = null;
  if (accounts.length > 0)
    try {
      states = await readNonceAccounts(rpc, accounts);
    } catch {
      states = null; // the chain did not answer: looked up again later, as a status look-up that failed
    }
  const resolutions: Resolution[] = [];
  for (const attempt of attempts) {
    if (states === null || !read.has(attempt.nonceAccount!)) {
      state.open.reschedule(attempt, now + retryMs(attempt));
      continue;
    }
    const drop = nonceAdvancedDrop(
      { nonceAccount: attempt.nonceAccount!, nonceValue: attempt.nonceValue! },
      states.get(attempt.nonceAccount!) ?? null,
    );
    if (drop === null) {
      attempt.expiry = null;
      if (now - attempt.sentAt > NONCE_WAIT_MS)
        resolutions.push(dropped(attempt, unknownDrop(attempt, now - attempt.sentAt), now));
      else state.open.reschedule(attempt, now + retryMs(attempt));
    } else if (attempt.expiry === null) {
      attempt.expiry = { observedAt: now, height };
      state.open.reschedule(attempt, now + recheckDelay);
    } else resolutions.push(dropped(attempt, drop, now));
  }
  return resolutions;
}

/**
 * Milliseconds per block, measured from the chain heights this job observed over the last PACE_WINDOW_MS (at least
 * PACE_MIN_SPAN_MS apart); null until it has observed that much. Read again when a new observation may exist.
 */
function measuredMsPerBlock(ctx: Context, state: ResolverState, now: number): number | null {
  const cached = state.pace;
  if (cached && now - cached.at < HEIGHT_SAMPLE_MS) return cached.msPerBlock;
  const samples = blockHeightObservations(ctx.control);
  let msPerBlock: number | null = null;
  const last = samples.at(-1);
  if (last) {
    const first = samples.find((sample) => sample.observed_at >= last.observed_at - PACE_WINDOW_MS)!;
    const blocks = last.height - first.height;
    const span = last.observed_at - first.observed_at;
    if (span >= PACE_MIN_SPAN_MS && blocks > 0) msPerBlock = span / blocks;
  }
  state.pace = { at: now, msPerBlock };
  return msPerBlock;
}

/** 1 s, 2 s, 4 s, … up to 30 s between look-ups of an attempt that is neither found nor expired. */
function retryMs(attempt: OpenAttempt): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(Math.max(0, attempt.checks - 1), 5));
}

/**
 * The run's upkeep: the signature index's merges and retention started in the background; hourly counts and why's
 * cached transactions trimmed once an hour.
 */
async function upkeep(ctx: Context, state: ResolverState, now: number): Promise<void> {
  const retention =
    ctx.config.TXRAY_RETENTION_DAYS === undefined
      ? INDEX_RETENTION_MS
      : Math.min(INDEX_RETENTION_MS, ctx.config.TXRAY_RETENTION_DAYS * 86_400_000);
  startIndexUpkeep(ctx, now - retention, yieldToEventLoop);
  const hour = Math.floor(now / 3_600_000);
  if (hour !== state.trimmedHour) {
    forgetResolvedHoursBefore(ctx.control, Math.floor((now - HOURS_RETENTION_MS) / 3_600_000));
    forgetTransactionsFetchedBefore(ctx.control, now - TRANSACTION_CACHE_MS);
    forgetTransactionsBeyond(ctx.control, MAX_CACHED_TRANSACTIONS);
    state.trimmedHour = hour;
  }
}

/** Block height at a past time from the heights this job observed, where they pin it (drops.ts, estimateHeightAt). */
function heightEstimator(ctx: Context): (at: number) => number | null {
  const samples = blockHeightObservations(ctx.control);
  const health = chainHealth(ctx, "resolve");
  return (at) => estimateHeightAt(samples, at, (from, to) => health.failedWithin(from, to));
}

/**
 * What drop classification needs of the resolved sends around this run's drops and of this run's
 * own sends (its drops are evidence for each other: a provider that drops many at once). The
 * recent sends this process holds answer (recent-sends.ts); a window reaching before them (a drop
 * resolved long after it was sent) is read from the lake.
 */
export async function loadNeighbours(
  ctx: Context,
  state: ResolverState,
  drops: Attempt[],
  thisRun: Resolution[],
  now: number,
): Promise<NeighbourSet> {
  await state.recent.ensureLoaded(ctx, now);
  const fresh: Neighbour[] = [];
  for (const r of thisRun) {
    if (r.outcome === "preflight") continue;
    const a = r.attempt;
    fresh.push({
      sig: a.sig,
      payer: a.payer,
      program: a.program,
      rpcHash: a.rpcHash,
      sentAt: a.sentAt,
      outcome: r.outcome,
      cuPriceMicroLamports: a.cuPriceMicroLamports,
    });
  }
  for (const a of drops)
    fresh.push({
      sig: a.sig,
      payer: a.payer,
      program: a.program,
      rpcHash: a.rpcHash,
      sentAt: a.sentAt,
      outcome: "dropped",
      cuPriceMicroLamports: a.cuPriceMicroLamports,
    });

  let first = Infinity;
  let last = -Infinity;
  const keys = new Set<string>();
  const pairs: { payer: string; program: string }[] = [];
  for (const a of drops) {
    first = Math.min(first, a.sentAt);
    last = Math.max(last, a.sentAt);
    const key = payerProgramKey(a.payer, a.program);
    if (!keys.has(key)) pairs.push({ payer: a.payer, program: a.program });
    keys.add(key);
  }
  const from = first - NEIGHBOUR_WINDOW_MS;
  const to = last + NEIGHBOUR_WINDOW_MS;
  const ordered = fresh
    .map((n, i) => ({ n, i }))
    .sort((a, b) => a.n.sentAt - b.n.sentAt || a.i - b.i)
    .map((e) => e.n);
  const freshColumns = new SendColumns();

  // Usually every drop was sent a minute or two ago: the recent sends this process holds answer.
  // A busy instance holds fewer than its windows' sends (the cap): its windows are what it holds,
  // never a lake read of tens of millions of sends per run.
  const heldSamePayer = state.recent.heldPairs(first - SAME_PAYER_WINDOW_MS, last + SAME_PAYER_WINDOW_MS);
  const range =
    state.recent.range(from, to) ??
    (state.recent.capped && to >= state.recent.heldFrom ? state.recent.range(state.recent.heldFrom, to) : null);
  let fromLake: Awaited<ReturnType<typeof readResolvedSends>> | null = null;
  if (range === null) {
    fromLake = await readResolvedSends(ctx, from, to);
    fromLake.sort((a, b) => a.sentAt - b.sentAt);
  } else if (heldSamePayer === null) {
    // Drops decided long after their send (a resolver behind): only their payers' sends around them.
    fromLake = await readResolvedSends(ctx, first - SAME_PAYER_WINDOW_MS, last + SAME_PAYER_WINDOW_MS, pairs);
  }
  // The held pairs' sends are read where they are held (drops.ts indexPairs); the lake's, when
  // they are not held, and this run's are listed.
  const samePayerProgram: SamePayerSend[] =
    heldSamePayer !== null
      ? []
      : fromLake!
          .filter(
            (r) =>
              keys.has(payerProgramKey(r.payer, r.program)) &&
              r.sentAt >= first - SAME_PAYER_WINDOW_MS &&
              r.sentAt <= last + SAME_PAYER_WINDOW_MS,
          )
          .map((r) => ({ sig: r.sig, payer: r.payer, program: r.program, sentAt: r.sentAt, outcome: r.outcome }));
  for (const n of fresh) if (keys.has(payerProgramKey(n.payer, n.program))) samePayerProgram.push(n);
  const pairsHeld = heldSamePayer === null ? {} : { heldSamePayer };

  if (range !== null) {
    for (const n of ordered) freshColumns.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
    return { samePayerProgram, ...pairsHeld, sends: freshColumns, held: { sends: state.recent.sends, ...range } };
  }
  // The lake's sends and this run's, in send-time order.
  let next = 0;
  for (const r of fromLake!) {
    for (; next < ordered.length && ordered[next].sentAt < r.sentAt; next++) {
      const n = ordered[next];
      freshColumns.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
    }
    freshColumns.push(r.sentAt, r.rpcHash, r.program, r.outcome, r.price);
  }
  for (; next < ordered.length; next++) {
    const n = ordered[next];
    freshColumns.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
  }
  return { samePayerProgram, ...pairsHeld, sends: freshColumns };
}
