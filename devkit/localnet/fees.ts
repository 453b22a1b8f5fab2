// Fees and compute budget of a message, computed the way the runtime does: 5000 lamports per
// signature plus the priority fee ceil(cuPrice µL × cuLimit / 1e6), where cuLimit is the
// SetComputeUnitLimit value or the default (200 000 per non-builtin instruction, 3 000 per builtin,
// capped at 1 400 000). LiteSVM charges exactly this but does not report it, so getTransaction's
// `meta.fee`, getFeeForMessage and getRecentPrioritizationFees read it from here.

import type { ParsedMessage } from "./wire.ts";

export const LAMPORTS_PER_SIGNATURE = 5000n;
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
export const BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT = 3_000;

export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";

/** Programs that count as builtins for the default compute-unit limit. */
const BUILTIN_PROGRAMS = new Set([
  "11111111111111111111111111111111",
  COMPUTE_BUDGET_PROGRAM,
  "Vote111111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
]);

export interface ComputeBudget {
  /** Limit in force for the transaction (explicit or default). */
  cuLimit: number;
  /** SetComputeUnitLimit value when the transaction sets one. */
  cuLimitRequested: number | null;
  /** SetComputeUnitPrice in micro-lamports per CU (0 when unset). */
  cuPriceMicroLamports: bigint;
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}
function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

export function computeBudgetOf(message: ParsedMessage): ComputeBudget {
  let cuLimitRequested: number | null = null;
  let cuPriceMicroLamports = 0n;
  let builtin = 0;
  let other = 0;
  for (const ix of message.instructions) {
    const program = message.staticKeys[ix.programIdIndex];
    if (program === COMPUTE_BUDGET_PROGRAM) {
      const tag = ix.data[0];
      if (tag === 2 && ix.data.length >= 5) cuLimitRequested = readU32(ix.data, 1);
      if (tag === 3 && ix.data.length >= 9) cuPriceMicroLamports = readU64(ix.data, 1);
    }
    if (BUILTIN_PROGRAMS.has(program)) builtin++;
    else other++;
  }
  const defaultLimit =
    other * DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT + builtin * BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT;
  const cuLimit = Math.min(cuLimitRequested ?? defaultLimit, MAX_COMPUTE_UNIT_LIMIT);
  return { cuLimit, cuLimitRequested, cuPriceMicroLamports };
}

/** Priority fee in lamports: ceil(price × limit / 1e6). */
export function priorityFee(budget: ComputeBudget): bigint {
  const micro = budget.cuPriceMicroLamports * BigInt(budget.cuLimit);
  return (micro + 999_999n) / 1_000_000n;
}

/** Total fee the fee payer is charged for this message. */
export function messageFee(message: ParsedMessage): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priorityFee(computeBudgetOf(message));
}
