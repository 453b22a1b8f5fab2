// What the resolver works on and produces: an attempt taken in from the lake, and its resolution
// (the row written to data/lake/resolutions and the entry of the signature index that `why` and
// `diagnose-drop` read).

import type { Outcome } from "../../shared/outcome";
import type { DecodedStory } from "../decode";

export type { Outcome };
export type Evidence = { kind: string; detail: string; value: string | number | boolean | null };
export type DropDiagnosis = { dropClass: string; confidence: number; evidence: Evidence[] };

/** An attempt as the resolver holds it (from its envelope in the lake). */
export type Attempt = {
  attemptId: string;
  accountId: string;
  program: string;
  sig: string | null;
  kind: "send" | "preflight";
  lastValidBlockHeight: number;
  sentAt: number;
  receivedAt: number;
  rpcHash: string;
  rpcLabel: string;
  payer: string;
  cuLimit: number | null;
  cuPriceMicroLamports: number | null;
  ixPrefix: string | null;
  nonce: boolean;
  /**
   * A durable-nonce attempt whose envelope named its nonce account: that account, and the nonce it was signed against
   * (the envelope's blockhash). Null or absent otherwise (an attempt imported from the previous version's queue).
   */
  nonceAccount?: string | null;
  nonceValue?: string | null;
  /** kind preflight: the client's error text and simulation logs. */
  preflightError: string | null;
  simulationLogs: string[] | null;
};

export type Resolution = {
  attempt: Attempt;
  outcome: Outcome;
  resolvedAt: number;
  slot: number | null;
  blockTime: number | null;
  err: string | null;
  story: DecodedStory;
  drop: DropDiagnosis | null;
  fingerprint: string | null;
  /** Failures' and preflight logs; null for successes (never stored, docs/lake.md "Version 2"). */
  logMessages: string[] | null;
  /** The targeted instruction's data prefix: the envelope's, else the fetched transaction's. */
  ixPrefix: string | null;
  /** A landed success whose transaction was fetched because its attempt is in the success sample. */
  sampled: boolean;
  /** What the row's transaction-derived figures stand for (docs/lake.md): 1 / rate, 1, or null. */
  sampleWeight: number | null;
};

export { EMPTY_STORY } from "../decode";
