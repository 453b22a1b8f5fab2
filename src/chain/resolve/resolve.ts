// Resolution of pending attempts against the chain (docs/architecture.md, "Outcomes, drops and issues"; docs/solana.md):
//   found at confirmed or finalized → landed (meta.err null) or failed_onchain, decoded from getTransaction
//   not found, block height past lastValidBlockHeight → looked up once more after a short wait, and
//     only then dropped (declaring "expired" for a transaction that in fact landed is the classic bug)
//   not found, not expired → still pending, checked again next run
//   preflight → decoded from the envelope's own error text and simulation logs, no chain reads
// Durable-nonce attempts cannot expire by block height: dropped as `unknown` after NONCE_WAIT_MS.

import type { Context } from "../../context";
import {
  blockHeightObservations, dueAttempts, forgetTransactionsFetchedBefore, payerSends, pendingAttemptCount, recordBlockHeight, rescheduleAttempts, trimAttemptIndex,
  type PendingRow,
} from "../../control";
import { decodePreflight, decodeTransaction, issueFingerprint, storyFingerprint, type DecodedStory } from "../decode";
import type { IdlRegistry } from "../idl";
import type { RpcClient } from "../rpc";
import { checkStop, stoppableSleep } from "../../shared/stop";
import { fault } from "../../shared/fault";
import { blockHeight, signatureStatuses, transactions, type SignatureStatus } from "./chain-reads";
import { classifyDropsFrom, NEIGHBOUR_WINDOW_MS, payerProgramKey, SAME_PAYER_WINDOW_MS, SendColumns, unknownDrop, type Neighbour, type NeighbourSet, type SamePayerSend } from "./drops";
import { yieldToEventLoop } from "./pause";
import { readIndexedSends, recentSends, stringPool } from "./recent-sends";
import { discardUncommittedBatches, recordResolutions } from "./record";
import { intakeNewSegments } from "./intake";
import { EMPTY_STORY, type Attempt, type DropDiagnosis, type Resolution } from "./types";

export type ResolveOptions = {
  rpc: RpcClient;
  idls: IdlRegistry;
  /** Most pending attempts handled per run. */
  maxAttempts?: number;
  /** Status calls (256 signatures each) per HTTP request. */
  statusCallsPerRequest?: number;
  /** getTransaction calls per HTTP request. */
  transactionsPerRequest?: number;
  /** Wait before the second look-up of an attempt that just expired. */
  recheckDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  beforeCommit?: () => void;
  /** Graceful shutdown: the run ends at a safe point (before reading the chain or recording). */
  signal?: AbortSignal;
};

export type ResolveSummary = {
  /** chunksReadByDay: chunks read from their days' partitions because their flushed parts were compacted (or unrecorded). */
  intake: { segments: number; attempts: number; chunksReadByDay: number };
  resolved: Record<string, number>;
  stillPending: number;
  discardedBatches: number;
  /** More work is waiting than one run takes (due attempts or envelopes beyond this run's caps): the scheduler runs the job again soon. */
  backlog: boolean;
  /** Milliseconds spent per step (intake, due, statuses, transactions, recheck, drops, record, reschedule; those the run reached). */
  stepsMs: Record<string, number>;
};

const NONCE_WAIT_MS = 30 * 60_000;
/** Far beyond any blockhash lifetime (~90 s): an attempt still not found is dropped whatever its lastValidBlockHeight says. */
const MAX_PENDING_MS = 24 * 3600_000;
/** How long the attempt index (why, diagnose-drop, issue counts) and the transaction cache keep entries. */
const INDEX_RETENTION_MS = 30 * 86_400_000;
const TRANSACTION_CACHE_MS = 7 * 86_400_000;
/** diagnose-drop reads 7 days of provider hours; a day more is kept. */
const PROVIDER_HOURS_RETENTION_MS = 8 * 86_400_000;
/** Attempts decoded between pauses for the event loop (a run holds up to 20,000). */
const YIELD_EVERY = 2_000;

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
  const maxAttempts = options.maxAttempts ?? 20_000;
  const dueNow = (at: number) => dueAttempts(ctx.control, at, maxAttempts);
  // Intake (queueing what flush committed since the last run) is the next runs' work when attempts
  // are already due: it then runs while this run waits on the chain (status and transaction reads,
  // the recheck's wait), which left the thread idle for about a second of every run. With nothing
  // due, it comes first, so that an idle instance resolves new attempts in the same run.
  let due = dueNow(ctx.clock());
  let intakeMs = 0;
  const takeIn = async () => {
    const started = performance.now();
    try {
      return await intakeNewSegments(ctx);
    } finally {
      intakeMs = Math.round(performance.now() - started);
    }
  };
  const intakeRun = due.length === 0 ? Promise.resolve(await takeIn()) : takeIn();
  intakeRun.catch(() => {}); // awaited below; a failure while the chain is read is not unhandled
  try {
    if (due.length === 0) {
      lap();
      due = dueNow(ctx.clock());
    }
    steps.due = lap();
    const summary = await resolveDue(ctx, options, due, intakeRun, lap, steps);
    steps.intake = intakeMs; // overlapped with the chain reads when attempts were due
    const backlog = due.length === maxAttempts || summary.intake.more;
    return { intake: { segments: summary.intake.segments, attempts: summary.intake.attempts, chunksReadByDay: summary.intake.chunksReadByDay }, ...summary.outcome, discardedBatches, backlog, stepsMs: steps };
  } finally {
    await intakeRun.catch(() => {}); // never left running after the run (a stop, a failed chain read)
  }
}

/** One run's due attempts: read from the chain, decoded, classified and recorded; the rest rescheduled. */
async function resolveDue(
  ctx: Context,
  options: ResolveOptions,
  due: PendingRow[],
  intakeRun: ReturnType<typeof intakeNewSegments>,
  lap: () => number,
  steps: Record<string, number>,
): Promise<{ intake: Awaited<ReturnType<typeof intakeNewSegments>>; outcome: { resolved: Record<string, number>; stillPending: number } }> {
  checkStop(options.signal);
  const now = ctx.clock();

  const resolutions: Resolution[] = [];
  const sends: { row: PendingRow; attempt: Attempt }[] = [];
  for (const row of due) {
    const attempt = toAttempt(row);
    if (row.kind === "preflight") resolutions.push(resolvePreflight(attempt, row, options.idls, now));
    else sends.push({ row, attempt });
  }

  const reschedule: { attemptId: string; at: number; expiryObservedAt?: number; expiryHeight?: number }[] = [];
  if (sends.length > 0) {
    const height = await blockHeight(options.rpc);
    recordBlockHeight(ctx.control, now, height);
    const statuses = await signatureStatuses(options.rpc, sends.map((s) => s.attempt.sig!), options.statusCallsPerRequest ?? 8);
    const landed: { attempt: Attempt; status: SignatureStatus }[] = [];
    const expired: { row: PendingRow; attempt: Attempt }[] = [];
    for (const send of sends) {
      const status = statuses.get(send.attempt.sig!) ?? null;
      if (status && status.confirmationStatus !== "processed" && status.confirmationStatus !== null) landed.push({ attempt: send.attempt, status });
      else if (status) reschedule.push({ attemptId: send.attempt.attemptId, at: now + 2_000 }); // processed only: may still be forked out
      else if (send.attempt.nonce) {
        if (now - send.attempt.sentAt > NONCE_WAIT_MS) resolutions.push(dropped(send.attempt, unknownDrop(send.attempt, now - send.attempt.sentAt), now));
        else reschedule.push({ attemptId: send.attempt.attemptId, at: now + 60_000 });
      } else if (height > send.attempt.lastValidBlockHeight) expired.push(send);
      else if (now - send.row.received_at > MAX_PENDING_MS) resolutions.push(dropped(send.attempt, unknownDrop(send.attempt, now - send.attempt.sentAt), now));
      else reschedule.push({ attemptId: send.attempt.attemptId, at: now + backoffMs(send.row.checks) });
    }

    steps.statuses = lap();
    // Second look-up for attempts that just expired, made after the expiry was observed. The wait
    // runs while the landed attempts are fetched and decoded (it was idle time in every run).
    const recheck =
      expired.length === 0
        ? Promise.resolve(new Map<string, SignatureStatus | null>())
        : (options.sleep ?? ((ms: number) => stoppableSleep(ms, options.signal)))(options.recheckDelayMs ?? 2_000).then(() =>
            signatureStatuses(options.rpc, expired.map((e) => e.attempt.sig!), options.statusCallsPerRequest ?? 8),
          );
    recheck.catch(() => {}); // awaited below; a failure while the landed ones are fetched is not unhandled

    const decodeLanded = async (batch: { attempt: Attempt; status: SignatureStatus }[]) => {
      if (batch.length === 0) return;
      const txs = await transactions(options.rpc, ctx.control, batch.map((l) => l.attempt.sig!), options.transactionsPerRequest ?? 100, now);
      for (const [i, { attempt, status }] of batch.entries()) {
        if (i > 0 && i % YIELD_EVERY === 0) await yieldToEventLoop();
        const tx = txs.get(attempt.sig!) ?? null;
        if (tx === null) reschedule.push({ attemptId: attempt.attemptId, at: now + 5_000 }); // status is ahead of the ledger: next run
        else resolutions.push(resolveLanded(attempt, status, tx, options.idls, now));
      }
    };
    await decodeLanded(landed);
    steps.transactions = lap();

    const confirmedDrops: { attempt: Attempt; heightAtExpiry: number }[] = [];
    const again = await recheck;
    const landedLate: { attempt: Attempt; status: SignatureStatus }[] = [];
    for (const e of expired) {
      const status = again.get(e.attempt.sig!) ?? null;
      if (status && status.confirmationStatus !== "processed") landedLate.push({ attempt: e.attempt, status });
      else if (status) reschedule.push({ attemptId: e.attempt.attemptId, at: now + 2_000 });
      else confirmedDrops.push({ attempt: e.attempt, heightAtExpiry: height });
    }
    await decodeLanded(landedLate);
    steps.recheck = lap();

    if (confirmedDrops.length > 0) {
      const neighbours = await loadNeighbours(ctx, confirmedDrops.map((d) => d.attempt), resolutions);
      await yieldToEventLoop();
      const estimate = heightEstimator(ctx);
      const diagnoses = classifyDropsFrom(confirmedDrops.map(({ attempt, heightAtExpiry }) => ({ attempt, heightAtExpiry, heightAtSend: estimate(attempt.sentAt) })), neighbours);
      confirmedDrops.forEach(({ attempt }, i) => resolutions.push(dropped(attempt, diagnoses[i], now)));
      steps.drops = lap();
    }
  }

  const intake = await intakeRun;
  checkStop(options.signal);
  if (resolutions.length > 0) fault("resolve:after-read");
  await recordResolutions(ctx, resolutions, { beforeCommit: options.beforeCommit });
  steps.record = lap();
  rescheduleAttempts(ctx.control, reschedule);

  const resolved: Record<string, number> = { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 };
  for (const r of resolutions) resolved[r.outcome]++;
  trimAttemptIndex(ctx.control, now - INDEX_RETENTION_MS, Math.floor((now - PROVIDER_HOURS_RETENTION_MS) / 3_600_000));
  forgetTransactionsFetchedBefore(ctx.control, now - TRANSACTION_CACHE_MS);
  const stillPending = pendingAttemptCount(ctx.control);
  steps.reschedule = lap();
  return { intake, outcome: { resolved, stillPending } };
}

function toAttempt(row: PendingRow): Attempt {
  return {
    attemptId: row.attempt_id,
    accountId: row.account_id,
    program: row.program,
    sig: row.sig === "" ? null : row.sig,
    lastValidBlockHeight: row.last_valid_block_height,
    sentAt: row.sent_at,
    rpcHash: row.rpc_hash,
    rpcLabel: row.rpc_label,
    payer: row.payer,
    cuPriceMicroLamports: row.cu_price_micro_lamports,
    nonce: row.nonce === 1,
  };
}

/** 5 s, 10 s, 20 s, … up to a minute between checks of an attempt that is neither found nor expired. */
function backoffMs(checks: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.min(checks, 4));
}

function resolvePreflight(attempt: Attempt, row: PendingRow, idls: IdlRegistry, now: number): Resolution {
  const logs = row.simulation_logs ? (JSON.parse(row.simulation_logs) as string[]) : [];
  const story = decodePreflight({ preflightError: row.preflight_error, simulationLogs: logs, program: attempt.program }, idls);
  return {
    attempt,
    outcome: "preflight",
    resolvedAt: now,
    slot: null,
    blockTime: null,
    err: story.txError,
    story,
    drop: null,
    fingerprint: storyFingerprint(attempt.program, "preflight", story),
    logMessages: logs,
  };
}

type TransactionJson = { slot?: number; blockTime?: number | null; meta?: { err?: unknown; logMessages?: string[] | null } | null };

export function resolveLanded(attempt: Attempt, status: Pick<SignatureStatus, "err" | "slot"> | null, tx: unknown, idls: IdlRegistry, now: number): Resolution {
  const json = tx as TransactionJson;
  const story: DecodedStory = decodeTransaction(tx, idls, { program: attempt.program });
  const err = json.meta?.err ?? status?.err ?? null;
  const outcome = err === null || err === undefined ? "landed" : "failed_onchain";
  return {
    attempt,
    outcome,
    resolvedAt: now,
    slot: json.slot ?? status?.slot ?? null,
    blockTime: typeof json.blockTime === "number" ? json.blockTime * 1000 : null,
    err: outcome === "landed" ? null : JSON.stringify(err),
    story,
    drop: null,
    fingerprint: outcome === "landed" ? null : storyFingerprint(attempt.program, outcome, story),
    logMessages: json.meta?.logMessages ?? [],
  };
}

function dropped(attempt: Attempt, diagnosis: DropDiagnosis, now: number): Resolution {
  return {
    attempt,
    outcome: "dropped",
    resolvedAt: now,
    slot: null,
    blockTime: null,
    err: null,
    story: EMPTY_STORY,
    drop: diagnosis,
    fingerprint: issueFingerprint({ program: attempt.program, outcome: "dropped", failingProgram: null, instruction: null, key: diagnosis.dropClass }),
    logMessages: [],
  };
}

/**
 * Block height at a past time, interpolated between the heights this job observed. Only inside the
 * span of two observations at least a minute apart (a measured block rate, no guessing): outside
 * it, null, and stale_blockhash_at_send is not claimed.
 */
function heightEstimator(ctx: Context): (at: number) => number | null {
  const samples = blockHeightObservations(ctx.control);
  return (at) => {
    // The last observation at or before `at` and the first after it (observations ascending, unique times).
    let lo = 0;
    let hi = samples.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (samples[mid].observed_at <= at) lo = mid + 1;
      else hi = mid;
    }
    const before = lo > 0 ? samples[lo - 1] : undefined;
    const after = lo < samples.length ? samples[lo] : undefined;
    if (!before || !after || after.observed_at - before.observed_at < 60_000 || after.height < before.height) return null;
    const perMs = (after.height - before.height) / (after.observed_at - before.observed_at);
    return Math.round(before.height + (at - before.observed_at) * perMs);
  };
}

/**
 * What drop classification needs of the resolved sends around this run's drops (from the index)
 * and of this run's own sends (its drops are evidence for each other: a provider that drops many
 * at once). At a busy instance the window holds millions of sends: the recent ones are held in
 * memory between runs (recent-sends.ts); a window reaching further back is read a minute at a time
 * as columns without signatures or payers (the few distinct programs and providers share one
 * string each), with a pause for the event loop between minutes. Full rows are read only for the
 * drops' own payer+program pairs, through their index.
 */
export async function loadNeighbours(ctx: Context, drops: Attempt[], thisRun: Resolution[]): Promise<NeighbourSet> {
  const fresh: Neighbour[] = [];
  for (const r of thisRun) {
    if (r.outcome === "preflight") continue;
    const a = r.attempt;
    fresh.push({ sig: a.sig, payer: a.payer, program: a.program, rpcHash: a.rpcHash, sentAt: a.sentAt, outcome: r.outcome, cuPriceMicroLamports: a.cuPriceMicroLamports });
  }
  for (const a of drops) fresh.push({ sig: a.sig, payer: a.payer, program: a.program, rpcHash: a.rpcHash, sentAt: a.sentAt, outcome: "dropped", cuPriceMicroLamports: a.cuPriceMicroLamports });

  // The retry check: each drop's payer+program, within SAME_PAYER_WINDOW_MS of its drops.
  const pairs = new Map<string, { payer: string; program: string; first: number; last: number }>();
  for (const a of drops) {
    const key = payerProgramKey(a.payer, a.program);
    const pair = pairs.get(key);
    if (pair) {
      pair.first = Math.min(pair.first, a.sentAt);
      pair.last = Math.max(pair.last, a.sentAt);
    } else pairs.set(key, { payer: a.payer, program: a.program, first: a.sentAt, last: a.sentAt });
  }
  // Only what the retry check reads (a busy payer has hundreds of sends in the window, every run).
  const samePayerProgram: SamePayerSend[] = [];
  for (const pair of pairs.values()) {
    for (const r of payerSends(ctx.control, pair.payer, pair.program, pair.first - SAME_PAYER_WINDOW_MS, pair.last + SAME_PAYER_WINDOW_MS)) {
      samePayerProgram.push({ sig: r.sig, payer: pair.payer, program: pair.program, sentAt: r.sent_at, outcome: r.outcome });
    }
  }
  for (const n of fresh) if (pairs.has(payerProgramKey(n.payer, n.program))) samePayerProgram.push(n);

  // The rate and fee checks: every send within NEIGHBOUR_WINDOW_MS, in time order.
  let first = Infinity;
  let last = -Infinity;
  for (const a of drops) {
    first = Math.min(first, a.sentAt);
    last = Math.max(last, a.sentAt);
  }
  const from = first - NEIGHBOUR_WINDOW_MS;
  const to = last + NEIGHBOUR_WINDOW_MS;
  const ordered = fresh.map((n, i) => ({ n, i })).sort((a, b) => a.n.sentAt - b.n.sentAt || a.i - b.i).map((e) => e.n);

  // Usually every drop was sent minutes ago: the recent sends this process holds answer.
  const recent = recentSends(ctx.control);
  await recent.refresh(ctx.control, ctx.clock());
  const range = recent.range(from, to);
  if (range !== null) {
    const sends = new SendColumns();
    for (const n of ordered) sends.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
    return { samePayerProgram, sends, held: { columns: recent.columns, ...range } };
  }

  const intern = stringPool();
  const sends = new SendColumns();
  let next = 0;
  await readIndexedSends(ctx.control, from, to, (r) => {
    for (; next < ordered.length && ordered[next].sentAt < r.sent_at; next++) {
      const n = ordered[next];
      sends.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
    }
    sends.push(r.sent_at, intern(r.rpc_hash), intern(r.program), r.outcome, r.cu_price_micro_lamports);
  });
  for (; next < ordered.length; next++) {
    const n = ordered[next];
    sends.push(n.sentAt, n.rpcHash, n.program, n.outcome, n.cuPriceMicroLamports);
  }
  return { samePayerProgram, sends };
}

