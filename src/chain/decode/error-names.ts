// Names a custom program error code, always for the program that raised it. Evidence, best first:
// 1. the program's own `AnchorError ... Error Code: <Name>. Error Number: <n>` log line for that code
//    (what the running binary says, even when no IDL is known or the IDL is stale);
// 2. the program's IDL `errors`;
// 3. the built-in tables of System, SPL Token, Token-2022, Associated Token Account, Compute Budget,
//    Vote and Stake (builtin-errors.ts);
// 4. the transfer-hook interface's codes, for a program Token-2022 invoked (its transfer hook: a
//    failure there is the hook program's, not Token-2022's);
// 5. the Anchor framework codes (100–5000), for programs not known to be native or Shank-built.

import type { IdlRegistry } from "../idl";
import {
  anchorFrameworkError,
  builtinProgramError,
  hasBuiltinErrorTable,
  type KnownError,
  TRANSFER_HOOK_ERRORS,
} from "./builtin-errors";
import type { AnchorErrorLog } from "./logs";
import { TOKEN_2022_PROGRAM } from "./program-ids";

export interface NamedError {
  name: string | null;
  message: string | null;
}

export function nameCustomError(
  programId: string | null,
  code: number,
  anchorLog: AnchorErrorLog | null,
  idls: IdlRegistry,
  /** The program that invoked the failing one (null: top level, or unknown). */
  caller: string | null = null,
): NamedError {
  if (anchorLog && anchorLog.number === code) return { name: anchorLog.name, message: anchorLog.message };
  if (programId === null) return { name: null, message: null };
  const fromIdl = idls.errorFor(programId, code);
  if (fromIdl) return { name: fromIdl.name, message: fromIdl.msg };
  const builtin: KnownError | undefined = builtinProgramError(programId, code);
  if (builtin) return builtin;
  if (caller === TOKEN_2022_PROGRAM && !hasBuiltinErrorTable(programId)) {
    const hook = TRANSFER_HOOK_ERRORS.get(code);
    if (hook) return hook;
  }
  if (!hasBuiltinErrorTable(programId) && idls.get(programId)?.format !== "shank") {
    const framework = anchorFrameworkError(code);
    if (framework) return framework;
  }
  return { name: null, message: null };
}

/** The message a program's IDL or txray's tables give a custom code of that program (no logs needed). */
export function customErrorMessage(programId: string, code: number, idls: IdlRegistry): string | null {
  return nameCustomError(programId, code, null, idls).message;
}
