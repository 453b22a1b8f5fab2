// One attempt's resolution from what the chain said about it, written once for the resolver and for
// `why` on demand (docs/architecture.md "Outcomes, drops and issues"; docs/lake.md "Version 2"):
//   a success outside the sample   from its status alone: slot, block time of that slot, the
//                                  instruction named from the envelope's ixPrefix
//   a failure, a sampled success   decoded from its transaction (getTransaction)
//   a preflight failure            decoded from the envelope's own error text and logs
//   a drop                         the diagnosis drop classification made
// The same inputs give the same row whoever asks, so an answer given on demand is the one the
// resolver records later.

import {
  type DecodedStory,
  decodePreflight,
  decodeTransactionWithPrefix,
  durableNonceOf,
  EMPTY_STORY,
  instructionNameFromPrefix,
  issueFingerprint,
  storyFingerprint,
} from "../decode";
import type { IdlRegistry } from "../idl";
import type { SignatureStatus } from "./chain-reads";
import { inSuccessSample } from "./sample";
import type { Attempt, DropDiagnosis, Resolution } from "./types";

/** A status that says the transaction is in a block the cluster voted on (processed may still be forked out). */
export function isConfirmed(status: SignatureStatus | null): status is SignatureStatus {
  return status !== null && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized");
}

/** Whether a confirmed attempt needs its transaction: every failure, and the successes in the sample. */
export function needsTransaction(attempt: Attempt, status: SignatureStatus, sampleRate: number): boolean {
  return !isSuccess(status.err) || inSuccessSample(attempt.attemptId, sampleRate);
}

const isSuccess = (err: unknown) => err === null || err === undefined;

/**
 * Instruction names learned from decoded transactions, by (program, prefix): a success decided from
 * its status is named by the prefix its client sent even when no IDL or built-in table knows it,
 * through the name the decoder read (an Anchor `Instruction:` log line) from another attempt's
 * transaction with the same prefix. Kept with the resolver's checkpoint.
 */
export class LearnedNames {
  private readonly names = new Map<string, string>();
  constructor(entries: [string, string, string][] = []) {
    for (const [program, prefix, name] of entries) this.names.set(`${program}/${prefix}`, name);
  }
  get(program: string, prefix: string): string | undefined {
    return this.names.get(`${program}/${prefix}`);
  }
  learn(program: string, prefix: string, name: string): void {
    if (this.names.size < 100_000) this.names.set(`${program}/${prefix}`, name);
  }
  entries(): [string, string, string][] {
    return [...this.names].map(([key, name]) => {
      const slash = key.lastIndexOf("/");
      return [key.slice(0, slash), key.slice(slash + 1), name];
    });
  }
}

/** A landed success from its status alone (outside the sample). */
export function landedFromStatus(
  attempt: Attempt,
  status: SignatureStatus,
  blockTime: number | null,
  idls: IdlRegistry,
  names: LearnedNames | null,
  now: number,
): Resolution {
  const prefix = attempt.ixPrefix;
  const instruction =
    prefix === null
      ? null
      : (instructionNameFromPrefix(attempt.program, prefix, idls.atSlot(status.slot)) ??
        names?.get(attempt.program, prefix) ??
        null);
  const story: DecodedStory = {
    ...EMPTY_STORY,
    topLevelProgram: attempt.program,
    instruction,
    cuRequested: attempt.cuLimit,
  };
  return {
    attempt,
    outcome: "landed",
    resolvedAt: now,
    slot: status.slot,
    blockTime,
    err: null,
    story,
    drop: null,
    fingerprint: null,
    logMessages: null,
    ixPrefix: prefix,
    sampled: false,
    sampleWeight: null,
  };
}

type TransactionJson = {
  slot?: number;
  blockTime?: number | null;
  meta?: { err?: unknown; logMessages?: string[] | null } | null;
};

/**
 * A confirmed attempt decoded from its transaction: a failure, or a success in the sample (then
 * `sampleRate` sets its weight). Learns the instruction name of its prefix where the story names
 * the attempt's main instruction.
 */
export function resolveFromTransaction(
  attempt: Attempt,
  status: Pick<SignatureStatus, "err" | "slot"> | null,
  tx: unknown,
  idls: IdlRegistry,
  now: number,
  sampleRate: number,
  names: LearnedNames | null = null,
): Resolution {
  const json = tx as TransactionJson;
  const { story, target } = decodeTransactionWithPrefix(tx, idls, {
    program: attempt.program,
    slot: json.slot ?? status?.slot ?? null,
  });
  const err = json.meta?.err ?? status?.err ?? null;
  const landed = isSuccess(err);
  const ixPrefix = attempt.ixPrefix ?? target?.prefix ?? null;
  // A success counts in the sample only when its attempt is in it (a status that said "failed" and a
  // transaction that says otherwise must not bias the estimates).
  const sampled = landed && inSuccessSample(attempt.attemptId, sampleRate);
  if (
    names &&
    target &&
    story.instruction !== null &&
    (landed || story.ixPath?.split(".")[0] === String(target.index))
  ) {
    names.learn(attempt.program, target.prefix, story.instruction);
  }
  // A durable-nonce transaction is recognized from its first instruction even when its envelope did not say so.
  const nonceAttempt = !attempt.nonce && durableNonceOf(tx) !== null ? { ...attempt, nonce: true } : attempt;
  return {
    attempt: nonceAttempt,
    outcome: landed ? "landed" : "failed_onchain",
    resolvedAt: now,
    slot: json.slot ?? status?.slot ?? null,
    blockTime: typeof json.blockTime === "number" ? json.blockTime * 1000 : null,
    err: landed ? null : JSON.stringify(err),
    story,
    drop: null,
    fingerprint: landed ? null : storyFingerprint(attempt.program, "failed_onchain", story),
    logMessages: landed ? null : (json.meta?.logMessages ?? []),
    ixPrefix,
    sampled,
    sampleWeight: sampled ? 1 / Math.min(1, sampleRate) : landed ? null : 1,
  };
}

/** A preflight failure, decoded from the envelope's error text and simulation logs. */
export function resolvePreflight(attempt: Attempt, idls: IdlRegistry, now: number): Resolution {
  const logs = attempt.simulationLogs ?? [];
  const story = decodePreflight(
    { preflightError: attempt.preflightError, simulationLogs: logs, program: attempt.program },
    idls,
  );
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
    ixPrefix: attempt.ixPrefix,
    sampled: false,
    sampleWeight: null,
  };
}

/** A drop, with the diagnosis that classified it. */
export function dropped(attempt: Attempt, diagnosis: DropDiagnosis, now: number): Resolution {
  return {
    attempt,
    outcome: "dropped",
    resolvedAt: now,
    slot: null,
    blockTime: null,
    err: null,
    story: EMPTY_STORY,
    drop: diagnosis,
    fingerprint: issueFingerprint({
      program: attempt.program,
      outcome: "dropped",
      failingProgram: null,
      instruction: null,
      key: diagnosis.dropClass,
    }),
    logMessages: [],
    ixPrefix: attempt.ixPrefix,
    sampled: false,
    sampleWeight: null,
  };
}
