// Recovers a TransactionError from the only evidence a failed preflight leaves: the error text the
// client captured (docs/solana.md "Preflight errors"). Handled, in order of trust:
// 1. JSON embedded anywhere in the text: a raw JSON-RPC error body (`error.data.err`, `.logs`,
//    `.unitsConsumed`), a simulate result (`value.err`), a status (`{"err":…}`), or a bare
//    TransactionError (`Simulation failed: {"InstructionError":[1,{"Custom":1}]}`), including JSON
//    wrapped by a library exception (`RpcException(…, rawResponse={…})`);
// 2. a quoted variant (`Simulation failed: "BlockhashNotFound"`) or a Rust Debug dump
//    (`err: Some(InstructionError(0, Custom(1)))`);
// 3. Display text: `Error processing Instruction 3: custom program error: 0x28`, `Blockhash not found`,
//    `Transaction results in an account (0) with insufficient funds for rent`, ... as web3.js v1
//    (`failed to send transaction: Transaction simulation failed: …`, `Simulation failed. \nMessage: …`)
//    and other clients print them;
// 4. a bare variant name (`BlockhashNotFound`).
// Failures that are not TransactionErrors (expiry, RPC health, rate limits, wallet rejection) get a
// name of their own; anything else is reduced to a value-free normalised text.

import {
  INSTRUCTION_ERROR_DISPLAY,
  instructionVariantFromDisplay,
  isTransactionErrorVariant,
  parseCustomErrorText,
  TRANSACTION_ERROR_DISPLAY,
} from "./runtime-errors";

export interface PreflightEvidence {
  /** TransactionError in its JSON-RPC form, when the text carries one. */
  err: unknown;
  /** Simulation logs found in the text (JSON body or web3.js `Logs:` list). */
  logs: string[] | null;
  unitsConsumed: number | null;
  /** Name of a failure that is not a TransactionError (`BlockheightExceeded`, `RateLimited`, ...). */
  clientError: string | null;
  /** First line of the text, trimmed (for messages). */
  summary: string;
  /** Lower-case text with addresses, numbers and hex replaced (for grouping unknown errors). */
  normalized: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

const MAX_SCANNED_CHARS = 256 * 1024;
const MAX_JSON_CANDIDATES = 32;
const QUOTED_WORD = /"([A-Z][A-Za-z]+)"/g;
const RUST_DEBUG_ERR = /err: Some\(([A-Za-z]+)(?:\((\d+), ([A-Za-z]+)(?:\((\d+)\))?\))?\)/;
const INSTRUCTION_DISPLAY = /Error processing Instruction (\d+): ([^\n"]*)/;
const BASE58_TOKEN = /\b[1-9A-HJ-NP-Za-km-z]{32,88}\b/g;
const HEX_TOKEN = /\b0x[0-9a-fA-F]+\b/g;
const NUMBER_TOKEN = /\d+(?:\.\d+)?/g;
const WHITESPACE = /\s+/g;
const WEB3_GUIDE = /\s*Catch the `SendTransactionError`[\s\S]*$/;
const TRAILING_PERIOD = /\.\s*$/;
const INSTRUCTION_DISPLAYS_LOWER = Object.entries(INSTRUCTION_ERROR_DISPLAY).map(
  ([variant, display]) => [variant, display.toLowerCase()] as const,
);
const BARE_VARIANT = new RegExp(
  `\\b(${Object.keys(TRANSACTION_ERROR_DISPLAY)
    .filter((v) => v !== "InstructionError")
    .join("|")})\\b`,
);

/** Transaction-level Display texts, longest first; numbered ones as regexes. */
const TRANSACTION_DISPLAYS: { variant: string; lower: string | null; pattern: RegExp | null }[] = Object.entries(
  TRANSACTION_ERROR_DISPLAY,
)
  .filter(([variant]) => variant !== "InstructionError")
  .sort((a, b) => b[1].length - a[1].length)
  .map(([variant, template]) =>
    template.includes("{n}")
      ? {
          variant,
          lower: null,
          pattern: new RegExp(template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("\\{n\\}", "(\\d+)"), "i"),
        }
      : { variant, lower: template.toLowerCase(), pattern: null },
  );

/** Errors that are not TransactionErrors: client-side expiry, RPC health, rate limits, wallets. */
const CLIENT_ERRORS: { name: string; pattern: RegExp }[] = [
  { name: "BlockheightExceeded", pattern: /block height exceeded/i },
  { name: "ConfirmationTimeout", pattern: /was not confirmed in [\d.]+ seconds/i },
  { name: "SignatureVerificationFailure", pattern: /signature verification failure|"code":\s*-32003\b/i },
  { name: "NodeUnhealthy", pattern: /node is behind by|node is unhealthy|"code":\s*-32005\b/i },
  { name: "SignatureLengthMismatch", pattern: /signature length mismatch|"code":\s*-32013\b/i },
  {
    name: "UnsupportedTransactionVersion",
    pattern: /transaction version \(\d+\) is not supported|"code":\s*-32015\b/i,
  },
  { name: "MinContextSlotNotReached", pattern: /minimum context slot has not been reached|"code":\s*-32016\b/i },
  { name: "RateLimited", pattern: /\b429\b|too many requests|rate limit/i },
  { name: "WalletRejected", pattern: /user rejected|rejected the request|transaction cancelled by user/i },
];

/** End index (exclusive) of the JSON value starting at `start` (`{` or `[`), or -1. */
function balancedEnd(text: string, start: number): number {
  const open = text[start];
  const close = open === "{" ? "}" : "]";
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
  }
  return -1;
}

function parseJsonAt(text: string, start: number): { value: unknown; end: number } | null {
  const end = balancedEnd(text, start);
  if (end < 0) return null;
  try {
    return { value: JSON.parse(text.slice(start, end)), end };
  } catch {
    return null;
  }
}

const stringArray = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null;
const numberOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

interface JsonFinding {
  err: unknown;
  logs: string[] | null;
  unitsConsumed: number | null;
}

/** Reads a simulation-like object: `{err, logs, unitsConsumed}` in any of the known wrappers. */
function findingOf(value: unknown): JsonFinding | null {
  if (!isObject(value)) return null;
  const error = value.error;
  if (isObject(error) && isObject(error.data) && "err" in error.data) return findingOf(error.data);
  if (isObject(value.value) && "err" in value.value) return findingOf(value.value);
  if ("err" in value && value.err !== null && value.err !== undefined) {
    return { err: value.err, logs: stringArray(value.logs), unitsConsumed: numberOrNull(value.unitsConsumed) };
  }
  const keys = Object.keys(value);
  if (keys.length === 1 && isTransactionErrorVariant(keys[0])) return { err: value, logs: null, unitsConsumed: null };
  return null;
}

function fromEmbeddedJson(text: string): JsonFinding | null {
  let candidates = 0;
  for (let at = text.indexOf("{"); at >= 0 && candidates < MAX_JSON_CANDIDATES; at = text.indexOf("{", at + 1)) {
    candidates++;
    const parsed = parseJsonAt(text, at);
    if (!parsed) continue;
    const finding = findingOf(parsed.value);
    if (finding) return finding;
  }
  return null;
}

/** web3.js v1 `SendTransactionError` text: `Logs: \n[ "…", … ].` (the last 10 lines only). */
function web3Logs(text: string): string[] | null {
  const at = text.indexOf("Logs:");
  if (at < 0) return null;
  const open = text.indexOf("[", at);
  if (open < 0) return null;
  const parsed = parseJsonAt(text, open);
  const logs = parsed ? stringArray(parsed.value) : null;
  return logs && logs.length > 0 ? logs : null;
}

function fromRustDebug(text: string): unknown {
  const m = RUST_DEBUG_ERR.exec(text);
  if (!m) return undefined;
  if (m[1] !== "InstructionError") return isTransactionErrorVariant(m[1]) ? m[1] : undefined;
  if (m[2] === undefined || m[3] === undefined) return undefined;
  const inner = m[3] === "Custom" && m[4] !== undefined ? { Custom: Number(m[4]) } : m[3];
  return { InstructionError: [Number(m[2]), inner] };
}

function fromQuotedVariant(text: string): unknown {
  for (const m of text.matchAll(QUOTED_WORD))
    if (isTransactionErrorVariant(m[1]) && m[1] !== "InstructionError") return m[1];
  return undefined;
}

/** InstructionError variant whose Display starts `segment` (the text after `Instruction N: `). */
function instructionVariantAt(segment: string): string | null {
  const sentence = segment.replace(TRAILING_PERIOD, "").split(". ")[0];
  const exact = instructionVariantFromDisplay(sentence);
  if (exact) return exact;
  const lower = segment.toLowerCase();
  for (const [variant, display] of INSTRUCTION_DISPLAYS_LOWER) if (lower.startsWith(display)) return variant;
  return null;
}

function fromDisplayText(text: string): unknown {
  const ix = INSTRUCTION_DISPLAY.exec(text);
  if (ix) {
    const index = Number(ix[1]);
    const custom = parseCustomErrorText(ix[2]);
    if (custom !== null) return { InstructionError: [index, { Custom: custom }] };
    const variant = instructionVariantAt(ix[2]);
    if (variant) return { InstructionError: [index, variant] };
  }
  const lower = text.toLowerCase();
  for (const { variant, lower: display, pattern } of TRANSACTION_DISPLAYS) {
    if (display !== null && lower.includes(display)) return variant;
    const m = pattern?.exec(text);
    if (m)
      return variant === "DuplicateInstruction"
        ? { [variant]: Number(m[1]) }
        : { [variant]: { account_index: Number(m[1]) } };
  }
  return undefined;
}

function fromBareVariant(text: string): unknown {
  return BARE_VARIANT.exec(text)?.[1];
}

/** Lower-case first line with addresses, hex and numbers replaced: safe to group by. */
export function normalizeErrorText(text: string): string {
  const firstLine = text.replace(WEB3_GUIDE, "").trim().split("\n")[0];
  return firstLine
    .replace(BASE58_TOKEN, "<addr>")
    .replace(HEX_TOKEN, "<hex>")
    .replace(NUMBER_TOKEN, "<n>")
    .replace(WHITESPACE, " ")
    .trim()
    .toLowerCase()
    .slice(0, 120);
}

/** Extracts what a preflight error text says. */
export function readPreflightError(input: string): PreflightEvidence {
  const text = input.length > MAX_SCANNED_CHARS ? input.slice(0, MAX_SCANNED_CHARS) : input;
  const json = fromEmbeddedJson(text);
  let err: unknown = json?.err;
  err ??= fromQuotedVariant(text);
  err ??= fromRustDebug(text);
  err ??= fromDisplayText(text);
  err ??= fromBareVariant(text);
  const clientError = err === undefined ? (CLIENT_ERRORS.find((c) => c.pattern.test(text))?.name ?? null) : null;
  return {
    err: err ?? null,
    logs: json?.logs ?? web3Logs(text),
    unitsConsumed: json?.unitsConsumed ?? null,
    clientError,
    summary: text.replace(WEB3_GUIDE, "").trim().split("\n")[0].trim().slice(0, 200),
    normalized: normalizeErrorText(text),
  };
}
