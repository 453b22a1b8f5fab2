// Assembles a DecodedStory from whatever evidence an entry point gathered: the TransactionError,
// the log lines, the message (instructions and their data), inner instructions and CU figures.
// The rules (which frame failed, how paths are counted, what a success reports) are documented in
// index.ts; this module applies them.

import type { IdlRegistry } from "../idl";
import { requestedComputeUnits } from "./compute-budget";
import { nameCustomError } from "./error-names";
import { decodedInstructionName, instructionOfFrame, loggedInstructionName } from "./instruction-names";
import { innerPath, type LogFrame, type LogTrace, parseLogs, topFrameOf } from "./logs";
import { COMPUTE_BUDGET_PROGRAM } from "./program-ids";
import type { NormalizedInstruction, NormalizedMessage } from "./rpc-shapes";
import {
  INSTRUCTION_ERROR_DISPLAY,
  instructionVariantFromDisplay,
  parseCustomErrorText,
  transactionErrorDisplay,
} from "./runtime-errors";
import { type DecodedStory, EMPTY_STORY } from "./story";
import { describeTransactionError, errorJson, type TransactionErrorInfo } from "./tx-error";

export interface StoryEvidence {
  /** TransactionError as reported (null/undefined: none reported). */
  err: unknown;
  logs: readonly string[] | null;
  message: NormalizedMessage | null;
  inner: ReadonlyMap<number, NormalizedInstruction[]> | null;
  cuUsed: number | null;
  /** Program whose instruction is the "main" one when nothing failed (the tracked program). */
  focusProgram: string | null;
  /** Slot the transaction ran in (null or absent: unknown, the newest IDLs apply). */
  slot?: number | null;
}

const COMPUTE_EXCEEDED = "ComputationalBudgetExceeded";

interface Context {
  evidence: StoryEvidence;
  idls: IdlRegistry;
  trace: LogTrace | null;
  instructions: readonly NormalizedInstruction[] | null;
  /** Top-level log frames by message instruction index. */
  frameByIndex: Map<number, LogFrame>;
}

/** Pairs top-level log frames with message instructions, skipping instructions that logged nothing. */
function alignTopFrames(trace: LogTrace | null, instructions: readonly NormalizedInstruction[] | null) {
  const byIndex = new Map<number, LogFrame>();
  if (!trace || trace.startsMidway) return byIndex;
  if (!instructions) {
    for (const frame of trace.topFrames) byIndex.set(frame.topOrdinal, frame);
    return byIndex;
  }
  let i = 0;
  for (const frame of trace.topFrames) {
    while (i < instructions.length && instructions[i].programId !== frame.programId) i++;
    if (i >= instructions.length) break;
    byIndex.set(i++, frame);
  }
  return byIndex;
}

function indexOfTopFrame(ctx: Context, top: LogFrame | null): number | null {
  if (!top) return null;
  for (const [index, frame] of ctx.frameByIndex) if (frame === top) return index;
  return null;
}

function frameInstructionName(ctx: Context, frame: LogFrame, topIndex: number | null): string | null {
  const logged = loggedInstructionName(frame);
  if (logged) return logged;
  if (topIndex === null) return null;
  const ix = instructionOfFrame(frame, topIndex, ctx.instructions, ctx.evidence.inner);
  return decodedInstructionName(ix, ctx.idls);
}

function topInstructionName(ctx: Context, index: number): string | null {
  const frame = ctx.frameByIndex.get(index);
  if (frame) return frameInstructionName(ctx, frame, index);
  return decodedInstructionName(ctx.instructions?.[index] ?? null, ctx.idls);
}

interface MainInstruction {
  index: number;
  programId: string | null;
}

/**
 * The instruction a story without a failing frame is about: the first top-level instruction of the
 * focus program; else the top-level frame that consumed the most compute units; else the first
 * instruction that is not a ComputeBudget one.
 */
function mainInstruction(ctx: Context): MainInstruction | null {
  const { focusProgram } = ctx.evidence;
  const ixs = ctx.instructions;
  if (focusProgram !== null) {
    if (ixs) {
      const index = ixs.findIndex((ix) => ix.programId === focusProgram);
      if (index >= 0) return { index, programId: focusProgram };
    } else {
      for (const [index, frame] of ctx.frameByIndex)
        if (frame.programId === focusProgram) return { index, programId: focusProgram };
    }
  }
  let best: [number, LogFrame] | null = null;
  for (const entry of ctx.frameByIndex) {
    const consumed = entry[1].consumed;
    if (consumed !== null && (best === null || consumed > (best[1].consumed ?? 0))) best = entry;
  }
  if (best) return { index: best[0], programId: ixs?.[best[0]]?.programId ?? best[1].programId };
  if (ixs) {
    const index = ixs.findIndex((ix) => ix.programId !== COMPUTE_BUDGET_PROGRAM);
    if (index >= 0) return { index, programId: ixs[index].programId };
  }
  return null;
}

/**
 * Compute units from the logs when the runtime's figure is absent (older transactions, simulation
 * logs): the sum of the top-level frames' `consumed N of M` lines (builtins print none). Null when
 * no top-level frame printed one, or when the logs are cut (truncated, or starting mid-way).
 */
function cuUsedFromLogs(trace: LogTrace | null): number | null {
  if (!trace || trace.truncated || trace.startsMidway) return null;
  let sum: number | null = null;
  for (const frame of trace.topFrames)
    if (frame.consumed !== null && Number.isFinite(frame.consumed)) sum = (sum ?? 0) + frame.consumed;
  return sum;
}

function emptyStory(ctx: Context, info: TransactionErrorInfo | null): DecodedStory {
  const { evidence, trace } = ctx;
  const err = evidence.err;
  return {
    ...EMPTY_STORY,
    cuUsed: evidence.cuUsed ?? cuUsedFromLogs(trace),
    cuRequested: evidence.message ? requestedComputeUnits(evidence.message) : null,
    logTruncated: trace?.truncated ?? false,
    txError: info ? info.text : err === null || err === undefined ? null : errorJson(err),
  };
}

/**
 * Fills the instruction fields with the main instruction (success and transaction-level errors). A
 * transaction-level error was raised by no instruction: its ixPath and cpiDepth stay null.
 */
function describeMainInstruction(ctx: Context, story: DecodedStory, options: { located: boolean }): void {
  const main = mainInstruction(ctx);
  if (!main) return;
  story.topLevelProgram = main.programId;
  story.instruction = topInstructionName(ctx, main.index);
  if (!options.located) return;
  story.ixPath = String(main.index);
  story.cpiDepth = 0;
}

/**
 * The instruction a failure story names: the targeted program's (the focus program, else the
 * failing top-level instruction's program) from the outermost of its frames that enclose the failing
 * frame; when it has none there, the failing top-level instruction's name.
 */
function targetedInstructionName(
  ctx: Context,
  frame: LogFrame | null,
  index: number | null,
  topLevelProgram: string | null,
): string | null {
  const target = ctx.evidence.focusProgram ?? topLevelProgram;
  let outermost: LogFrame | null = null;
  for (let f = frame; f; f = f.parent) if (f.programId === target) outermost = f;
  if (outermost) {
    const name = frameInstructionName(ctx, outermost, index);
    if (name !== null || outermost.depth > 1) return name;
  }
  return index !== null ? topInstructionName(ctx, index) : null;
}

function isComputeExhaustion(
  ctx: Context,
  frame: LogFrame | null,
  variant: string | null,
  code: number | null,
): boolean {
  if (ctx.trace?.meterExceeded || variant === COMPUTE_EXCEEDED) return true;
  if (!frame || code !== null) return false;
  if (frame.failure === INSTRUCTION_ERROR_DISPLAY[COMPUTE_EXCEEDED]) return true;
  // `consumed N of N` on the failing frame: the meter ran dry (older validators print no meter line).
  return (
    frame.consumed !== null && frame.available !== null && frame.available > 0 && frame.consumed === frame.available
  );
}

function describeInstructionFailure(ctx: Context, story: DecodedStory, info: TransactionErrorInfo | null): void {
  const frame = ctx.trace?.failed ?? null;
  const top = frame ? topFrameOf(frame) : null;
  const index = info?.instruction?.index ?? indexOfTopFrame(ctx, top);
  const path = frame && top ? innerPath(frame) : null;

  story.topLevelProgram = (index !== null ? ctx.instructions?.[index]?.programId : null) ?? top?.programId ?? null;
  story.failingProgram = frame?.programId ?? story.topLevelProgram;
  story.ixPath = index === null ? null : [index, ...(path ?? [])].join(".");
  story.cpiDepth = frame ? frame.depth - 1 : null;
  story.failingInstruction = frame
    ? frameInstructionName(ctx, frame, index)
    : index !== null
      ? topInstructionName(ctx, index)
      : null;
  story.instruction = targetedInstructionName(ctx, frame, index, story.topLevelProgram);

  const reported = info?.instruction ?? null;
  const code =
    (frame?.failure ? parseCustomErrorText(frame.failure) : null) ??
    (reported?.variant === "Custom" ? reported.custom : null);
  const variant =
    reported && reported.variant !== "Custom"
      ? reported.variant
      : code === null && frame?.failure
        ? // A `failed:` text that is no InstructionError Display is a VM/syscall error, which the
          // runtime reports as ProgramFailedToComplete.
          (instructionVariantFromDisplay(frame.failure) ?? "ProgramFailedToComplete")
        : null;

  if (isComputeExhaustion(ctx, frame, variant, code)) {
    story.computeExceeded = true;
    story.errName = COMPUTE_EXCEEDED;
    story.errMessage = frame?.failure ?? INSTRUCTION_ERROR_DISPLAY[COMPUTE_EXCEEDED];
    story.errorKey = COMPUTE_EXCEEDED;
    return;
  }
  if (code !== null) {
    const named = nameCustomError(
      story.failingProgram,
      code,
      frame?.anchorError ?? null,
      ctx.idls,
      frame?.parent?.programId ?? null,
    );
    story.errCode = code;
    story.errName = named.name;
    story.errMessage = named.message ?? frame?.errorLog ?? `custom program error: 0x${code.toString(16)}`;
    story.errorKey = `custom:${code}`;
    return;
  }
  story.errName = variant;
  story.errMessage = frame?.failure ?? (variant ? (INSTRUCTION_ERROR_DISPLAY[variant] ?? null) : null);
  story.errorKey = `InstructionError:${variant ?? "Unknown"}`;
}

/**
 * Builds the story. `idls` names custom errors and instructions of programs with an IDL: the
 * versions in force at `evidence.slot` when it is known.
 */
export function buildStory(evidence: StoryEvidence, registry: IdlRegistry): DecodedStory {
  const idls = typeof evidence.slot === "number" ? registry.atSlot(evidence.slot) : registry;
  const trace = evidence.logs ? parseLogs(evidence.logs) : null;
  const instructions = evidence.message?.instructions ?? null;
  const ctx: Context = { evidence, idls, trace, instructions, frameByIndex: alignTopFrames(trace, instructions) };
  const info = describeTransactionError(evidence.err);
  const story = emptyStory(ctx, info);

  if (info?.instruction || (!info && trace?.failed)) {
    describeInstructionFailure(ctx, story, info);
  } else if (info) {
    describeMainInstruction(ctx, story, { located: false });
    story.errName = info.variant;
    story.errMessage = transactionErrorDisplay(info.variant, info.number);
    story.errorKey = info.variant;
  } else {
    describeMainInstruction(ctx, story, { located: true });
    if (story.txError !== null) story.errorKey = "TransactionError:Unknown";
  }
  return story;
}
