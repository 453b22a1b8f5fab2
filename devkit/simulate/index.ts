// Public surface of the traffic simulator: drive real transactions through several providers of a
// local chain, keep each attempt's telemetry envelope with its ground truth, and submit envelopes
// to a txray ingest endpoint.

export { runTraffic, DEFAULT_MIX, DEFAULT_PROVIDERS } from "./runner.ts";
export type { RunOptions, RunResult, ProviderSpec } from "./runner.ts";
export { runAttempt, planFor, BROKEN_APP_ERROR } from "./scenarios.ts";
export type { AttemptContext, ProviderEndpoint } from "./scenarios.ts";
export { createWorld, keypairFromSeed, appProgramId, APP_IDL_FILE, BOT_ADAPTER, WALLET_ADAPTERS } from "./fixtures.ts";
export type { World, Wallet, WorldOptions } from "./fixtures.ts";
export { envelopeSchema, type Envelope } from "../../src/shared/envelope.ts";
export { rpcHash } from "../../src/shared/rpc-identity.ts";
export { SDK_VERSION } from "./scenarios.ts";
export { SCENARIOS } from "./truth.ts";
export type { Attempt, GroundTruth, Outcome, ScenarioKind, DropCause } from "./truth.ts";
export { submitEnvelopes, batchEnvelopes, retryAfterMs, SubmitError } from "./submit.ts";
export type { SubmitOptions, SubmitResult } from "./submit.ts";
export { summarize, formatSummary } from "./summary.ts";
export type { Summary, ProviderSummary } from "./summary.ts";
export { ChainClient, ChainRpcError } from "./chain-client.ts";
export * as spl from "./spl.ts";
