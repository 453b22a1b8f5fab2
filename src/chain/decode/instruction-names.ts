// Names the instruction a frame ran. Evidence, best first:
// 1. the `Program log: Instruction: <Name>` line printed right after the frame's invoke line (Anchor's
//    dispatcher, SPL Token; the ATA program logs its bare name, e.g. `Program log: CreateIdempotent`);
// 2. an IDL discriminator match on the instruction data (top level: the message; inner: the matching
//    entry of `meta.innerInstructions`);
// 3. the built-in decoders of System, SPL Token, Token-2022, ATA and Compute Budget (raw data or the
//    jsonParsed `parsed.type`), Anchor's event self-CPI (`emit_cpi!`), named "AnchorEventCpi", and the
//    transfer-hook interface's "Execute" (the call Token-2022 makes into a mint's hook program).
// Names are UpperCamelCase whatever named them (IDL names are converted as Anchor logs them).

import type { IdlRegistry } from "../idl";
import {
  ANCHOR_EVENT_CPI_NAME,
  ASSOCIATED_TOKEN_LOGGED_NAMES,
  builtinInstructionName,
  isAnchorEventCpi,
  isTransferHookExecute,
  parsedTypeName,
  TRANSFER_HOOK_EXECUTE_NAME,
} from "./builtin-instructions";
import type { LogFrame } from "./logs";
import { ASSOCIATED_TOKEN_PROGRAM } from "./program-ids";
import { instructionData, type NormalizedInstruction } from "./rpc-shapes";

const INSTRUCTION_LOG_PREFIX = "Instruction: ";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The name a frame logged right after its invoke line, if it logged one. */
export function loggedInstructionName(frame: LogFrame): string | null {
  const text = frame.firstLog;
  if (text === null) return null;
  if (text.startsWith(INSTRUCTION_LOG_PREFIX)) {
    const name = text.slice(INSTRUCTION_LOG_PREFIX.length).trim();
    return IDENTIFIER.test(name) ? name : null;
  }
  if (frame.programId === ASSOCIATED_TOKEN_PROGRAM && ASSOCIATED_TOKEN_LOGGED_NAMES.has(text)) return text;
  return null;
}

/** The name of an instruction from its data (IDL, then built-in decoders) or its jsonParsed type. */
export function decodedInstructionName(ix: NormalizedInstruction | null, idls: IdlRegistry): string | null {
  if (!ix || ix.programId === null) return null;
  const data = instructionData(ix);
  if (data) {
    const fromIdl = idls.instructionFor(ix.programId, data);
    if (fromIdl) return fromIdl.displayName;
    const builtin = builtinInstructionName(ix.programId, data);
    if (builtin) return builtin;
    if (isAnchorEventCpi(data)) return ANCHOR_EVENT_CPI_NAME;
    if (isTransferHookExecute(data)) return TRANSFER_HOOK_EXECUTE_NAME;
  }
  return ix.parsedType !== null ? parsedTypeName(ix.parsedType) : null;
}

/**
 * The message or inner instruction a log frame executed, when it can be matched: a top-level frame is
 * message instruction `topIndex`; a CPI frame is entry `cpiOrdinal` of `innerInstructions[topIndex]`
 * (both in invoke order). The program id (and stack height, when reported) must agree.
 */
export function instructionOfFrame(
  frame: LogFrame,
  topIndex: number,
  message: readonly NormalizedInstruction[] | null,
  inner: ReadonlyMap<number, NormalizedInstruction[]> | null,
): NormalizedInstruction | null {
  const candidate = frame.depth === 1 ? message?.[topIndex] : inner?.get(topIndex)?.[frame.cpiOrdinal];
  if (!candidate || candidate.programId !== frame.programId) return null;
  if (frame.depth > 1 && candidate.stackHeight !== null && candidate.stackHeight !== frame.depth) return null;
  return candidate;
}
