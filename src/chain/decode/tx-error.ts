// Reads a TransactionError in its JSON-RPC form (`"BlockhashNotFound"`,
// `{"InstructionError":[2,{"Custom":30}]}`, `{"InstructionError":[0,"IncorrectProgramId"]}`,
// `{"InsufficientFundsForRent":{"account_index":2}}`, `{"DuplicateInstruction":3}`; kit clients may
// carry bigints) into its parts: the variant, the failing top-level instruction and its error.

export interface InstructionFailure {
  /** Top-level instruction index (`InstructionError[0]`). */
  index: number;
  /** InstructionError variant: "Custom", "ProgramFailedToComplete", ... */
  variant: string;
  /** The code of a `Custom` error. */
  custom: number | null;
}

export interface TransactionErrorInfo {
  variant: string;
  instruction: InstructionFailure | null;
  /** The variant's number (`account_index`, duplicate instruction index), for messages only. */
  number: number | null;
  /** Compact text of the error: the bare variant for unit variants, JSON otherwise. */
  text: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const toNumber = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : typeof v === "bigint" ? Number(v) : null;

function soleKey(value: Json): string | null {
  const keys = Object.keys(value);
  return keys.length === 1 ? keys[0] : null;
}

/** JSON text with bigints written as numbers. */
export function errorJson(err: unknown): string {
  return JSON.stringify(err, (_key, v) => (typeof v === "bigint" ? Number(v) : v));
}

function instructionFailure(value: unknown): InstructionFailure | null {
  if (!Array.isArray(value) || value.length < 2) return null;
  const index = toNumber(value[0]);
  if (index === null) return null;
  const inner = value[1];
  if (typeof inner === "string") return { index, variant: inner, custom: null };
  if (isObject(inner)) {
    const key = soleKey(inner);
    if (key === null) return null;
    return { index, variant: key, custom: key === "Custom" ? toNumber(inner.Custom) : null };
  }
  return null;
}

/** Describes a TransactionError; null for success (`null`/`undefined`) or an unrecognized value. */
export function describeTransactionError(err: unknown): TransactionErrorInfo | null {
  if (err === null || err === undefined) return null;
  if (typeof err === "string") return err ? { variant: err, instruction: null, number: null, text: err } : null;
  if (!isObject(err)) return null;
  const variant = soleKey(err);
  if (variant === null) return null;
  const value = err[variant];
  const text = errorJson(err);
  if (variant === "InstructionError") {
    const instruction = instructionFailure(value);
    return instruction ? { variant, instruction, number: instruction.index, text } : null;
  }
  const number = isObject(value) ? toNumber(value.account_index) : toNumber(value);
  return { variant, instruction: null, number, text };
}
