// The compute-unit limit a transaction asked for (docs/solana.md "Compute units", solana.com compute-budget docs,
// agave `compute-budget-instruction`): the first SetComputeUnitLimit instruction (ComputeBudget tag 2,
// u32 LE) anywhere in the message, else the runtime default of 200,000 per top-level instruction of a
// non-builtin program plus 3,000 per builtin one (ComputeBudget instructions included), capped at
// 1,400,000. Transactions from before the builtin 3,000 rule (feature
// `reserve_minimal_cus_for_builtin_instructions`) got 200,000 for every non-ComputeBudget
// instruction; the current rule is reported for them too.

import { BUILTIN_PROGRAMS, COMPUTE_BUDGET_PROGRAM } from "./program-ids";
import { instructionData, type NormalizedMessage } from "./rpc-shapes";

export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
export const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000;
const SET_COMPUTE_UNIT_LIMIT = 2;

function explicitLimit(message: NormalizedMessage): number | null {
  for (const ix of message.instructions) {
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM) continue;
    const limit = ix.parsedInfo?.computeUnitLimit;
    if (typeof limit === "number") return limit;
    const data = instructionData(ix);
    if (data && data.length >= 5 && data[0] === SET_COMPUTE_UNIT_LIMIT) {
      return (data[1] | (data[2] << 8) | (data[3] << 16) | (data[4] << 24)) >>> 0;
    }
  }
  return null;
}

/** Requested compute-unit limit of the message (explicit or runtime default), capped at 1.4M. */
export function requestedComputeUnits(message: NormalizedMessage): number {
  const explicit = explicitLimit(message);
  if (explicit !== null) return Math.min(explicit, MAX_COMPUTE_UNIT_LIMIT);
  let total = 0;
  for (const ix of message.instructions) {
    total +=
      ix.programId !== null && BUILTIN_PROGRAMS.has(ix.programId)
        ? MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT
        : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
  }
  return Math.min(total, MAX_COMPUTE_UNIT_LIMIT);
}
