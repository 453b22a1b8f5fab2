// The call stack of one attempt, rebuilt from its program logs at read time (docs/api.md#the-call-stack):
// every invoked frame in invocation order with its program, instruction (when the logs or the stored
// story name it), depth, compute units, result and the range of log lines it owns; the innermost
// failing frame is marked. Stored stories keep only the failing frame's names, so the story's fields
// are passed in as hints; nothing is stored per frame (the lake keeps the logs, docs/lake.md).

import { frameNumber } from "../../shared/instruction-number";
import { loggedInstructionName } from "./instruction-names";
import { innerPath, type LogFrame, parseLogs, topFrameOf } from "./logs";
import { programName } from "./program-ids";

export type CallFrame = {
  /** Position in invocation order (0 = the first frame the logs show). */
  index: number;
  /** The enclosing frame's index; null for a top-level frame (or one whose caller the logs do not show). */
  parent: number | null;
  program: string;
  programName: string | null;
  instruction: string | null;
  /** Invoke depth: 1 = top-level instruction, +1 per CPI level. */
  depth: number;
  /** Instruction path as in why's ixPath ("2", "2.1"); null when the logs cannot place the frame. */
  path: string | null;
  /** Solana Explorer's number of the frame (a hash sign, then 3 or 3.2), as people read it; null when the logs cannot place it. */
  number: string | null;
  /** `consumed N of M compute units`: N and M (builtin programs print none). */
  computeUnits: number | null;
  computeLimit: number | null;
  /** `unfinished`: the logs end (truncated, or cut by the client) before the frame closes. */
  result: "success" | "failed" | "unfinished";
  /** The text after `failed: `. */
  error: string | null;
  /** The innermost failing frame: where the error was raised (enclosing frames only pass it on). */
  failing: boolean;
  /** First and last log line (0-based, inclusive) of the frame, its calls included. */
  lines: [number, number];
};

/** What the stored story knows about the frames (names the logs may not print). */
export type CallStackHints = {
  /** The targeted program and its instruction (why's `program` and `instruction`). */
  program?: string | null;
  instruction?: string | null;
  failingInstruction?: string | null;
  /** The failing frame's path from meta.err (exact top-level index, even when instructions log nothing). */
  ixPath?: string | null;
};

/** Frames in invocation order; empty when there are no logs. */
export function callStack(logs: readonly string[], hints: CallStackHints = {}): CallFrame[] {
  if (logs.length === 0) return [];
  const trace = parseLogs(logs);
  const frames = [...trace.frames];
  // A failing frame seen only by its `failed:` line (its invoke line was cut off) still gets a row.
  if (trace.failed && !frames.includes(trace.failed)) frames.push(trace.failed);
  const index = new Map(frames.map((frame, i) => [frame, i]));
  const failingTop = trace.failed ? topFrameOf(trace.failed) : null;
  const storedTop = hints.ixPath ? Number(hints.ixPath.split(".")[0]) : null;
  const named = namedByHints(trace.failed, hints, trace.topFrames);
  const last = logs.length - 1;

  const stack: CallFrame[] = frames.map((frame, i) => {
    const top = topFrameOf(frame);
    const inner = innerPath(frame);
    // The stored path counts every message instruction (some log nothing); log order counts what logged.
    const topIndex =
      top === null
        ? null
        : top === failingTop && storedTop !== null && Number.isInteger(storedTop)
          ? storedTop
          : top.topOrdinal;
    const path = topIndex === null || inner === null ? null : [topIndex, ...inner].join(".");
    return {
      index: i,
      parent: frame.parent ? (index.get(frame.parent) ?? null) : null,
      program: frame.programId,
      programName: programName(frame.programId),
      instruction: loggedInstructionName(frame) ?? named.get(frame) ?? null,
      depth: frame.depth,
      path,
      number: null,
      computeUnits: finite(frame.consumed),
      computeLimit: finite(frame.available),
      result: frame.failure !== null ? "failed" : frame.closeLine >= 0 ? "success" : "unfinished",
      error: frame.failure,
      failing: frame === trace.failed,
      lines: [frame.openLine >= 0 ? frame.openLine : frame.closeLine, frame.closeLine >= 0 ? frame.closeLine : last],
    };
  });
  for (const frame of stack) frame.number = frameNumber(frame, stack);
  return stack;
}

const finite = (value: number | null) => (value !== null && Number.isFinite(value) ? value : null);

/**
 * The frames the story names: the failing frame (failingInstruction) and the targeted program's
 * outermost frame around it (instruction); without a failure, the targeted program's first top-level frame.
 */
function namedByHints(failed: LogFrame | null, hints: CallStackHints, topFrames: LogFrame[]): Map<LogFrame, string> {
  const named = new Map<LogFrame, string>();
  if (failed) {
    let outermost: LogFrame | null = null;
    for (let f: LogFrame | null = failed; f; f = f.parent) if (f.programId === hints.program) outermost = f;
    if (outermost && hints.instruction) named.set(outermost, hints.instruction);
    if (hints.failingInstruction) named.set(failed, hints.failingInstruction);
  } else if (hints.instruction) {
    const main = topFrames.find((frame) => frame.programId === hints.program);
    if (main) named.set(main, hints.instruction);
  }
  return named;
}
