// Transaction errors as mainnet RPC shows them: the JSON form (`meta.err`, status `err`, preflight
// `data.err`) and the Display text (the `Transaction simulation failed: <Display>` message).
// LiteSVM hands back napi objects and enum numbers; this module is the one place that turns them into
// agave's serde JSON and thiserror strings (solana-transaction-error / solana-instruction-error).

import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from "litesvm/dist/internal";

export type InstructionErrorJson = string | { Custom: number } | { BorshIoError: string };

export type TransactionErrorJson =
  | string
  | { InstructionError: [number, InstructionErrorJson] }
  | { DuplicateInstruction: number }
  | { InsufficientFundsForRent: { account_index: number } }
  | { ProgramExecutionTemporarilyRestricted: { account_index: number } };

/** Variant names in LiteSVM's TransactionErrorFieldless order, with their Display text. */
const TRANSACTION_ERRORS: [string, string][] = [
  ["AccountInUse", "Account in use"],
  ["AccountLoadedTwice", "Account loaded twice"],
  ["AccountNotFound", "Attempt to debit an account but found no record of a prior credit."],
  ["ProgramAccountNotFound", "Attempt to load a program that does not exist"],
  ["InsufficientFundsForFee", "Insufficient funds for fee"],
  ["InvalidAccountForFee", "This account may not be used to pay transaction fees"],
  ["AlreadyProcessed", "This transaction has already been processed"],
  ["BlockhashNotFound", "Blockhash not found"],
  ["CallChainTooDeep", "Loader call chain is too deep"],
  ["MissingSignatureForFee", "Transaction requires a fee but has no signature present"],
  ["InvalidAccountIndex", "Transaction contains an invalid account reference"],
  ["SignatureFailure", "Transaction did not pass signature verification"],
  ["InvalidProgramForExecution", "This program may not be used for executing instructions"],
  ["SanitizeFailure", "Transaction failed to sanitize accounts offsets correctly"],
  ["ClusterMaintenance", "Transactions are currently disabled due to cluster maintenance"],
  ["AccountBorrowOutstanding", "Transaction processing left an account with an outstanding borrowed reference"],
  ["WouldExceedMaxBlockCostLimit", "Transaction would exceed max Block Cost Limit"],
  ["UnsupportedVersion", "Transaction version is unsupported"],
  ["InvalidWritableAccount", "Transaction loads a writable account that cannot be written"],
  ["WouldExceedMaxAccountCostLimit", "Transaction would exceed max account limit within the block"],
  ["WouldExceedAccountDataBlockLimit", "Transaction would exceed account data limit within the block"],
  ["TooManyAccountLocks", "Transaction locked too many accounts"],
  ["AddressLookupTableNotFound", "Transaction loads an address table account that doesn't exist"],
  ["InvalidAddressLookupTableOwner", "Transaction loads an address table account with an invalid owner"],
  ["InvalidAddressLookupTableData", "Transaction loads an address table account with invalid data"],
  ["InvalidAddressLookupTableIndex", "Transaction address table lookup uses an invalid index"],
  ["InvalidRentPayingAccount", "Transaction leaves an account with a lower balance than rent-exempt minimum"],
  ["WouldExceedMaxVoteCostLimit", "Transaction would exceed max Vote Cost Limit"],
  ["WouldExceedAccountDataTotalLimit", "Transaction would exceed total account data limit"],
  ["MaxLoadedAccountsDataSizeExceeded", "Transaction exceeded max loaded accounts data size cap"],
  ["ResanitizationNeeded", "ResanitizationNeeded"],
  ["InvalidLoadedAccountsDataSizeLimit", "LoadedAccountsDataSizeLimit set for transaction must be greater than 0."],
  ["UnbalancedTransaction", "Sum of account balances before and after transaction do not match"],
  ["ProgramCacheHitMaxLimit", "Program cache hit max limit"],
  ["CommitCancelled", "CommitCancelled"],
];

/** Variant names in LiteSVM's InstructionErrorFieldless order, with their Display text. */
const INSTRUCTION_ERRORS: [string, string][] = [
  ["GenericError", "generic instruction error"],
  ["InvalidArgument", "invalid program argument"],
  ["InvalidInstructionData", "invalid instruction data"],
  ["InvalidAccountData", "invalid account data for instruction"],
  ["AccountDataTooSmall", "account data too small for instruction"],
  ["InsufficientFunds", "insufficient funds for instruction"],
  ["IncorrectProgramId", "incorrect program id for instruction"],
  ["MissingRequiredSignature", "missing required signature for instruction"],
  ["AccountAlreadyInitialized", "instruction requires an uninitialized account"],
  ["UninitializedAccount", "instruction requires an initialized account"],
  ["UnbalancedInstruction", "sum of account balances before and after instruction do not match"],
  ["ModifiedProgramId", "instruction illegally modified the program id of an account"],
  ["ExternalAccountLamportSpend", "instruction spent from the balance of an account it does not own"],
  ["ExternalAccountDataModified", "instruction modified data of an account it does not own"],
  ["ReadonlyLamportChange", "instruction changed the balance of a read-only account"],
  ["ReadonlyDataModified", "instruction modified data of a read-only account"],
  ["DuplicateAccountIndex", "instruction contains duplicate accounts"],
  ["ExecutableModified", "instruction changed executable bit of an account"],
  ["RentEpochModified", "instruction modified rent epoch of an account"],
  ["NotEnoughAccountKeys", "insufficient account keys for instruction"],
  ["AccountDataSizeChanged", "program other than the account's owner changed the size of the account data"],
  ["AccountNotExecutable", "instruction expected an executable account"],
  ["AccountBorrowFailed", "instruction tries to borrow reference for an account which is already borrowed"],
  ["AccountBorrowOutstanding", "instruction left account with an outstanding borrowed reference"],
  ["DuplicateAccountOutOfSync", "instruction modifications of multiply-passed account differ"],
  ["InvalidError", "program returned invalid error code"],
  ["ExecutableDataModified", "instruction changed executable accounts data"],
  ["ExecutableLamportChange", "instruction changed the balance of an executable account"],
  ["ExecutableAccountNotRentExempt", "executable accounts must be rent exempt"],
  ["UnsupportedProgramId", "Unsupported program id"],
  ["CallDepth", "Cross-program invocation call depth too deep"],
  ["MissingAccount", "An account required by the instruction is missing"],
  ["ReentrancyNotAllowed", "Cross-program invocation reentrancy not allowed for this instruction"],
  ["MaxSeedLengthExceeded", "Length of the seed is too long for address generation"],
  ["InvalidSeeds", "Provided seeds do not result in a valid address"],
  ["InvalidRealloc", "Failed to reallocate account data"],
  ["ComputationalBudgetExceeded", "Computational budget exceeded"],
  ["PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account"],
  ["ProgramEnvironmentSetupFailure", "Failed to create program execution environment"],
  ["ProgramFailedToComplete", "Program failed to complete"],
  ["ProgramFailedToCompile", "Program failed to compile"],
  ["Immutable", "Account is immutable"],
  ["IncorrectAuthority", "Incorrect authority provided"],
  ["AccountNotRentExempt", "An account does not have enough lamports to be rent-exempt"],
  ["InvalidAccountOwner", "Invalid account owner"],
  ["ArithmeticOverflow", "Program arithmetic overflowed"],
  ["UnsupportedSysvar", "Unsupported sysvar"],
  ["IllegalOwner", "Provided owner is not allowed"],
  ["MaxAccountsDataAllocationsExceeded", "Accounts data allocations exceeded the maximum allowed per transaction"],
  ["MaxAccountsExceeded", "Max accounts exceeded"],
  ["MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded"],
  ["BuiltinProgramsMustConsumeComputeUnits", "Builtin programs must consume compute units"],
  ["BorshIoError", "Failed to serialize or deserialize account data"],
];

const TX_DISPLAY = new Map(TRANSACTION_ERRORS);
const IX_DISPLAY = new Map(INSTRUCTION_ERRORS);

function instructionErrorJson(err: unknown): InstructionErrorJson {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err]?.[0] ?? "InvalidError";
  if (err instanceof InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof InstructionErrorBorshIo) return { BorshIoError: err.msg };
  return "InvalidError";
}

/** LiteSVM's `FailedTransactionMetadata.err()` value → mainnet JSON. */
export function fromLiteSvmError(err: unknown): TransactionErrorJson {
  if (typeof err === "number") return TRANSACTION_ERRORS[err]?.[0] ?? "SanitizeFailure";
  if (err instanceof TransactionErrorInstructionError)
    return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) {
    return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  }
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  throw new Error(`unknown LiteSVM error value: ${String(err)}`);
}

export function displayInstructionError(err: InstructionErrorJson): string {
  if (typeof err === "string") return IX_DISPLAY.get(err) ?? err;
  if ("Custom" in err) return `custom program error: 0x${err.Custom.toString(16)}`;
  return `Failed to serialize or deserialize account data: ${err.BorshIoError}`;
}

/** agave's `impl Display for TransactionError`. */
export function displayTransactionError(err: TransactionErrorJson): string {
  if (typeof err === "string") return TX_DISPLAY.get(err) ?? err;
  if ("InstructionError" in err) {
    const [index, ixErr] = err.InstructionError;
    return `Error processing Instruction ${index}: ${displayInstructionError(ixErr)}`;
  }
  if ("DuplicateInstruction" in err) {
    return `Transaction contains a duplicate instruction (${err.DuplicateInstruction}) that is not allowed`;
  }
  if ("InsufficientFundsForRent" in err) {
    return `Transaction results in an account (${err.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
  }
  return `Execution of the program referenced by account at index ${err.ProgramExecutionTemporarilyRestricted.account_index} is temporarily restricted.`;
}
