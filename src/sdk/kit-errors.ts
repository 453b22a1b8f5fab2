// Turns the SolanaError @solana/kit throws for a failed preflight back into the JSON-RPC
// TransactionError it was made from, so the envelope carries the same evidence a web3.js send does.
// kit numbers its errors as base + position in these ordered variant lists (copied from
// @solana/errors 8.x, which keeps them in sync with agave); anything unknown stays null.

const INSTRUCTION_ERRORS =
  "GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync Custom InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority BorshIoError AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits".split(
    " ",
  );
const TRANSACTION_ERRORS =
  "AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit DuplicateInstruction InsufficientFundsForRent MaxLoadedAccountsDataSizeExceeded InvalidLoadedAccountsDataSizeLimit ResanitizationNeeded ProgramExecutionTemporarilyRestricted UnbalancedTransaction".split(
    " ",
  );
const INSTRUCTION_BASE = 4615001;
const TRANSACTION_BASE = 7050001;
/** kit's code for a JSON-RPC preflight failure (-32002). */
export const KIT_PREFLIGHT_FAILURE = -32002;

type Context = Record<string, unknown>;

/** The TransactionError JSON behind a kit error's `cause`, or null. */
export function transactionErrorFromKit(cause: unknown): unknown {
  if (typeof cause !== "object" || cause === null) return null;
  const context = ((cause as { context?: Context }).context ?? {}) as Context;
  const code = Number(context.__code);
  const index = Number(context.index);
  const known = (name: string | undefined) => (typeof context.errorName === "string" ? context.errorName : name);
  // base - 1 is kit's "unknown variant" code, which carries the variant's name.
  const instruction = code - INSTRUCTION_BASE;
  if (instruction >= -1 && instruction < INSTRUCTION_ERRORS.length) {
    const name = known(INSTRUCTION_ERRORS[instruction]);
    if (name === undefined) return null;
    return { InstructionError: [index, name === "Custom" ? { Custom: Number(context.code) } : name] };
  }
  const transaction = code - TRANSACTION_BASE;
  if (transaction >= -1 && transaction < TRANSACTION_ERRORS.length) {
    const name = known(TRANSACTION_ERRORS[transaction]);
    if (name === undefined) return null;
    if (name === "DuplicateInstruction") return { DuplicateInstruction: index };
    if (name === "InsufficientFundsForRent" || name === "ProgramExecutionTemporarilyRestricted")
      return { [name]: { account_index: Number(context.accountIndex) } };
    return name;
  }
  return null;
}
