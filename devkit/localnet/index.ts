// Public surface of the local Solana chain: a JSON-RPC 2.0 server backed by LiteSVM, for tests,
// the demo and the traffic simulator. Everything else in this folder is an implementation detail.

export type { AddProviderOptions } from "./admin.ts";
export { MAX_PROCESSING_AGE } from "./blocks.ts";
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
export { ASSOCIATED_TOKEN_PROGRAM, FINALITY_DEPTH, LocalChain, MEMO_PROGRAM, SYSTEM_PROGRAM } from "./chain.ts";
export type { InstructionErrorJson, TransactionErrorJson } from "./errors.ts";
export { displayInstructionError, displayTransactionError } from "./errors.ts";
export { COMPUTE_BUDGET_PROGRAM } from "./fees.ts";
export { decodeLoaderState, programDataAddress, UPGRADEABLE_LOADER } from "./loader.ts";
export type { Localnet, LocalnetOptions, ProviderHandle } from "./localnet.ts";
export { startLocalnet } from "./localnet.ts";
export type { Random } from "./prng.ts";
export { mulberry32, seedFromText } from "./prng.ts";
export type { ProviderInfo, ProviderStats } from "./provider.ts";
export { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "./tokens.ts";
