// What the signature index holds for an attempt (src/signature-index; docs/scaling.md "Finding a
// signature"): the resolver writes a `resolved` entry with everything `why` and `diagnose-drop`
// answer, or, for an attempt it took in and has not resolved yet, an `open` entry with its envelope
// (so `why` can ask the chain about it at once and answer the way the resolver will record it).
// Read back through indexedAttempts, newest entry per attempt.

import type { Context, OwnedPart } from "../../context";
import { type ControlDb, ifLeaseFree, isResolutionBatchCommitted } from "../../control";
import { describeError } from "../../shared/logger";
import type { IndexEntry, RunFooter, SignatureIndex } from "../../signature-index";
import { type DecodedStory, EMPTY_STORY } from "../decode";
import type { Attempt, Resolution } from "./types";

type Common = Pick<Attempt, "attemptId" | "accountId" | "program" | "payer" | "rpcHash" | "rpcLabel" | "sentAt">;

export type ResolvedEntry = Common &
  Pick<Resolution, "outcome" | "slot" | "blockTime" | "err" | "story" | "drop" | "fingerprint"> & {
    state: "resolved";
    /** resolvedAt (retention dates the entry by it). */
    at: number;
  };

export type OpenEntry = Common & {
  state: "open";
  /** When it was taken in. */
  at: number;
  attempt: Attempt;
};

export type IndexedAttempt = ResolvedEntry | OpenEntry;

const common = (a: Attempt): Common => ({
  attemptId: a.attemptId,
  accountId: a.accountId,
  program: a.program,
  payer: a.payer,
  rpcHash: a.rpcHash,
  rpcLabel: a.rpcLabel,
  sentAt: a.sentAt,
});

/**
 * The story as the index keeps it: only the fields that differ from EMPTY_STORY (a success decided
 * from its status has two or three), read back whole by indexedAttempts.
 */
function compactStory(story: DecodedStory): Partial<DecodedStory> {
  const compact: Record<string, unknown> = {};
  for (const field in story) {
    const value = story[field as keyof DecodedStory];
    if (value !== EMPTY_STORY[field as keyof DecodedStory]) compact[field] = value;
  }
  return compact as Partial<DecodedStory>;
}

/**
 * An entry as it was before it was stored compactly: a resolved one's whole story; an open one's
 * whole attempt (stored without the fields the entry already holds, its signature and its
 * simulation's text, which index runs written before kept in it).
 */
function readEntry(entry: IndexEntry): IndexedAttempt {
  const value = entry.value as ResolvedEntry | (Omit<OpenEntry, "attempt"> & { attempt: Partial<Attempt> });
  if (value.state === "resolved") return { ...value, story: { ...EMPTY_STORY, ...value.story } };
  const { attemptId, accountId, program, payer, rpcHash, rpcLabel, sentAt } = value;
  const attempt = {
    attemptId,
    accountId,
    program,
    payer,
    rpcHash,
    rpcLabel,
    sentAt,
    sig: entry.sig,
    simulationLogs: null,
    preflightError: null,
    ...value.attempt,
  } as Attempt;
  return { ...value, attempt };
}

/** What the index answers for a resolution (why answers an attempt decided on demand from the same). */
export function resolvedValue(r: Resolution): ResolvedEntry {
  return {
    ...common(r.attempt),
    state: "resolved",
    at: r.resolvedAt,
    outcome: r.outcome,
    slot: r.slot,
    blockTime: r.blockTime,
    err: r.err,
    story: r.story,
    drop: r.drop,
    fingerprint: r.fingerprint,
  };
}

export function resolvedEntry(r: Resolution): IndexEntry {
  // resolvedValue's fields in its order, the story compact: one object per entry (the resolver writes ~20,000 a
  // second).
  const value = {
    ...common(r.attempt),
    state: "resolved",
    at: r.resolvedAt,
    outcome: r.outcome,
    slot: r.slot,
    blockTime: r.blockTime,
    err: r.err,
    story: compactStory(r.story),
    drop: r.drop,
    fingerprint: r.fingerprint,
  };
  return { sig: r.attempt.sig!, attemptId: r.attempt.attemptId, value };
}

export function openEntry(attempt: Attempt, takenAt: number): IndexEntry {
  // Every resolver run writes one per attempt still open (~30% of sends never land): the fields
  // common() already holds and the signature (the entry's key) are not repeated (readEntry restores them).
  // The resolver passes its open attempts: their bookkeeping (checks, due time, heap version) is
  // not part of the envelope and is not stored.
  const { kind, lastValidBlockHeight, receivedAt, cuLimit, cuPriceMicroLamports, ixPrefix, nonce } = attempt;
  const rest = { kind, lastValidBlockHeight, receivedAt, cuLimit, cuPriceMicroLamports, ixPrefix, nonce };
  const value = { ...common(attempt), state: "open" as const, at: takenAt, attempt: rest };
  return { sig: attempt.sig!, attemptId: attempt.attemptId, value };
}

export const entryTime = (value: unknown) => (value as IndexedAttempt).at;

/**
 * The signature index's upkeep in one context: the upkeep running (null: none), and the batches
 * seen committed (a committed batch stays committed: their runs need no second look).
 */
type IndexUpkeep = { running: Promise<void> | null; committed: Set<string> };
const INDEX_UPKEEP: OwnedPart<IndexUpkeep> = {
  name: "signature index upkeep",
  make: () => ({ running: null, committed: new Set() }),
};

/**
 * The signature index's upkeep (merges, retention) in the background, under its own lease (one
 * process at a time), beside the resolver's runs rather than inside them: a merge of large runs
 * takes seconds, which a resolve run must not wait for. Runs of a batch that has not committed are
 * left alone. Returns at once; an upkeep already running in this process is not started twice.
 */
export function startIndexUpkeep(ctx: Context, retainFrom: number, pause: () => Promise<void>): void {
  const index = ctx.signatures;
  const upkeep = ctx.own(INDEX_UPKEEP);
  if (upkeep.running) return;
  const running = ifLeaseFree(ctx.control, "signature-index", () =>
    index.maintain(retainFrom, pause, (footer) => runVisible(ctx.control, upkeep.committed, footer)),
  )
    .then(
      () => {},
      (error) =>
        ctx.logger.warn("signature index upkeep failed; the next one retries", { error: describeError(error) }),
    )
    .finally(() => {
      if (upkeep.running === running) upkeep.running = null;
    });
  upkeep.running = running;
}

/** Waits for the context's upkeep of its index (tests, benchmarks, a clean stop). */
export async function indexUpkeepDone(ctx: Context): Promise<void> {
  await ctx.own(INDEX_UPKEEP).running;
}

/** Every attempt the index holds, one entry each (a check over everything, never a request). */
export function* everyIndexedAttempt(index: SignatureIndex, control: ControlDb): Generator<IndexedAttempt> {
  const committed = new Set<string>();
  for (const entry of index.scan((footer) => runVisible(control, committed, footer))) yield readEntry(entry);
}

/** Preference when one signature stands for several attempts: one that reached the chain, then the newest. */
const RANK: Record<string, number> = { failed_onchain: 0, landed: 1, preflight: 2, dropped: 3 };

/**
 * A run counts once its batch committed (record.ts writes the run just before the commit); runs
 * without a batch always count. `committed`: the batches already seen committed.
 */
function runVisible(control: ControlDb, committed: Set<string>, footer: RunFooter): boolean {
  if (footer.batch === null || committed.has(footer.batch)) return true;
  if (!isResolutionBatchCommitted(control, footer.batch)) return false;
  if (committed.size > 10_000) committed.clear();
  committed.add(footer.batch);
  return true;
}

/**
 * The attempts a signature stands for, best first: resolved ones (one that reached the chain before
 * a drop of a resend, then the newest resolution), then open ones.
 */
export function indexedAttempts(
  index: SignatureIndex,
  control: ControlDb,
  sig: string,
  committed = new Set<string>(),
): IndexedAttempt[] {
  const entries = index.lookup(sig, (footer) => runVisible(control, committed, footer)).map(readEntry);
  const rank = (e: IndexedAttempt) => (e.state === "open" ? 4 : (RANK[e.outcome] ?? 3));
  return entries.sort((a, b) => rank(a) - rank(b) || b.at - a.at);
}

/** indexedAttempts of the context's index, remembering the batches seen committed for the context's life. */
export function attemptsForSignature(ctx: Context, sig: string): IndexedAttempt[] {
  return indexedAttempts(ctx.signatures, ctx.control, sig, ctx.own(INDEX_UPKEEP).committed);
}
