// What the resolver produces for one attempt: the row written to data/lake/resolutions and the
// compact entry of the attempt index (control DB) that `why` and `diagnose-drop` read.

import type { DecodedStory } from "../decode";
import type { Outcome } from "../../shared/outcome";

export type { Outcome };
export type Evidence = { kind: string; detail: string; value: string | number | boolean | null };
export type DropDiagnosis = { dropClass: string; confidence: number; evidence: Evidence[] };

/** An attempt the resolver works on (from the pending queue or, for preflight, from the lake). */
export type Attempt = {
  attemptId: string;
  accountId: string;
  program: string;
  sig: string | null;
  lastValidBlockHeight: number;
  sentAt: number;
  rpcHash: string;
  rpcLabel: string;
  payer: string;
  cuPriceMicroLamports: number | null;
  nonce: boolean;
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
  logMessages: string[];
};

export { EMPTY_STORY } from "../decode";
