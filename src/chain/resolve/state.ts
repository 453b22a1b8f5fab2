// What the resolver holds in memory between runs (docs/operations.md, "How resolving works"): its
// open attempts, the recent sends drop classification compares with, the instruction names it
// learned and the block times of recent slots. One state per context (RESOLVER_MEMORY). A run
// first checks that this memory is current: the version the last run of any process recorded must
// be the one this process wrote; otherwise (another process resolved meanwhile, this process just
// started, or a run of its own failed midway) the state is rebuilt from the checkpoint and what the
// lake and the control database say happened after it (checkpoint.ts).

import { existsSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Context, OwnedPart } from "../../context";
import {
  batchesCommittedAfter,
  forgetLegacyResolverRows,
  hasLegacyResolverRows,
  type LegacyIndexRow,
  type LegacyPendingRow,
  latestResolverMark,
  legacyIndexedAttempts,
  legacyPendingAttempts,
  resolverProgress,
  segmentsTakenAfter,
} from "../../control";
import { readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { readLakeSql } from "../../lake/schema";
import { yieldToEventLoop } from "../../shared/pause";
import type { IndexEntry } from "../../signature-index";
import type { DecodedStory } from "../decode";
import { readCheckpoint, writeCheckpoint } from "./checkpoint";
import { readSegments } from "./intake";
import { type OpenAttempt, OpenAttempts, openAttempt } from "./open-attempts";
import { LearnedNames } from "./outcomes";
import { RecentSends } from "./recent-sends";
import { entryTime, type ResolvedEntry } from "./signatures";
import { SlotTimes } from "./slot-times";
import type { DropDiagnosis, Outcome } from "./types";

/** The JSON the previous version's attempt index kept per attempt. */
type StoredStory = {
  outcome: Outcome;
  slot: number | null;
  blockTime: number | null;
  err: string | null;
  story: DecodedStory;
  drop: DropDiagnosis | null;
  fingerprint: string | null;
};

export class ResolverState {
  readonly open = new OpenAttempts();
  readonly recent = new RecentSends();
  readonly slotTimes = new SlotTimes();
  names = new LearnedNames();
  /** The version this process recorded at the end of its last run (null: none yet). */
  version: string | null = null;
  /** The time of the last run whose work this memory holds (marks after it are not in it). */
  through = -1;
  lastCheckpointAt = 0;
  /** How long the last checkpoint took (ms of this thread): a large one is written less often (checkpointDue). */
  lastCheckpointMs = 0;
  /** When a block height was last recorded (drop classification interpolates between them). */
  lastHeightAt = 0;
  /** The block rate last measured from those heights (resolve.ts), and when. */
  pace: { at: number; msPerBlock: number | null } | null = null;
  /** The hour whose old hourly counts were last trimmed. */
  trimmedHour = -1;
  runs = 0;
}

/**
 * The resolver's memory in one context: the server's, or the job host's on a thread of its own
 * (src/jobs/thread.ts), which keeps it between runs. `state` is null until a run builds it.
 */
const RESOLVER_MEMORY: OwnedPart<{ state: ResolverState | null }> = {
  name: "resolver memory",
  make: () => ({ state: null }),
};
const processId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

/** A new version for the run ending at `at`. */
export function nextVersion(state: ResolverState): string {
  return `${processId}:${++state.runs}`;
}

/** This process's memory, rebuilt first when it is not current. */
export async function currentState(ctx: Context): Promise<ResolverState> {
  const memory = ctx.own(RESOLVER_MEMORY);
  const kept = memory.state;
  const recorded = resolverProgress(ctx.control)?.version ?? null;
  if (kept && kept.version !== null && kept.version === recorded) return kept;
  const state = await rebuildState(ctx);
  memory.state = state;
  return state;
}

/**
 * The ids of the open attempts, as a process starting now would hold them (checks over everything: `bun run chaos`).
 */
export async function openAttemptIds(ctx: Context): Promise<Set<string>> {
  return new Set([...(await currentState(ctx)).open.values()].map((a) => a.attemptId));
}

/** Forgets this process's memory (a run failed midway): the next run rebuilds it. */
export function dropState(ctx: Context): void {
  ctx.own(RESOLVER_MEMORY).state = null;
}

/** Writes the checkpoint of `state` as of the run at `at`. */
export function checkpoint(ctx: Context, state: ResolverState, at: number): void {
  const started = performance.now();
  writeCheckpoint(ctx.paths, { format: 1, through: at, open: [...state.open.values()], names: state.names.entries() });
  state.lastCheckpointAt = at;
  state.lastCheckpointMs = performance.now() - started;
}

/**
 * At most this share of the resolver's thread goes to checkpoints: a checkpoint writes every open
 * attempt, ~1.7 s for the ~650,000 a 20,000/s soak holds (its thread blocked meanwhile, ingest
 * included), so a large one is written every 50 × its cost instead of every `everyMs`. A crash then
 * replays more from the lake (segments taken since), nothing is lost.
 */
const CHECKPOINT_SHARE = 0.02;

/** Whether the run ending at `now` checkpoints. */
export function checkpointDue(
  state: Pick<ResolverState, "lastCheckpointAt" | "lastCheckpointMs">,
  now: number,
  everyMs: number,
): boolean {
  return now - state.lastCheckpointAt >= Math.max(everyMs, state.lastCheckpointMs / CHECKPOINT_SHARE);
}

async function rebuildState(ctx: Context): Promise<ResolverState> {
  const state = new ResolverState();
  const saved = readCheckpoint(ctx.paths);
  if (saved) {
    for (const attempt of saved.open) state.open.add(attempt);
    state.names = new LearnedNames(saved.names);
    state.through = saved.through;
  } else if (hasLegacyResolverRows(ctx.control)) {
    await importLegacy(ctx, state);
    return state;
  }
  await replaySince(ctx, state, state.through);
  return state;
}

/**
 * What happened after the checkpoint: attempts of segments taken since are open again (unless a
 * batch committed since resolved them), and are written to the signature index again (their open
 * entries may have gone with a batch that never committed).
 */
async function replaySince(ctx: Context, state: ResolverState, through: number): Promise<void> {
  const segments = segmentsTakenAfter(ctx.control, through);
  for (let i = 0; i < segments.length; i += 50) {
    const { attempts } = await readSegments(ctx, segments.slice(i, i + 50));
    for (const attempt of attempts) state.open.add(openAttempt(attempt, 0));
    await yieldToEventLoop();
  }
  for (const id of await attemptsResolvedAfter(ctx, through)) state.open.remove(id);
  state.through = Math.max(through, latestResolverMark(ctx.control));
}

/** Attempt ids of the resolutions committed after `through` (read from their batches' partitions). */
async function attemptsResolvedAfter(ctx: Context, through: number): Promise<string[]> {
  const batches = batchesCommittedAfter(ctx.control, through);
  const dirs = [...new Set(batches.flatMap((b) => b.partitionDirs))]
    .map((dir) => join(ctx.paths.dataset("resolutions"), dir))
    .filter((dir) => existsSync(dir) && readdirSync(dir).some((name) => name.endsWith(".parquet")))
    .map((dir) => join(dir, "*.parquet"));
  if (dirs.length === 0) return [];
  const sql = `SELECT attempt_id FROM ${readLakeSql("resolutions", `[${dirs.map(sqlString).join(", ")}]`, "union_by_name = true")} WHERE resolved_at > ${through}`;
  return (await readAgainAfterSwap(() => ctx.duck.columns<{ attempt_id: string[] }>(sql))).attempt_id;
}

/**
 * The first run after an upgrade from the resolver that kept a row per attempt in the control
 * database: its queue becomes the open attempts and its attempt index the first runs of the
 * signature index; the checkpoint is written, then both tables are emptied. Every segment was
 * taken in by the old resolver, so the checkpoint includes every mark made so far.
 */
async function importLegacy(ctx: Context, state: ResolverState): Promise<void> {
  const through = latestResolverMark(ctx.control);
  for (let after = ""; ; ) {
    const rows = legacyPendingAttempts(ctx.control, after, 10_000);
    if (rows.length === 0) break;
    for (const row of rows) state.open.add(legacyOpen(row));
    after = rows[rows.length - 1].attempt_id;
    await yieldToEventLoop();
  }
  for (let after = ""; ; ) {
    const rows = legacyIndexedAttempts(ctx.control, after, 50_000);
    if (rows.length === 0) break;
    await ctx.signatures.append(rows.filter((row) => row.sig !== null).map(legacyEntry), entryTime);
    after = rows[rows.length - 1].attempt_id;
    await yieldToEventLoop();
  }
  state.through = through;
  checkpoint(ctx, state, through);
  forgetLegacyResolverRows(ctx.control);
  ctx.logger.info("resolver: imported the queue and attempt index of the previous version", {
    openAttempts: state.open.size,
  });
}

function legacyOpen(row: LegacyPendingRow): OpenAttempt {
  const preflight = row.kind === "preflight";
  const attempt = openAttempt(
    {
      attemptId: row.attempt_id,
      accountId: row.account_id,
      program: row.program,
      sig: row.sig === "" ? null : row.sig,
      kind: preflight ? "preflight" : "send",
      lastValidBlockHeight: row.last_valid_block_height,
      sentAt: row.sent_at,
      receivedAt: row.received_at,
      rpcHash: row.rpc_hash,
      rpcLabel: row.rpc_label,
      payer: row.payer,
      cuLimit: null,
      cuPriceMicroLamports: row.cu_price_micro_lamports,
      ixPrefix: null,
      nonce: row.nonce === 1,
      preflightError: preflight ? row.preflight_error : null,
      simulationLogs: preflight ? (JSON.parse(row.simulation_logs ?? "[]") as string[]) : null,
    },
    row.next_check_at,
  );
  attempt.checks = row.checks;
  return attempt;
}

function legacyEntry(row: LegacyIndexRow): IndexEntry {
  const stored = JSON.parse(row.story) as StoredStory;
  const value: ResolvedEntry = {
    attemptId: row.attempt_id,
    accountId: row.account_id,
    program: row.program,
    payer: row.payer,
    rpcHash: row.rpc_hash,
    rpcLabel: row.rpc_label,
    sentAt: row.sent_at,
    state: "resolved",
    at: row.resolved_at,
    outcome: stored.outcome,
    slot: stored.slot,
    blockTime: stored.blockTime,
    err: stored.err,
    story: stored.story,
    drop: stored.drop,
    fingerprint: stored.fingerprint,
  };
  return { sig: row.sig!, attemptId: row.attempt_id, value };
}
