// Instruction names of the native and SPL programs every transaction touches (System, SPL Token,
// Token-2022, Associated Token Account, Compute Budget), decoded from the instruction's tag bytes, or
// from the `parsed.type` a jsonParsed RPC response carries instead of the raw data. Names are
// UpperCamelCase, matching what those programs log and what the Anchor dispatcher logs, so one
// instruction gets one name whichever evidence named it.

import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from "./program-ids";

// solana-system-interface `src/instruction.rs` (SystemInstruction, u32 LE tag).
const SYSTEM_INSTRUCTIONS = [
  "CreateAccount",
  "Assign",
  "Transfer",
  "CreateAccountWithSeed",
  "AdvanceNonceAccount",
  "WithdrawNonceAccount",
  "InitializeNonceAccount",
  "AuthorizeNonceAccount",
  "Allocate",
  "AllocateWithSeed",
  "AssignWithSeed",
  "TransferWithSeed",
  "UpgradeNonceAccount",
  "CreateAccountAllowPrefund",
];

// SPL Token `token/program/src/instruction.rs` (0..=24) and Token-2022 `program/src/instruction.rs`
// (25..=44 are Token-2022 only), u8 tag.
const TOKEN_INSTRUCTIONS = [
  "InitializeMint",
  "InitializeAccount",
  "InitializeMultisig",
  "Transfer",
  "Approve",
  "Revoke",
  "SetAuthority",
  "MintTo",
  "Burn",
  "CloseAccount",
  "FreezeAccount",
  "ThawAccount",
  "TransferChecked",
  "ApproveChecked",
  "MintToChecked",
  "BurnChecked",
  "InitializeAccount2",
  "SyncNative",
  "InitializeAccount3",
  "InitializeMultisig2",
  "InitializeMint2",
  "GetAccountDataSize",
  "InitializeImmutableOwner",
  "AmountToUiAmount",
  "UiAmountToAmount",
  "InitializeMintCloseAuthority",
  "TransferFeeExtension",
  "ConfidentialTransferExtension",
  "DefaultAccountStateExtension",
  "Reallocate",
  "MemoTransferExtension",
  "CreateNativeMint",
  "InitializeNonTransferableMint",
  "InterestBearingMintExtension",
  "CpiGuardExtension",
  "InitializePermanentDelegate",
  "TransferHookExtension",
  "ConfidentialTransferFeeExtension",
  "WithdrawExcessLamports",
  "MetadataPointerExtension",
  "GroupPointerExtension",
  "GroupMemberPointerExtension",
  "ConfidentialMintBurnExtension",
  "ScaledUiAmountExtension",
  "PausableExtension",
];
const LEGACY_TOKEN_INSTRUCTION_COUNT = 25;

// spl-associated-token-account `program/src/instruction.rs` (empty data = Create).
const ASSOCIATED_TOKEN_INSTRUCTIONS = ["Create", "CreateIdempotent", "RecoverNested"];

// solana-compute-budget-interface (ComputeBudgetInstruction, u8 tag).
const COMPUTE_BUDGET_INSTRUCTIONS = [
  "RequestUnitsDeprecated",
  "RequestHeapFrame",
  "SetComputeUnitLimit",
  "SetComputeUnitPrice",
  "SetLoadedAccountsDataSizeLimit",
];

/**
 * Anchor's `emit_cpi!` self-CPI carries an event, not an instruction of the IDL: its data starts with
 * EVENT_IX_TAG = 0x1d9acb512ea545e4 (the big-endian reading of sha256("anchor:event")[..8]) serialized
 * as a little-endian u64: e4 45 a5 2e 51 cb 9a 1d (anchor `lang/src/event.rs`).
 */
const ANCHOR_EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);
export const ANCHOR_EVENT_CPI_NAME = "AnchorEventCpi";

/** True when `data` is an Anchor event self-CPI (`emit_cpi!`). */
export function isAnchorEventCpi(data: Uint8Array): boolean {
  if (data.length < ANCHOR_EVENT_IX_TAG.length) return false;
  for (let i = 0; i < ANCHOR_EVENT_IX_TAG.length; i++) if (data[i] !== ANCHOR_EVENT_IX_TAG[i]) return false;
  return true;
}

/**
 * The transfer-hook interface's `Execute`, which Token-2022 invokes on a mint's hook program during a
 * transfer: its data starts with sha256("spl-transfer-hook-interface:execute")[..8]
 * (spl-transfer-hook-interface `instruction.rs`), whatever program implements the hook.
 */
const TRANSFER_HOOK_EXECUTE_TAG = Uint8Array.from([105, 37, 101, 197, 75, 251, 102, 26]);
export const TRANSFER_HOOK_EXECUTE_NAME = "Execute";

/** True when `data` is a transfer-hook interface `Execute` (tag, then the u64 amount). */
export function isTransferHookExecute(data: Uint8Array): boolean {
  if (data.length !== TRANSFER_HOOK_EXECUTE_TAG.length + 8) return false;
  for (let i = 0; i < TRANSFER_HOOK_EXECUTE_TAG.length; i++) if (data[i] !== TRANSFER_HOOK_EXECUTE_TAG[i]) return false;
  return true;
}

/** jsonParsed `parsed.type` values whose UpperCamel spelling differs from the instruction name. */
const PARSED_TYPE_ALIASES: Readonly<Record<string, string>> = {
  advanceNonce: "AdvanceNonceAccount",
  withdrawFromNonce: "WithdrawNonceAccount",
  initializeNonce: "InitializeNonceAccount",
  authorizeNonce: "AuthorizeNonceAccount",
  upgradeNonce: "UpgradeNonceAccount",
};

const BUILTIN_NAMED_PROGRAMS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM,
  TOKEN_PROGRAM,
  TOKEN_2022_PROGRAM,
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
]);

/** Names of ATA instructions as the ATA program logs them (`Program log: CreateIdempotent`). */
export const ASSOCIATED_TOKEN_LOGGED_NAMES: ReadonlySet<string> = new Set(ASSOCIATED_TOKEN_INSTRUCTIONS);

export const isBuiltinNamedProgram = (programId: string) => BUILTIN_NAMED_PROGRAMS.has(programId);

/** Instruction name of a known native/SPL program from its data, or null. */
export function builtinInstructionName(programId: string, data: Uint8Array): string | null {
  switch (programId) {
    case SYSTEM_PROGRAM: {
      if (data.length < 4) return null;
      const tag = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24);
      return SYSTEM_INSTRUCTIONS[tag] ?? null;
    }
    case TOKEN_PROGRAM:
      return data.length > 0 && data[0] < LEGACY_TOKEN_INSTRUCTION_COUNT ? TOKEN_INSTRUCTIONS[data[0]] : null;
    case TOKEN_2022_PROGRAM:
      return data.length > 0 ? (TOKEN_INSTRUCTIONS[data[0]] ?? null) : null;
    case ASSOCIATED_TOKEN_PROGRAM:
      return data.length === 0 ? "Create" : (ASSOCIATED_TOKEN_INSTRUCTIONS[data[0]] ?? null);
    case COMPUTE_BUDGET_PROGRAM:
      return data.length > 0 ? (COMPUTE_BUDGET_INSTRUCTIONS[data[0]] ?? null) : null;
    default:
      return null;
  }
}

/** Instruction name from a jsonParsed `parsed.type` (`transferChecked` → `TransferChecked`). */
export function parsedTypeName(parsedType: string): string {
  return PARSED_TYPE_ALIASES[parsedType] ?? parsedType.charAt(0).toUpperCase() + parsedType.slice(1);
}
