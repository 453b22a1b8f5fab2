// Issue fingerprints (docs/architecture.md, "Outcomes, drops and issues"): attempts that fail the same way share an
// issue. The id is "v1:" + the first 16 hex of sha256 over the canonical JSON array
// [program, outcome, failingProgram, instruction, key] (nulls as JSON null), where key is the custom
// error code, the drop class, or a normalised error key. Only value-free parts go in: no amounts,
// addresses, Left/Right values or account indexes, so repeats of one failure group together. A new
// grouping rule gets a new prefix ("v2:") and old issues keep their ids.

import { createHash } from "node:crypto";
import type { DecodedStory } from "./story";

export const FINGERPRINT_VERSION = "v1";

export interface IssueFingerprintInput {
  /** Tracked program the attempt targeted (envelope `program`). */
  program: string;
  outcome: string;
  failingProgram: string | null;
  instruction: string | null;
  /** errCode (number), drop class, or normalised error key (DecodedStory.errorKey). */
  key: string | number | null;
}

export function issueFingerprint({
  program,
  outcome,
  failingProgram,
  instruction,
  key,
}: IssueFingerprintInput): string {
  const canonical = JSON.stringify([program, outcome, failingProgram, instruction, key]);
  return `${FINGERPRINT_VERSION}:${createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

/** The fingerprint key of a decoded story: its custom error code, else its error key. */
export function storyFingerprintKey(story: Pick<DecodedStory, "errCode" | "errorKey">): string | number | null {
  return story.errCode ?? story.errorKey;
}

/** Fingerprint of a decoded story for an attempt at `program` with `outcome`. */
export function storyFingerprint(program: string, outcome: string, story: DecodedStory): string {
  return issueFingerprint({
    program,
    outcome,
    failingProgram: story.failingProgram,
    instruction: story.instruction,
    key: storyFingerprintKey(story),
  });
}
