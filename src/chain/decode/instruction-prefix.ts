// The first data bytes of an attempt's targeted instruction (the envelope's `ixPrefix`, the lake's
// `ix_prefix`; docs/lake.md "Instructions of successes"): taken from a fetched transaction when the
// client did not send them, and turned into an instruction name without the transaction (IDL
// discriminator, then the built-in decoders) for a success decided from its status alone.

import type { IdlRegistry } from "../idl";
import { builtinInstructionName } from "./builtin-instructions";
import { instructionData, type NormalizedMessage } from "./rpc-shapes";

/** Bytes of instruction data the prefix holds. */
export const INSTRUCTION_PREFIX_BYTES = 8;

const toHex = (bytes: Uint8Array) => {
  let hex = "";
  for (const byte of bytes) hex += (byte < 16 ? "0" : "") + byte.toString(16);
  return hex;
};

/**
 * The prefix of the first top-level instruction of `program` in a message, with that instruction's
 * index; null when the message has none or its data is unknown.
 */
export function instructionPrefixOf(
  message: NormalizedMessage | null,
  program: string,
): { prefix: string; index: number } | null {
  const index = message?.instructions.findIndex((candidate) => candidate.programId === program) ?? -1;
  if (index < 0) return null;
  const data = instructionData(message!.instructions[index]);
  return data === null ? null : { prefix: toHex(data.subarray(0, INSTRUCTION_PREFIX_BYTES)), index };
}

/** The instruction a prefix names at `program`: its IDL, then the built-in decoders; null when neither knows it. */
export function instructionNameFromPrefix(program: string, prefix: string, idls: IdlRegistry): string | null {
  if (!/^(?:[0-9a-f]{2})*$/.test(prefix)) return null;
  const data = Uint8Array.from(prefix.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  return idls.instructionFor(program, data)?.displayName ?? builtinInstructionName(program, data);
}
