// Ground truth kept next to every simulated envelope: what really happened to the attempt, so tests
// of the service (resolve, decode, drop classification) can compare its answers with reality.
// `outcome`/`err` are what the chain (or the provider) actually did; `expected*` is what the scenario
// intended if the provider forwarded it; `consistent` says the chain behaved as the scenario meant.

import type { Envelope } from "../../src/shared/envelope.ts";
import type { TransactionErrorJson } from "../localnet/errors.ts";

export type Outcome = "landed" | "failed_onchain" | "dropped" | "preflight";

export const SCENARIOS = [
  "sol_transfer",
  "token_transfer",
  "app_call",
  "sol_insufficient",
  "token_insufficient",
  "compute_exceeded",
  "preflight_sol",
  "preflight_token",
  "preflight_blockhash",
  "preflight_unsigned",
  "expired",
] as const;

export type ScenarioKind = (typeof SCENARIOS)[number];

/** Why an attempt never landed. */
export type DropCause = "provider_not_forwarding" | "stale_blockhash";

export interface GroundTruth {
  scenario: ScenarioKind;
  /** Label of the provider the attempt went through. */
  provider: string;
  outcome: Outcome;
  /** Transaction error on chain (failed_onchain) or in simulation (preflight); null otherwise. */
  err: TransactionErrorJson | null;
  /** Custom program error code inside `err`, when there is one. */
  errCode: number | null;
  /** Program whose instruction failed (top-level instruction of `err`), when known. */
  failingProgram: string | null;
  dropCause: DropCause | null;
  /** Slot the transaction landed in (landed / failed_onchain). */
  slot: number | null;
  expectedOutcome: Outcome;
  expectedErr: TransactionErrorJson | null;
  consistent: boolean;
}

export interface Attempt {
  envelope: Envelope;
  truth: GroundTruth;
}
