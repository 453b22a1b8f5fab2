// Public surface of the traffic simulator: drive real transactions through several providers of a
// local chain, keep each attempt's telemetry envelope with its ground truth, and submit envelopes
// to a txray ingest endpoint.

export { type Envelope, envelopeSchema } from "../../src/shared/envelope.ts";
export { rpcHash } from "../../src/shared/rpc-identity.ts";
export { ChainClient, ChainRpcError } from "./chain-client.ts";
export type { Wallet, World, WorldOptions } from "./fixtures.ts";
export { APP_IDL_FILE, appProgramId, BOT_ADAPTER, createWorld, keypairFromSeed, WALLET_ADAPTERS } from "./fixtures.ts";
export type { ProviderSpec, RunOptions, RunResult } from "./runner.ts";
export { DEFAULT_MIX, DEFAULT_PROVIDERS, runTraffic } from "./runner.ts";
export type { AttemptContext, ProviderEndpoint } from "./scenarios.ts";
export { BROKEN_APP_ERROR, planFor, runAttempt, SDK_VERSION } from "./scenarios.ts";
export * as spl from "./spl.ts";
export type { SubmitOptions, SubmitResult } from "./submit.ts";
export { batchEnvelopes, retryAfterMs, SubmitError, submitEnvelopes } from "./submit.ts";
export type { ProviderSummary, Summary } from "./summary.ts";
export { formatSummary, summarize } from "./summary.ts";
export type { Attempt, DropCause, GroundTruth, Outcome, ScenarioKind } from "./truth.ts";
export { SCENARIOS } from "./truth.ts";
