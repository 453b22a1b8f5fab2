// Rebuilds the invocation tree of a transaction from its log lines (agave
// `program-runtime/src/stable_log.rs`): `Program X invoke [n]` opens a frame at depth n,
// `Program X success` / `Program X failed: <text>` closes it, `consumed A of B compute units` and
// `Program log: ...` lines belong to the frame open at the time. The first `failed:` line belongs to
// the innermost failing frame; the same error is then re-reported by every enclosing frame.
// One linear pass, no per-line regex except on the rare AnchorError lines.

export interface AnchorErrorLog {
  name: string;
  number: number;
  message: string;
}

export interface LogFrame {
  programId: string;
  /** Invoke depth: 1 = top-level instruction, +1 per CPI level. */
  depth: number;
  parent: LogFrame | null;
  /** False when an ancestor's invoke line is not in the logs (logs that start mid-way). */
  attached: boolean;
  /** 0-based position among the visible top-level frames; -1 for frames below a missing top frame. */
  topOrdinal: number;
  /** 0-based position among the children of its parent, in invoke order; -1 when detached. */
  childIndex: number;
  /**
   * 0-based order among all CPIs of its top-level instruction (= `innerInstructions` order); -1 for top-level or
   * detached frames.
   */
  cpiOrdinal: number;
  childCount: number;
  cpiCount: number;
  /** Text after `Program log: ` of the line right after the invoke line, when that line is a program log. */
  firstLog: string | null;
  /** The first `AnchorError ...` line logged by this frame. */
  anchorError: AnchorErrorLog | null;
  /** Text of the first `Program log: Error: ...` line logged by this frame (native programs). */
  errorLog: string | null;
  consumed: number | null;
  available: number | null;
  /** Text after `failed: ` when the frame failed. */
  failure: string | null;
  /** Index of the frame's `invoke` line in the logs (-1 for a frame known only by its `failed:` line). */
  openLine: number;
  /** Index of its `success` / `failed:` line; -1 while the logs never close it (truncated, cut). */
  closeLine: number;
}

export interface LogTrace {
  frames: LogFrame[];
  topFrames: LogFrame[];
  /** The innermost failing frame: the owner of the first `failed:` line. */
  failed: LogFrame | null;
  truncated: boolean;
  /** A frame failed with `exceeded CUs meter at BPF instruction`. */
  meterExceeded: boolean;
  /** The first line is not a top-level invoke (e.g. web3.js keeps only the last 10 lines). */
  startsMidway: boolean;
}

const PROGRAM = "Program ";
const PROGRAM_LOG = "Program log: ";
const PROGRAM_DATA = "Program data: ";
const PROGRAM_RETURN = "Program return: ";
const ANCHOR_ERROR_PREFIX = "AnchorError ";
const ERROR_PREFIX = "Error: ";
const LOG_TRUNCATED = "Log truncated";
const METER_EXCEEDED = "exceeded CUs meter at BPF instruction";
// anchor `lang/src/error.rs` AnchorError::log: "AnchorError occurred|thrown in <file>:<line>|caused by
// account: <name>. Error Code: <Name>. Error Number: <n>. Error Message: <msg>."
const ANCHOR_ERROR =
  /^AnchorError (?:occurred|thrown in \S+?:\d+|caused by account: \S+?)\. Error Code: (\w+)\. Error Number: (\d+)\. Error Message: ([\s\S]*?)\.?$/;

export function parseAnchorErrorLog(text: string): AnchorErrorLog | null {
  const match = ANCHOR_ERROR.exec(text);
  if (!match) return null;
  return { name: match[1], number: Number(match[2]), message: match[3] };
}

function newFrame(
  programId: string,
  depth: number,
  parent: LogFrame | null,
  attached: boolean,
  openLine: number,
): LogFrame {
  return {
    programId,
    depth,
    parent,
    attached,
    topOrdinal: -1,
    childIndex: -1,
    cpiOrdinal: -1,
    childCount: 0,
    cpiCount: 0,
    firstLog: null,
    anchorError: null,
    errorLog: null,
    consumed: null,
    available: null,
    failure: null,
    openLine,
    closeLine: -1,
  };
}

/** The top-level frame a frame belongs to, or null when its chain is not in the logs. */
export function topFrameOf(frame: LogFrame): LogFrame | null {
  let current: LogFrame = frame;
  while (current.parent) current = current.parent;
  return current.depth === 1 ? current : null;
}

/** Child indexes below the top-level frame (`[1]` for the second CPI of a top-level instruction). */
export function innerPath(frame: LogFrame): number[] | null {
  if (!frame.attached) return null;
  const path: number[] = [];
  for (let f: LogFrame | null = frame; f && f.depth > 1; f = f.parent) path.push(f.childIndex);
  return path.reverse();
}

export function parseLogs(lines: readonly string[]): LogTrace {
  const frames: LogFrame[] = [];
  const topFrames: LogFrame[] = [];
  const stack: LogFrame[] = [];
  let failed: LogFrame | null = null;
  let truncated = false;
  let meterExceeded = false;
  let justInvoked: LogFrame | null = null;

  const closeFrame = (programId: string, line: number): LogFrame | null => {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i].programId === programId) {
        const frame = stack[i];
        stack.length = i;
        frame.closeLine = line;
        return frame;
      }
    }
    return null;
  };

  for (let at = 0; at < lines.length; at++) {
    const line = lines[at];
    const invokedBefore = justInvoked;
    justInvoked = null;
    if (line.startsWith(PROGRAM_LOG)) {
      const frame = stack[stack.length - 1];
      if (!frame) continue;
      const text = line.slice(PROGRAM_LOG.length);
      if (invokedBefore === frame) frame.firstLog = text;
      if (text.startsWith(ANCHOR_ERROR_PREFIX)) frame.anchorError ??= parseAnchorErrorLog(text);
      else if (text.startsWith(ERROR_PREFIX)) frame.errorLog ??= text.slice(ERROR_PREFIX.length);
      continue;
    }
    if (line === LOG_TRUNCATED) {
      truncated = true;
      continue;
    }
    if (!line.startsWith(PROGRAM) || line.startsWith(PROGRAM_DATA) || line.startsWith(PROGRAM_RETURN)) continue;
    const space = line.indexOf(" ", PROGRAM.length);
    if (space < 0) continue;
    const programId = line.slice(PROGRAM.length, space);
    const rest = line.slice(space + 1);

    if (rest.startsWith("invoke [")) {
      const depth = parseInt(rest.slice("invoke [".length), 10);
      if (!(depth >= 1)) continue;
      while (stack.length > depth - 1) stack.pop();
      let frame: LogFrame;
      if (depth === 1) {
        frame = newFrame(programId, 1, null, true, at);
        frame.topOrdinal = topFrames.length;
        frame.childIndex = topFrames.length;
        topFrames.push(frame);
      } else {
        const parent = stack.length === depth - 1 ? stack[stack.length - 1] : null;
        frame = newFrame(programId, depth, parent, parent?.attached === true, at);
        if (parent) {
          frame.childIndex = parent.childCount++;
          const top = topFrameOf(parent);
          if (top) {
            frame.topOrdinal = top.topOrdinal;
            frame.cpiOrdinal = top.cpiCount++;
          }
        }
      }
      frames.push(frame);
      stack.push(frame);
      justInvoked = frame;
    } else if (rest.startsWith("consumed ")) {
      const frame = stack[stack.length - 1];
      if (!frame || frame.programId !== programId) continue;
      const [used, , available] = rest.slice("consumed ".length).split(" ", 3);
      frame.consumed = Number(used);
      frame.available = Number(available);
    } else if (rest === "success") {
      closeFrame(programId, at);
    } else if (rest.startsWith("failed: ")) {
      const text = rest.slice("failed: ".length);
      const frame = closeFrame(programId, at) ?? newFrame(programId, stack.length + 1, null, false, -1);
      frame.closeLine = at;
      frame.failure = text;
      if (failed === null) failed = frame;
      if (text.startsWith(METER_EXCEEDED)) meterExceeded = true;
    }
  }

  const first = lines[0];
  const startsMidway = first !== undefined && !(first.startsWith(PROGRAM) && first.endsWith(" invoke [1]"));
  return { frames, topFrames, failed, truncated, meterExceeded, startsMidway };
}
