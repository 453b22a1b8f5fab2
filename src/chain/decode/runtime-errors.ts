// The runtime's error vocabulary: every InstructionError and TransactionError variant with the
// Display text validators print (in `Program X failed: <text>` log lines and in preflight messages
// `Transaction simulation failed: <text>`). Lets the decoder go from text back to the variant when
// only text is available (simulation logs, client error strings).
// Source: anza-xyz/solana-sdk `instruction-error/src/lib.rs` and `transaction-error/src/lib.rs`
// (Display impls), read at 0aaf1c36 / 11e3490d.

/** InstructionError unit variants → Display text (Custom and BorshIoError handled separately). */
export const INSTRUCTION_ERROR_DISPLAY: Readonly<Record<string, string>> = {
  GenericError: "generic instruction error",
  InvalidArgument: "invalid program argument",
  InvalidInstructionData: "invalid instruction data",
  InvalidAccountData: "invalid account data for instruction",
  AccountDataTooSmall: "account data too small for instruction",
  InsufficientFunds: "insufficient funds for instruction",
  IncorrectProgramId: "incorrect program id for instruction",
  MissingRequiredSignature: "missing required signature for instruction",
  AccountAlreadyInitialized: "instruction requires an uninitialized account",
  UninitializedAccount: "instruction requires an initialized account",
  UnbalancedInstruction: "sum of account balances before and after instruction do not match",
  ModifiedProgramId: "instruction illegally modified the program id of an account",
  ExternalAccountLamportSpend: "instruction spent from the balance of an account it does not own",
  ExternalAccountDataModified: "instruction modified data of an account it does not own",
  ReadonlyLamportChange: "instruction changed the balance of a read-only account",
  ReadonlyDataModified: "instruction modified data of a read-only account",
  DuplicateAccountIndex: "instruction contains duplicate accounts",
  ExecutableModified: "instruction changed executable bit of an account",
  RentEpochModified: "instruction modified rent epoch of an account",
  NotEnoughAccountKeys: "insufficient account keys for instruction",
  AccountDataSizeChanged: "program other than the account's owner changed the size of the account data",
  AccountNotExecutable: "instruction expected an executable account",
  AccountBorrowFailed: "instruction tries to borrow reference for an account which is already borrowed",
  AccountBorrowOutstanding: "instruction left account with an outstanding borrowed reference",
  DuplicateAccountOutOfSync: "instruction modifications of multiply-passed account differ",
  InvalidError: "program returned invalid error code",
  ExecutableDataModified: "instruction changed executable accounts data",
  ExecutableLamportChange: "instruction changed the balance of an executable account",
  ExecutableAccountNotRentExempt: "executable accounts must be rent exempt",
  UnsupportedProgramId: "Unsupported program id",
  CallDepth: "Cross-program invocation call depth too deep",
  MissingAccount: "An account required by the instruction is missing",
  ReentrancyNotAllowed: "Cross-program invocation reentrancy not allowed for this instruction",
  MaxSeedLengthExceeded: "Length of the seed is too long for address generation",
  InvalidSeeds: "Provided seeds do not result in a valid address",
  InvalidRealloc: "Failed to reallocate account data",
  ComputationalBudgetExceeded: "Computational budget exceeded",
  PrivilegeEscalation: "Cross-program invocation with unauthorized signer or writable account",
  ProgramEnvironmentSetupFailure: "Failed to create program execution environment",
  ProgramFailedToComplete: "Program failed to complete",
  ProgramFailedToCompile: "Program failed to compile",
  Immutable: "Account is immutable",
  IncorrectAuthority: "Incorrect authority provided",
  BorshIoError: "Failed to serialize or deserialize account data",
  AccountNotRentExempt: "An account does not have enough lamports to be rent-exempt",
  InvalidAccountOwner: "Invalid account owner",
  ArithmeticOverflow: "Program arithmetic overflowed",
  UnsupportedSysvar: "Unsupported sysvar",
  IllegalOwner: "Provided owner is not allowed",
  MaxAccountsDataAllocationsExceeded: "Accounts data allocations exceeded the maximum allowed per transaction",
  MaxAccountsExceeded: "Max accounts exceeded",
  MaxInstructionTraceLengthExceeded: "Max instruction trace length exceeded",
  BuiltinProgramsMustConsumeComputeUnits: "Builtin programs must consume compute units",
  BailOut: "Block production bailed out",
};

/** TransactionError variants → Display text; `{n}` marks the variant's number (index or account). */
export const TRANSACTION_ERROR_DISPLAY: Readonly<Record<string, string>> = {
  AccountInUse: "Account in use",
  AccountLoadedTwice: "Account loaded twice",
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
  InsufficientFundsForFee: "Insufficient funds for fee",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
  AlreadyProcessed: "This transaction has already been processed",
  BlockhashNotFound: "Blockhash not found",
  InstructionError: "Error processing Instruction {n}",
  CallChainTooDeep: "Loader call chain is too deep",
  MissingSignatureForFee: "Transaction requires a fee but has no signature present",
  InvalidAccountIndex: "Transaction contains an invalid account reference",
  SignatureFailure: "Transaction did not pass signature verification",
  InvalidProgramForExecution: "This program may not be used for executing instructions",
  SanitizeFailure: "Transaction failed to sanitize accounts offsets correctly",
  ClusterMaintenance: "Transactions are currently disabled due to cluster maintenance",
  AccountBorrowOutstanding: "Transaction processing left an account with an outstanding borrowed reference",
  WouldExceedMaxBlockCostLimit: "Transaction would exceed max Block Cost Limit",
  UnsupportedVersion: "Transaction version is unsupported",
  InvalidWritableAccount: "Transaction loads a writable account that cannot be written",
  WouldExceedMaxAccountCostLimit: "Transaction would exceed max account limit within the block",
  WouldExceedAccountDataBlockLimit: "Transaction would exceed account data limit within the block",
  TooManyAccountLocks: "Transaction locked too many accounts",
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableOwner: "Transaction loads an address table account with an invalid owner",
  InvalidAddressLookupTableData: "Transaction loads an address table account with invalid data",
  InvalidAddressLookupTableIndex: "Transaction address table lookup uses an invalid index",
  InvalidRentPayingAccount: "Transaction leaves an account with a lower balance than rent-exempt minimum",
  WouldExceedMaxVoteCostLimit: "Transaction would exceed max Vote Cost Limit",
  WouldExceedAccountDataTotalLimit: "Transaction would exceed total account data limit",
  DuplicateInstruction: "Transaction contains a duplicate instruction ({n}) that is not allowed",
  InsufficientFundsForRent: "Transaction results in an account ({n}) with insufficient funds for rent",
  MaxLoadedAccountsDataSizeExceeded: "Transaction exceeded max loaded accounts data size cap",
  InvalidLoadedAccountsDataSizeLimit: "LoadedAccountsDataSizeLimit set for transaction must be greater than 0.",
  ResanitizationNeeded: "ResanitizationNeeded",
  ProgramExecutionTemporarilyRestricted:
    "Execution of the program referenced by account at index {n} is temporarily restricted.",
  UnbalancedTransaction: "Sum of account balances before and after transaction do not match",
  ProgramCacheHitMaxLimit: "Program cache hit max limit",
  CommitCancelled: "CommitCancelled",
};

/** Log text of a program that ran out of compute (bpf_loader; not an InstructionError Display). */
export const CU_METER_EXCEEDED_TEXT = "exceeded CUs meter at BPF instruction";

const CUSTOM_ERROR_PREFIX = "custom program error: ";
const HEX_NUMBER = /^0x([0-9a-fA-F]+)/;
const instructionVariantByDisplay = new Map(
  Object.entries(INSTRUCTION_ERROR_DISPLAY).map(([variant, text]) => [text.toLowerCase(), variant]),
);

/** `custom program error: 0x1771` → 6001, else null. */
export function parseCustomErrorText(text: string): number | null {
  const at = text.indexOf(CUSTOM_ERROR_PREFIX);
  if (at < 0) return null;
  const match = HEX_NUMBER.exec(text.slice(at + CUSTOM_ERROR_PREFIX.length));
  return match ? parseInt(match[1], 16) : null;
}

/**
 * InstructionError variant whose Display is `text` (the part after `failed: `), or null. Older
 * validators printed `BorshIoError(msg)` as "<display>: <msg>", so that one matches by prefix.
 */
export function instructionVariantFromDisplay(text: string): string | null {
  const exact = instructionVariantByDisplay.get(text.trim().toLowerCase());
  if (exact) return exact;
  if (text.startsWith(INSTRUCTION_ERROR_DISPLAY.BorshIoError)) return "BorshIoError";
  return null;
}

/** Display text of a TransactionError variant with its number filled in. */
export function transactionErrorDisplay(variant: string, n: number | null): string | null {
  const template = TRANSACTION_ERROR_DISPLAY[variant];
  if (template === undefined) return null;
  return n === null ? template.replace(" ({n})", "").replace(" {n}", "") : template.replace("{n}", String(n));
}

export const isTransactionErrorVariant = (name: string) => Object.hasOwn(TRANSACTION_ERROR_DISPLAY, name);
export const isInstructionErrorVariant = (name: string) =>
  name === "Custom" || Object.hasOwn(INSTRUCTION_ERROR_DISPLAY, name);

/**
 * Where a TransactionError stops a transaction, and so whether the chain shows it (docs/solana.md "What the chain can
 * show"): `execution` and `load` failures are committed to a block and charged the fee (a durable nonce advances too);
 * `before_load` ones are never committed, no fee, and only a preflight or simulation shows them. Since SIMD-0191
 * (feature PaymEPK2oqwT9TXAVfadjztH2H6KfLEB9Hhd5Q5frvP, active on every cluster) a top-level program account that is
 * missing or not executable, or loaded account data over the requested limit, is a `load` failure: committed, charged,
 * nothing executed. Null: a variant not placed here.
 */
export type TransactionErrorStage = "execution" | "load" | "before_load";

const STAGES: Readonly<Record<string, TransactionErrorStage>> = {
  InstructionError: "execution",
  InsufficientFundsForRent: "execution",
  InvalidRentPayingAccount: "execution",
  UnbalancedTransaction: "execution",
  ProgramAccountNotFound: "load",
  InvalidProgramForExecution: "load",
  MaxLoadedAccountsDataSizeExceeded: "load",
  // The fee payer's checks, the blockhash's age, the status cache, sanitizing, locks and block limits.
  BlockhashNotFound: "before_load",
  AlreadyProcessed: "before_load",
  AccountNotFound: "before_load",
  InsufficientFundsForFee: "before_load",
  InvalidAccountForFee: "before_load",
  MissingSignatureForFee: "before_load",
  SignatureFailure: "before_load",
  SanitizeFailure: "before_load",
  InvalidAccountIndex: "before_load",
  UnsupportedVersion: "before_load",
  AccountInUse: "before_load",
  AccountLoadedTwice: "before_load",
  TooManyAccountLocks: "before_load",
  AddressLookupTableNotFound: "before_load",
  InvalidAddressLookupTableOwner: "before_load",
  InvalidAddressLookupTableData: "before_load",
  InvalidAddressLookupTableIndex: "before_load",
  WouldExceedMaxBlockCostLimit: "before_load",
  WouldExceedMaxAccountCostLimit: "before_load",
  WouldExceedAccountDataBlockLimit: "before_load",
  WouldExceedMaxVoteCostLimit: "before_load",
  WouldExceedAccountDataTotalLimit: "before_load",
  ClusterMaintenance: "before_load",
};

export const transactionErrorStage = (variant: string): TransactionErrorStage | null => STAGES[variant] ?? null;

/** Whether a TransactionError variant is committed to a block and charged its fee (null: not known here). */
export function committedWithFee(variant: string): boolean | null {
  const stage = transactionErrorStage(variant);
  return stage === null ? null : stage !== "before_load";
}
