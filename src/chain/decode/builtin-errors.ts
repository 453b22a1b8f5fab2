// Names and messages of custom error codes raised by programs the decoder knows without an IDL:
// System, SPL Token, Token-2022, Associated Token Account, Compute Budget, Vote, Stake, and the codes the Anchor
// framework itself raises inside any Anchor program (100–5000). A custom code means nothing without
// its program (System 0x1 ≠ Token 0x1 ≠ Raydium 0x1), so every look-up takes the program id.

import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  STAKE_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  VOTE_PROGRAM,
} from "./program-ids";

export interface KnownError {
  name: string;
  message: string;
}

type ErrorTable = ReadonlyMap<number, KnownError>;

/** Builds a table from [name, message] pairs numbered from `first` (Rust enum discriminants). */
function sequential(first: number, entries: readonly (readonly [string, string])[]): ErrorTable {
  return new Map(entries.map(([name, message], i) => [first + i, { name, message }]));
}

function merged(...tables: ErrorTable[]): ErrorTable {
  return new Map(tables.flatMap((t) => [...t]));
}

// System program: solana-system-interface `src/error.rs` (SystemError, FromPrimitive from 0);
// messages as in the generated @solana-program/system client.
export const SYSTEM_ERRORS: ErrorTable = sequential(0, [
  ["AccountAlreadyInUse", "an account with the same address already exists"],
  ["ResultWithNegativeLamports", "account does not have enough SOL to perform the operation"],
  ["InvalidProgramId", "cannot assign account to this program id"],
  ["InvalidAccountDataLength", "cannot allocate account data of this length"],
  ["MaxSeedLengthExceeded", "length of requested seed is too long"],
  ["AddressWithSeedMismatch", "provided address does not match addressed derived from seed"],
  ["NonceNoRecentBlockhashes", "advancing stored nonce requires a populated RecentBlockhashes sysvar"],
  ["NonceBlockhashNotExpired", "stored nonce is still in recent_blockhashes"],
  ["NonceUnexpectedBlockhashValue", "specified nonce does not match stored nonce"],
]);

// SPL Token: solana-program-library `token/program/src/error.rs` (TokenError, 0..=19).
const TOKEN_BASE_ERRORS: readonly (readonly [string, string])[] = [
  ["NotRentExempt", "Lamport balance below rent-exempt threshold"],
  ["InsufficientFunds", "Insufficient funds"],
  ["InvalidMint", "Invalid Mint"],
  ["MintMismatch", "Account not associated with this Mint"],
  ["OwnerMismatch", "Owner does not match"],
  ["FixedSupply", "Fixed supply"],
  ["AlreadyInUse", "Already in use"],
  ["InvalidNumberOfProvidedSigners", "Invalid number of provided signers"],
  ["InvalidNumberOfRequiredSigners", "Invalid number of required signers"],
  ["UninitializedState", "State is uninitialized"],
  ["NativeNotSupported", "Instruction does not support native tokens"],
  ["NonNativeHasBalance", "Non-native account can only be closed if its balance is zero"],
  ["InvalidInstruction", "Invalid instruction"],
  ["InvalidState", "State is invalid for requested operation"],
  ["Overflow", "Operation overflowed"],
  ["AuthorityTypeNotSupported", "Account does not support specified authority type"],
  ["MintCannotFreeze", "This token mint cannot freeze accounts"],
  ["AccountFrozen", "Account is frozen"],
  ["MintDecimalsMismatch", "The provided decimals value different from the Mint decimals"],
  ["NonNativeNotSupported", "Instruction does not support non-native tokens"],
];
export const TOKEN_ERRORS: ErrorTable = sequential(0, TOKEN_BASE_ERRORS);

// Token-2022: solana-program/token-2022 `program/src/error.rs` (TokenError, 0..=68; 0..=19 shared
// with SPL Token).
export const TOKEN_2022_ERRORS: ErrorTable = merged(
  TOKEN_ERRORS,
  sequential(20, [
    ["ExtensionTypeMismatch", "Extension type does not match already existing extensions"],
    ["ExtensionBaseMismatch", "Extension does not match the base type provided"],
    ["ExtensionAlreadyInitialized", "Extension already initialized on this account"],
    ["ConfidentialTransferAccountHasBalance", "An account can only be closed if its confidential balance is zero"],
    ["ConfidentialTransferAccountNotApproved", "Account not approved for confidential transfers"],
    ["ConfidentialTransferDepositsAndTransfersDisabled", "Account not accepting deposits or transfers"],
    ["ConfidentialTransferElGamalPubkeyMismatch", "ElGamal public key mismatch"],
    ["ConfidentialTransferBalanceMismatch", "Balance mismatch"],
    ["MintHasSupply", "Mint has non-zero supply. Burn all tokens before closing the mint"],
    ["NoAuthorityExists", "No authority exists to perform the desired operation"],
    ["TransferFeeExceedsMaximum", "Transfer fee exceeds maximum of 10,000 basis points"],
    [
      "MintRequiredForTransfer",
      "Mint required for this account to transfer tokens, use `transfer_checked` or `transfer_checked_with_fee`",
    ],
    ["FeeMismatch", "Calculated fee does not match expected fee"],
    [
      "FeeParametersMismatch",
      "Fee parameters associated with zero-knowledge proofs do not match fee parameters in mint",
    ],
    ["ImmutableOwner", "The owner authority cannot be changed"],
    [
      "AccountHasWithheldTransferFees",
      "An account can only be closed if its withheld fee balance is zero, harvest fees to the mint and try again",
    ],
    ["NoMemo", "No memo in previous instruction; required for recipient to receive a transfer"],
    ["NonTransferable", "Transfer is disabled for this mint"],
    [
      "NonTransferableNeedsImmutableOwnership",
      "Non-transferable tokens can't be minted to an account without immutable ownership",
    ],
    [
      "MaximumPendingBalanceCreditCounterExceeded",
      "The total number of `Deposit` and `Transfer` instructions to an account cannot exceed the associated `maximum_pending_balance_credit_counter`",
    ],
    ["MaximumDepositAmountExceeded", "Deposit amount exceeds maximum limit"],
    ["CpiGuardSettingsLocked", "CPI Guard cannot be enabled or disabled in CPI"],
    [
      "CpiGuardTransferBlocked",
      "CPI Guard is enabled, and a program attempted to transfer user funds via CPI without using a delegate",
    ],
    [
      "CpiGuardBurnBlocked",
      "CPI Guard is enabled, and a program attempted to burn user funds via CPI without using a delegate",
    ],
    [
      "CpiGuardCloseAccountBlocked",
      "CPI Guard is enabled, and a program attempted to close an account via CPI without returning lamports to owner",
    ],
    ["CpiGuardApproveBlocked", "CPI Guard is enabled, and a program attempted to approve a delegate via CPI"],
    [
      "CpiGuardSetAuthorityBlocked",
      "CPI Guard is enabled, and a program attempted to add or replace an authority via CPI",
    ],
    ["CpiGuardOwnerChangeBlocked", "Account ownership cannot be changed while CPI Guard is enabled"],
    ["ExtensionNotFound", "Extension not found in account data"],
    ["NonConfidentialTransfersDisabled", "Non-confidential transfers disabled"],
    [
      "ConfidentialTransferFeeAccountHasWithheldFee",
      "An account can only be closed if the confidential withheld fee is zero",
    ],
    ["InvalidExtensionCombination", "A mint or an account is initialized to an invalid combination of extensions"],
    ["InvalidLengthForAlloc", "Extension allocation with overwrite must use the same length"],
    ["AccountDecryption", "Failed to decrypt a confidential transfer account"],
    ["ProofGeneration", "Failed to generate proof"],
    ["InvalidProofInstructionOffset", "An invalid proof instruction offset was provided"],
    ["HarvestToMintDisabled", "Harvest of withheld tokens to mint is disabled"],
    ["SplitProofContextStateAccountsNotSupported", "Split proof context state accounts not supported for instruction"],
    ["NotEnoughProofContextStateAccounts", "Not enough proof context state accounts provided"],
    ["MalformedCiphertext", "Ciphertext is malformed"],
    ["CiphertextArithmeticFailed", "Ciphertext arithmetic failed"],
    ["PedersenCommitmentMismatch", "Pedersen commitment mismatch"],
    ["RangeProofLengthMismatch", "Range proof length mismatch"],
    ["IllegalBitLength", "Illegal transfer amount bit length"],
    ["FeeCalculation", "Fee calculation failed"],
    ["IllegalMintBurnConversion", "Withdraw / Deposit not allowed for confidential-mint-burn"],
    ["InvalidScale", "Invalid scale for scaled ui amount"],
    ["MintPaused", "Transferring, minting, and burning is paused on this mint"],
    ["PendingBalanceNonZero", "Key rotation attempted while pending balance is not zero"],
  ]),
);

// Associated Token Account: solana-program-library `associated-token-account/program/src/error.rs`.
export const ASSOCIATED_TOKEN_ERRORS: ErrorTable = sequential(0, [
  ["InvalidOwner", "Associated token account owner does not match address derivation"],
]);

// Compute Budget: the program defines no custom codes; it fails with InstructionError variants
// (InvalidInstructionData) or the transaction-level DuplicateInstruction, which the decoder names
// from the runtime's own vocabulary (runtime-errors.ts).
export const COMPUTE_BUDGET_ERRORS: ErrorTable = new Map();

// Anchor framework codes, raised by the framework inside any Anchor program: coral-xyz/anchor
// `lang/src/error.rs` (ErrorCode, v0.31) and `ts/packages/anchor-errors/src/index.ts`.
export const ANCHOR_FRAMEWORK_ERRORS: ErrorTable = merged(
  sequential(100, [
    ["InstructionMissing", "Instruction discriminator not provided"],
    ["InstructionFallbackNotFound", "Fallback functions are not supported"],
    ["InstructionDidNotDeserialize", "The program could not deserialize the given instruction"],
    ["InstructionDidNotSerialize", "The program could not serialize the given instruction"],
  ]),
  sequential(1000, [
    ["IdlInstructionStub", "The program was compiled without idl instructions"],
    ["IdlInstructionInvalidProgram", "Invalid program given to the IDL instruction"],
    ["IdlAccountNotEmpty", "IDL account must be empty in order to resize, try closing first"],
  ]),
  sequential(1500, [["EventInstructionStub", "The program was compiled without `event-cpi` feature"]]),
  sequential(2000, [
    ["ConstraintMut", "A mut constraint was violated"],
    ["ConstraintHasOne", "A has one constraint was violated"],
    ["ConstraintSigner", "A signer constraint was violated"],
    ["ConstraintRaw", "A raw constraint was violated"],
    ["ConstraintOwner", "An owner constraint was violated"],
    ["ConstraintRentExempt", "A rent exemption constraint was violated"],
    ["ConstraintSeeds", "A seeds constraint was violated"],
    ["ConstraintExecutable", "An executable constraint was violated"],
    ["ConstraintState", "Deprecated Error, feel free to replace with something else"],
    ["ConstraintAssociated", "An associated constraint was violated"],
    ["ConstraintAssociatedInit", "An associated init constraint was violated"],
    ["ConstraintClose", "A close constraint was violated"],
    ["ConstraintAddress", "An address constraint was violated"],
    ["ConstraintZero", "Expected zero account discriminant"],
    ["ConstraintTokenMint", "A token mint constraint was violated"],
    ["ConstraintTokenOwner", "A token owner constraint was violated"],
    ["ConstraintMintMintAuthority", "A mint mint authority constraint was violated"],
    ["ConstraintMintFreezeAuthority", "A mint freeze authority constraint was violated"],
    ["ConstraintMintDecimals", "A mint decimals constraint was violated"],
    ["ConstraintSpace", "A space constraint was violated"],
    ["ConstraintAccountIsNone", "A required account for the constraint is None"],
    ["ConstraintTokenTokenProgram", "A token account token program constraint was violated"],
    ["ConstraintMintTokenProgram", "A mint token program constraint was violated"],
    ["ConstraintAssociatedTokenTokenProgram", "An associated token account token program constraint was violated"],
    ["ConstraintMintGroupPointerExtension", "A group pointer extension constraint was violated"],
    ["ConstraintMintGroupPointerExtensionAuthority", "A group pointer extension authority constraint was violated"],
    [
      "ConstraintMintGroupPointerExtensionGroupAddress",
      "A group pointer extension group address constraint was violated",
    ],
    ["ConstraintMintGroupMemberPointerExtension", "A group member pointer extension constraint was violated"],
    [
      "ConstraintMintGroupMemberPointerExtensionAuthority",
      "A group member pointer extension authority constraint was violated",
    ],
    [
      "ConstraintMintGroupMemberPointerExtensionMemberAddress",
      "A group member pointer extension group address constraint was violated",
    ],
    ["ConstraintMintMetadataPointerExtension", "A metadata pointer extension constraint was violated"],
    [
      "ConstraintMintMetadataPointerExtensionAuthority",
      "A metadata pointer extension authority constraint was violated",
    ],
    [
      "ConstraintMintMetadataPointerExtensionMetadataAddress",
      "A metadata pointer extension metadata address constraint was violated",
    ],
    ["ConstraintMintCloseAuthorityExtension", "A close authority constraint was violated"],
    ["ConstraintMintCloseAuthorityExtensionAuthority", "A close authority extension authority constraint was violated"],
    ["ConstraintMintPermanentDelegateExtension", "A permanent delegate extension constraint was violated"],
    [
      "ConstraintMintPermanentDelegateExtensionDelegate",
      "A permanent delegate extension delegate constraint was violated",
    ],
    ["ConstraintMintTransferHookExtension", "A transfer hook extension constraint was violated"],
    ["ConstraintMintTransferHookExtensionAuthority", "A transfer hook extension authority constraint was violated"],
    [
      "ConstraintMintTransferHookExtensionProgramId",
      "A transfer hook extension transfer hook program id constraint was violated",
    ],
  ]),
  sequential(2500, [
    ["RequireViolated", "A require expression was violated"],
    ["RequireEqViolated", "A require_eq expression was violated"],
    ["RequireKeysEqViolated", "A require_keys_eq expression was violated"],
    ["RequireNeqViolated", "A require_neq expression was violated"],
    ["RequireKeysNeqViolated", "A require_keys_neq expression was violated"],
    ["RequireGtViolated", "A require_gt expression was violated"],
    ["RequireGteViolated", "A require_gte expression was violated"],
  ]),
  sequential(3000, [
    ["AccountDiscriminatorAlreadySet", "The account discriminator was already set on this account"],
    ["AccountDiscriminatorNotFound", "No discriminator was found on the account"],
    ["AccountDiscriminatorMismatch", "Account discriminator did not match what was expected"],
    ["AccountDidNotDeserialize", "Failed to deserialize the account"],
    ["AccountDidNotSerialize", "Failed to serialize the account"],
    ["AccountNotEnoughKeys", "Not enough account keys given to the instruction"],
    ["AccountNotMutable", "The given account is not mutable"],
    ["AccountOwnedByWrongProgram", "The given account is owned by a different program than expected"],
    ["InvalidProgramId", "Program ID was not as expected"],
    ["InvalidProgramExecutable", "Program account is not executable"],
    ["AccountNotSigner", "The given account did not sign"],
    ["AccountNotSystemOwned", "The given account is not owned by the system program"],
    ["AccountNotInitialized", "The program expected this account to be already initialized"],
    ["AccountNotProgramData", "The given account is not a program data account"],
    ["AccountNotAssociatedTokenAccount", "The given account is not the associated token account"],
    ["AccountSysvarMismatch", "The given public key does not match the required sysvar"],
    ["AccountReallocExceedsLimit", "The account reallocation exceeds the MAX_PERMITTED_DATA_INCREASE limit"],
    ["AccountDuplicateReallocs", "The account was duplicated for more than one reallocation"],
  ]),
  sequential(4000, [["StateInvalidAddress", "The given state account does not have the correct address"]]),
  sequential(4100, [
    ["DeclaredProgramIdMismatch", "The declared program id does not match the actual program id"],
    ["TryingToInitPayerAsProgramAccount", "You cannot/should not initialize the payer account as a program account"],
    ["InvalidNumericConversion", "Error during numeric conversion"],
  ]),
  sequential(5000, [["Deprecated", "The API being used is deprecated and should no longer be used"]]),
);

// Vote program: solana-vote-interface `src/error.rs` (VoteError, FromPrimitive from 0), its Display texts.
export const VOTE_ERRORS: ErrorTable = sequential(0, [
  ["VoteTooOld", "vote already recorded or not in slot hashes history"],
  ["SlotsMismatch", "vote slots do not match bank history"],
  ["SlotHashMismatch", "vote hash does not match bank hash"],
  ["EmptySlots", "vote has no slots, invalid"],
  ["TimestampTooOld", "vote timestamp not recent"],
  ["TooSoonToReauthorize", "authorized voter has already been changed this epoch"],
  ["LockoutConflict", "Old state had vote which should not have been popped off by vote in new state"],
  ["NewVoteStateLockoutMismatch", "Proposed state had earlier slot which should have been popped off by later vote"],
  ["SlotsNotOrdered", "Vote slots are not ordered"],
  ["ConfirmationsNotOrdered", "Confirmations are not ordered"],
  ["ZeroConfirmations", "Zero confirmations"],
  ["ConfirmationTooLarge", "Confirmation exceeds limit"],
  ["RootRollBack", "Root rolled back"],
  ["ConfirmationRollBack", "Confirmations for same vote were smaller in new proposed state"],
  ["SlotSmallerThanRoot", "New state contained a vote slot smaller than the root"],
  ["TooManyVotes", "New state contained too many votes"],
  ["VotesTooOldAllFiltered", "every slot in the vote was older than the SlotHashes history"],
  ["RootOnDifferentFork", "Proposed root is not in slot hashes"],
  ["ActiveVoteAccountClose", "Cannot close vote account unless it stopped voting at least one full epoch ago"],
  ["CommissionUpdateTooLate", "Cannot update commission at this point in the epoch"],
  ["AssertionFailed", "Assertion failed"],
]);

// Stake program: solana-stake-interface `src/error.rs` (StakeError, from 0), messages as in the
// generated stake clients (the Core BPF stake program keeps the same codes).
export const STAKE_ERRORS: ErrorTable = sequential(0, [
  ["NoCreditsToRedeem", "Not enough credits to redeem"],
  ["LockupInForce", "Lockup has not yet expired"],
  ["AlreadyDeactivated", "Stake already deactivated"],
  ["TooSoonToRedelegate", "One re-delegation permitted per epoch"],
  ["InsufficientStake", "Split amount is more than is staked"],
  ["MergeTransientStake", "Stake account with transient stake cannot be merged"],
  ["MergeMismatch", "Stake account merge failed due to different authority, lockups or state"],
  ["CustodianMissing", "Custodian address not present"],
  ["CustodianSignatureMissing", "Custodian signature not present"],
  ["InsufficientReferenceVotes", "Insufficient voting activity in the reference vote account"],
  ["VoteAddressMismatch", "Stake account is not delegated to the provided vote account"],
  [
    "MinimumDelinquentEpochsForDeactivationNotMet",
    "Stake account has not been delinquent for the minimum epochs required for deactivation",
  ],
  ["InsufficientDelegation", "Delegation amount is less than the minimum"],
  ["RedelegateTransientOrInactiveStake", "Stake account with transient or inactive stake cannot be redelegated"],
  ["RedelegateToSameVoteAccount", "Stake redelegation to the same vote account is not permitted"],
  [
    "RedelegatedStakeMustFullyActivateBeforeDeactivationIsPermitted",
    "Redelegated stake must be fully activated before deactivation",
  ],
  ["EpochRewardsActive", "Stake action is not permitted while the epoch rewards period is active"],
]);

const BUILTIN_ERROR_TABLES: ReadonlyMap<string, ErrorTable> = new Map([
  [SYSTEM_PROGRAM, SYSTEM_ERRORS],
  [TOKEN_PROGRAM, TOKEN_ERRORS],
  [TOKEN_2022_PROGRAM, TOKEN_2022_ERRORS],
  [ASSOCIATED_TOKEN_PROGRAM, ASSOCIATED_TOKEN_ERRORS],
  [COMPUTE_BUDGET_PROGRAM, COMPUTE_BUDGET_ERRORS],
  [VOTE_PROGRAM, VOTE_ERRORS],
  [STAKE_PROGRAM, STAKE_ERRORS],
]);

/** True for the programs whose custom codes come from a table here rather than an IDL. */
export const hasBuiltinErrorTable = (programId: string) => BUILTIN_ERROR_TABLES.has(programId);

/** The custom error `code` of a known native/SPL program, if it has that code. */
export function builtinProgramError(programId: string, code: number): KnownError | undefined {
  return BUILTIN_ERROR_TABLES.get(programId)?.get(code);
}

// The transfer-hook interface: solana-labs/solana-program-library `token/transfer-hook-interface/src/error.rs`
// (TransferHookError, `hash_error_code_start = 2_110_272_652`, then one per variant). Any program can be a
// hook, so these name a code only of a program Token-2022 invoked (error-names.ts).
export const TRANSFER_HOOK_ERRORS: ErrorTable = sequential(2_110_272_652, [
  ["IncorrectAccount", "Incorrect account provided"],
  ["MintHasNoMintAuthority", "Mint has no mint authority"],
  ["IncorrectMintAuthority", "Incorrect mint authority has signed the instruction"],
  ["ProgramCalledOutsideOfTransfer", "Program called outside of a token transfer"],
]);

/** An Anchor framework error (100–5000), meaningful only for programs built with Anchor. */
export function anchorFrameworkError(code: number): KnownError | undefined {
  return ANCHOR_FRAMEWORK_ERRORS.get(code);
}
