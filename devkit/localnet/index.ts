// Public surface of the local Solana chain: a JSON-RPC 2.0 server backed by LiteSVM, for tests,
// the demo and the traffic simulator. Everything else in this folder is an implementation detail.

export { startLocalnet } from "./localnet.ts";
export type { Localnet, LocalnetOptions, ProviderHandle } from "./localnet.ts";
export type { AddProviderOptions } from "./admin.ts";
export { LocalChain, SYSTEM_PROGRAM, MEMO_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, FINALITY_DEPTH } from "./chain.ts";
export type {
  AccountView,
  ChainOptions,
  DeployOptions,
  DeployResult,
  ExecutionResult,
  ProgramTemplate,
  SignatureStatus,
  SimulationResult,
} from "./chain.ts";
export { MAX_PROCESSING_AGE } from "./blocks.ts";
export { displayTransactionError, displayInstructionError } from "./errors.ts";
export type { TransactionErrorJson, InstructionErrorJson } from "./errors.ts";
export { COMPUTE_BUDGET_PROGRAM } from "./fees.ts";
export { TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from "./tokens.ts";
export { UPGRADEABLE_LOADER, programDataAddress, decodeLoaderState } from "./loader.ts";
export type { ProviderInfo, ProviderStats } from "./provider.ts";
export { mulberry32, seedFromText } from "./prng.ts";
export type { Random } from "./prng.ts";
