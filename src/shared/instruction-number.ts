// An instruction's place as people read it, in every text that leaves the server (MCP, Slack) and,
// through its copy in src/web/format.ts, on the pages: Solana Explorer's numbering, the one users
// compare against. A hash sign, then 3 for the third top-level instruction of the message (Compute
// Budget ones included) and 3.2 for the second instruction it invoked, counted in invoke order at
// any depth, as Explorer and the transaction record (GET /v1/tx) number inner instructions. The
// machine fields (`ixPath`, a frame's `path`) stay 0-based and per call level (docs/api.md): path
// 2.1.0 is the first call made by the second call of the third top-level instruction, and Explorer
// numbers it by its position in that instruction's whole call tree, so the inner number comes from
// the call stack, not from the path.

/** What numbering needs of a call-stack frame (docs/api.md#the-call-stack). */
export type PlacedFrame = { index: number; parent: number | null; depth: number; path: string | null };

const topNumberOf = (path: string) => Number(path.split(".")[0]) + 1;

/** A frame's Explorer number (3 or 3.2 after the hash sign); null when the logs cannot place it. */
export function frameNumber(frame: PlacedFrame, stack: readonly PlacedFrame[]): string | null {
  if (frame.path === null) return null;
  let outermost = frame;
  for (let parent = outermost.parent; parent !== null; parent = outermost.parent) {
    const caller = stack.find((candidate) => candidate.index === parent);
    if (!caller) return null;
    outermost = caller;
  }
  if (outermost.depth !== 1) return null;
  // Frames are in invocation order and a top-level instruction's calls follow it without a gap, so
  // the distance from it is the position among everything it invoked.
  return outermost === frame
    ? `#${topNumberOf(frame.path)}`
    : `#${topNumberOf(frame.path)}.${frame.index - outermost.index}`;
}

/**
 * The Explorer number of the instruction at `ixPath`: from its frame when the call stack has it;
 * from the path alone for a top-level instruction or a chain of first calls (path 2.0.0 is 3.2);
 * null when only the enclosing top-level instruction is known.
 */
export function instructionNumber(ixPath: string | null, stack?: readonly PlacedFrame[] | null): string | null {
  if (ixPath === null) return null;
  const frame = stack?.find((candidate) => candidate.path === ixPath);
  const numbered = frame && stack ? frameNumber(frame, stack) : null;
  if (numbered) return numbered;
  const inner = ixPath.split(".").slice(1);
  if (!inner.every((position) => position === "0")) return null;
  return inner.length === 0 ? `#${topNumberOf(ixPath)}` : `#${topNumberOf(ixPath)}.${inner.length}`;
}

/**
 * Where an instruction is, in words: "instruction", then its number as the answer serves it
 * (`ixNumber`, from instructionNumber), or "a call inside instruction", then the top-level number,
 * when the call stack cannot say which of its calls it is; null without a path.
 */
export function instructionPlace(ixPath: string | null, ixNumber: string | null | undefined): string | null {
  if (ixPath === null) return null;
  return ixNumber ? `instruction ${ixNumber}` : `a call inside instruction #${topNumberOf(ixPath)}`;
}
