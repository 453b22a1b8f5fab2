// Public surface of the failure-story decoder: pure functions from what the chain (or the client)
// recorded about one attempt to a DecodedStory, plus the issue fingerprint. No I/O.
//
// Entry points
// - decodeTransaction(tx, idls, options?): a `getTransaction` response or result, json / jsonParsed /
//   base64 / base58 encoding, legacy or v0 (`meta.loadedAddresses`), `{ meta, transaction|message }`
//   (a `getBlock` entry), or a bare `meta` (then the story comes from the logs alone).
// - decodeSimulation({ err, logs, unitsConsumed?, message?, innerInstructions?, loadedAddresses? }):
//   a simulation result (RPC -32002 `error.data` or `simulateTransaction` value) plus, optionally, the
//   message that was simulated (same shapes as above, or the serialized transaction).
// - decodePreflight({ preflightError, simulationLogs, program }): an envelope whose only evidence is the
//   client's error text and captured logs (raw JSON-RPC body, web3.js SendTransactionError text, a
//   library exception wrapping JSON, ...; see preflight-text.ts).
// - callStack(logs, hints): the frames of an attempt from its stored logs, the failing one marked,
//   named from the logs and the stored story (call-stack.ts), when a route answers.
//
// Decisions
// - Failing frame: the owner of the first `Program X failed:` line, i.e. the innermost failing program;
//   enclosing frames repeat the same error. The failing top-level index is `meta.err.InstructionError[0]`
//   when known (it stays right when logs are truncated or only the last lines were kept); from logs
//   alone it is the count of `invoke [1]` lines, aligned with the message when there is one
//   (instructions that log nothing, e.g. precompiles, are skipped).
// - ixPath: the top-level index, then for each CPI level the 0-based position of the frame among the
//   direct children of its parent, in `invoke [n]` order: "2" = top-level 2, "2.1" = the second
//   instruction invoked (depth 2) by top-level 2, "2.1.0" = the first one invoked (depth 3) by that.
//   Only the top-level index is given when an ancestor's invoke line is missing from the logs, or
//   when the failing frame is not in the logs at all (truncated or absent logs); null when even the
//   top-level index is unknown (logs that start mid-way and no InstructionError to say it).
// - cpiDepth: invoke depth − 1 of the failing frame; null when the failing frame is not in the logs
//   (the story is then about the top-level instruction from `meta.err`, which failed by propagation).
// - instruction (on a failure): the targeted program's instruction (`options.program` / the preflight
//   envelope's `program`; without one, the failing top-level instruction's program): the outermost of
//   its frames among those enclosing the failing frame; where it has none there, the failing top-level
//   instruction's name. failingInstruction: the innermost failing frame's (the top-level one's when
//   the failing frame is not in the logs). Names: see instruction-names.ts (the `Program log: Instruction: X` line
// right after the   frame's invoke line, then an IDL discriminator match on the frame's data — the message for a
//   top-level frame, the matching `meta.innerInstructions` entry for a CPI — then built-in decoders,
//   and "AnchorEventCpi" for Anchor's `emit_cpi!` self-CPI); UpperCamelCase as Anchor logs it, so
//   log- and IDL-derived names group together.
// - errCode/errName/errMessage: `custom program error: 0x…` (or `Custom` in meta.err) → code, named by
//   (failing program, code): AnchorError log line, IDL, built-in tables, Anchor framework codes (see
//   error-names.ts). Non-custom InstructionErrors → errCode null, errName = the variant (from meta.err,
//   else from the `failed:` Display text; a `failed:` text that is no InstructionError Display is a
//   VM/syscall error → ProgramFailedToComplete), errMessage = the `failed:` text. Transaction-level
//   errors → errName = the variant, errMessage = its Display text, ixPath/cpiDepth/errCode null.
// - Compute exhaustion: an `exceeded CUs meter at BPF instruction` line, a ComputationalBudgetExceeded
//   variant, or `consumed N of N` on the failing frame → computeExceeded true, errName and errorKey
//   "ComputationalBudgetExceeded" (meta.err usually says ProgramFailedToComplete).
// - errorKey (value-free, for grouping): `custom:<code>`, `InstructionError:<Variant>`,
//   `ComputationalBudgetExceeded`, `<TransactionErrorVariant>` (e.g. `InsufficientFundsForRent`,
//   `BlockhashNotFound`; no account index), `rpc:<Name>` for preflight failures that are not
//   TransactionErrors (`rpc:BlockheightExceeded`, `rpc:RateLimited`, `rpc:WalletRejected`, ...),
//   `preflight:<normalised text>` for unrecognised preflight texts; null when nothing failed.
// - Success (and transaction-level errors, which no instruction raised): every error field is null
//   (errName/errMessage/errorKey/txError carry the transaction-level error when there is one);
//   topLevelProgram/instruction (and, on success, ixPath with cpiDepth 0) describe the *main*
//   instruction: the first
//   top-level instruction of `options.program` (decodePreflight: its `program`), else the top-level
//   frame that consumed the most CUs, else the first non-ComputeBudget instruction; all null when
//   none can be identified.
// - cuUsed: `meta.computeUnitsConsumed`; for simulations `unitsConsumed`; when absent (2022
//   transactions, simulation logs alone) the sum of the top-level frames' `consumed N of M` lines
//   (null when the logs are truncated, start mid-way or print none); a given figure is reported as given although
// failed simulations under-count it (docs/solana.md "Compute units",
//   sample 13: 21,115 reported vs 142,350 consumed by Jupiter alone): do not use it for headroom.
// - cuRequested: first SetComputeUnitLimit, else 200,000 per non-builtin + 3,000 per builtin top-level
//   instruction, capped at 1,400,000 (builtins: program-ids.ts BUILTIN_PROGRAMS); null without a
//   message (preflight envelopes, bare meta).
// - logTruncated: a `Log truncated` line (10,000-byte log cap); the story then relies on meta.err. If
//   the cut hides the failing CPI, a custom code is looked up under the top-level program that
//   re-reported it (it may have been raised by a program below it).
// - Fingerprint key (fingerprint.ts storyFingerprintKey): errCode when set, else errorKey; the
//   fingerprint groups by the targeted program's `instruction`, never by failingInstruction.

import { IdlRegistry } from "../idl";
import { instructionPrefixOf } from "./instruction-prefix";
import { readPreflightError } from "./preflight-text";
import { normalizeInnerInstructions, normalizeMessage, normalizeTransaction } from "./rpc-shapes";
import type { DecodedStory } from "./story";
import { buildStory } from "./story-builder";

export {
  anchorFrameworkError,
  builtinProgramError,
  type KnownError,
} from "./builtin-errors";
export { type CallFrame, type CallStackHints, callStack } from "./call-stack";
export {
  type DurableNonceUse,
  durableNonceOf,
  NONCE_ACCOUNT_LENGTH,
  type NonceAccountState,
  readNonceAccount,
} from "./durable-nonce";
export { customErrorMessage } from "./error-names";
export {
  FINGERPRINT_VERSION,
  type IssueFingerprintInput,
  issueFingerprint,
  storyFingerprint,
  storyFingerprintKey,
} from "./fingerprint";
export { INSTRUCTION_PREFIX_BYTES, instructionNameFromPrefix, instructionPrefixOf } from "./instruction-prefix";
export { type LogFrame, type LogTrace, parseLogs } from "./logs";
export { normalizeErrorText, type PreflightEvidence, readPreflightError } from "./preflight-text";
export { BUILTIN_PROGRAMS, PROGRAM_NAMES, programName, SYSTEM_PROGRAM } from "./program-ids";
export { committedWithFee, type TransactionErrorStage, transactionErrorStage } from "./runtime-errors";
export { type DecodedStory, DecodedStorySchema, EMPTY_STORY } from "./story";
export {
  type DetailAccount,
  type DetailInstruction,
  type DetailTokenBalance,
  type DetailTopInstruction,
  LAMPORTS_PER_SIGNATURE,
  type TransactionDetails,
  transactionDetails,
} from "./transaction-details";
export { describeTransactionError, type TransactionErrorInfo } from "./tx-error";

export interface DecodeOptions {
  /** The tracked program: its first top-level instruction is the main one when nothing failed. */
  program?: string | null;
  /** The slot the transaction ran in: its programs' errors are named by the IDLs in force then. */
  slot?: number | null;
}

/** The `slot` of a getTransaction result (bare or in its JSON-RPC envelope), when it has one. */
function slotOf(tx: unknown): number | null {
  const value = tx as { slot?: unknown; result?: { slot?: unknown } } | null;
  const slot = value?.slot ?? value?.result?.slot;
  return typeof slot === "number" ? slot : null;
}

export interface SimulationInput {
  err: unknown;
  logs: readonly string[] | null | undefined;
  unitsConsumed?: number | null;
  /** The simulated message or transaction, when the caller has it. */
  message?: unknown;
  innerInstructions?: unknown;
  loadedAddresses?: { writable?: readonly string[]; readonly?: readonly string[] } | null;
}

export interface PreflightInput {
  preflightError: string | null;
  simulationLogs: readonly string[];
  program: string;
}

const NO_IDLS = new IdlRegistry();

/** Decodes a `getTransaction`-like input (see header). Throws TxrayError("bad_request") on other input. */
export function decodeTransaction(tx: unknown, idls: IdlRegistry = NO_IDLS, options: DecodeOptions = {}): DecodedStory {
  return decodeTransactionWithPrefix(tx, idls, options).story;
}

/**
 * decodeTransaction, plus the data prefix of the first top-level instruction of `options.program`
 * and that instruction's index (instruction-prefix.ts), when the message has one.
 */
export function decodeTransactionWithPrefix(
  tx: unknown,
  idls: IdlRegistry = NO_IDLS,
  options: DecodeOptions = {},
): { story: DecodedStory; target: { prefix: string; index: number } | null } {
  const normalized = normalizeTransaction(tx);
  const slot = options.slot ?? slotOf(tx);
  const story = buildStory({ ...normalized, focusProgram: options.program ?? null, slot }, idls);
  return { story, target: options.program ? instructionPrefixOf(normalized.message, options.program) : null };
}

/** Decodes a simulation result (preflight -32002 `error.data`, or `simulateTransaction().value`). */
export function decodeSimulation(
  simulation: SimulationInput,
  idls: IdlRegistry = NO_IDLS,
  options: DecodeOptions = {},
): DecodedStory {
  const meta = simulation.loadedAddresses ? { loadedAddresses: simulation.loadedAddresses } : null;
  const message = normalizeMessage(simulation.message, meta);
  return buildStory(
    {
      err: simulation.err,
      logs: simulation.logs ?? null,
      message,
      inner: normalizeInnerInstructions(simulation.innerInstructions, message?.accountKeys ?? []),
      cuUsed: typeof simulation.unitsConsumed === "number" ? simulation.unitsConsumed : null,
      focusProgram: options.program ?? null,
      slot: options.slot ?? null,
    },
    idls,
  );
}

/** Decodes a preflight envelope: the client's error text plus the simulation logs it captured. */
export function decodePreflight(input: PreflightInput, idls: IdlRegistry = NO_IDLS): DecodedStory {
  const text = input.preflightError?.trim() ? input.preflightError : null;
  const evidence = text !== null ? readPreflightError(text) : null;
  const logs = input.simulationLogs.length > 0 ? input.simulationLogs : (evidence?.logs ?? null);
  const story = buildStory(
    {
      err: evidence?.err ?? null,
      logs,
      message: null,
      inner: null,
      cuUsed: evidence?.unitsConsumed ?? null,
      focusProgram: input.program,
    },
    idls,
  );
  if (story.errorKey === null && evidence) {
    story.errName = evidence.clientError;
    story.errMessage = evidence.summary || null;
    story.errorKey = evidence.clientError ? `rpc:${evidence.clientError}` : `preflight:${evidence.normalized}`;
  }
  return story;
}
