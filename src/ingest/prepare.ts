// The CPU-heavy half of POST /v1/ingest: from the request body's bytes to the spool bytes of an
// accepted batch. Parse, authenticate, check the batch size, validate every envelope, encode the
// spool lines, in the order the errors are reported. The route runs it on the main thread or, with
// INGEST_WORKERS > 0, in worker threads (src/ingest/workers.ts), so parsing and encoding batches uses
// every core while the main thread serves HTTP and the spool. Rate limiting and the durable write
// stay on the main thread: they need the process's one token bucket and one spool.

import { type Principal, scopeCanIngest } from "../control";
import type { ErrorCode } from "../shared/errors";
import { TxrayError } from "../shared/errors";
import { encodeSpoolBatch, spoolLinePrefix } from "../spool";
import type { NativeEncoder } from "./native";
import { validateIngestBody } from "./validate";

/** `programs`: the distinct programs the batch names, in first-named order (the route checks the account's quota). */
export type PreparedBatch =
  | { ok: true; keyId: string; accountId: string; programs: string[]; accepted: number; lines: Uint8Array }
  | { ok: false; code: ErrorCode; message: string };

export type PrepareRequest = {
  body: Uint8Array;
  /** The `x-api-key` header, which wins over the body's `apiKey`. */
  headerKey: string | null;
  receivedAt: number;
};

export type PrepareDeps = {
  /** The principal of a presented key (a cache in front of the control database), or null. */
  principal: (presentedKey: string) => Principal | null;
  maxBatch: number;
  /** The native fast path (src/ingest/native), when built; batches it does not take go the JavaScript way. */
  native?: NativeEncoder | null;
};

const decoder = new TextDecoder();

/** Never throws for bad input: every refusal is a value the route renders as the error body of docs/api.md#errors. */
export function prepareBatch(request: PrepareRequest, given: PrepareDeps): PreparedBatch {
  // The native path and its JavaScript fallback may ask for the same key: look it up once.
  let looked: { key: string; principal: Principal | null } | null = null;
  const principal = (key: string) =>
    looked?.key === key ? looked.principal : (looked = { key, principal: given.principal(key) }).principal;
  const deps = { ...given, principal };
  if (deps.native) {
    const fast = prepareNatively(request, deps, deps.native);
    if (fast) return fast;
  }
  try {
    return { ok: true, ...prepareOrThrow(request, deps) };
  } catch (error) {
    if (error instanceof TxrayError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/** The body's apiKey when it is the first member (the usual shape); else the JavaScript path finds it. */
const LEADING_BODY_KEY = /^[ \t\n\r]*\{[ \t\n\r]*"apiKey"[ \t\n\r]*:[ \t\n\r]*"([\x20\x21\x23-\x5b\x5d-\x7e]{1,128})"/;
const encoder = new TextEncoder();

/**
 * Accepts only: a key that authenticates as an ingest or admin key, and a batch the native encoder takes whole.
 * Every refusal and every unusual batch is left to prepareOrThrow, so answers never depend on it.
 */
function prepareNatively(request: PrepareRequest, deps: PrepareDeps, native: NativeEncoder): PreparedBatch | null {
  let presented = request.headerKey;
  let bodyKeyOffset = -1;
  if (presented === null) {
    const head = Buffer.from(
      request.body.buffer,
      request.body.byteOffset,
      Math.min(request.body.byteLength, 256),
    ).toString("latin1");
    const match = LEADING_BODY_KEY.exec(head);
    if (!match) return null;
    presented = match[1];
    bodyKeyOffset = match[0].length - 1 - presented.length;
  }
  const principal = deps.principal(presented);
  if (!principal || !scopeCanIngest(principal.scope)) return null;
  const prefix = encoder.encode(spoolLinePrefix(principal.accountId, request.receivedAt, Bun.randomUUIDv7()));
  const encoded = native.encode(request.body, prefix, deps.maxBatch);
  if (!encoded) return null;
  // The key that authenticated must be the body's only apiKey (the encoder refuses repeated keys).
  if (bodyKeyOffset >= 0 && (encoded.apiKeyOffset !== bodyKeyOffset || encoded.apiKeyLength !== presented.length))
    return null;
  return {
    ok: true,
    keyId: principal.keyId,
    accountId: principal.accountId,
    programs: linePrograms(encoded.lines, prefix.byteLength),
    accepted: encoded.count,
    lines: encoded.lines,
  };
}

const TAB = 9;
const NEWLINE = 10;

/**
 * The distinct programs of a batch's encoded spool lines, in line order. Line i is the batch's prefix,
 * i in base 36, a tab, then the program (line-format.ts): base58, so its bytes are its characters. Two
 * searches per line (the program's end, the line's end), and a string only when the program changes.
 */
function linePrograms(lines: Uint8Array, prefixLength: number): string[] {
  const bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
  const programs = new Set<string>();
  let previousAt = 0;
  let previousEnd = 0;
  let digits = 1;
  let nextDigitAt = 36;
  for (let i = 0, start = 0; start < bytes.length; i++) {
    if (i === nextDigitAt) {
      digits++;
      nextDigitAt *= 36;
    }
    const at = start + prefixLength + digits + 1;
    const end = bytes.indexOf(TAB, at);
    if (end - at !== previousEnd - previousAt || bytes.compare(bytes, previousAt, previousEnd, at, end) !== 0) {
      programs.add(bytes.toString("latin1", at, end));
      previousAt = at;
      previousEnd = end;
    }
    start = bytes.indexOf(NEWLINE, end) + 1;
    if (start === 0) break;
  }
  return [...programs];
}

function prepareOrThrow({ body, headerKey, receivedAt }: PrepareRequest, deps: PrepareDeps) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body));
  } catch {
    throw new TxrayError("bad_request", "body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new TxrayError("schema_violation", "(body): expected an object with `envelopes`");
  }

  const record = parsed as Record<string, unknown>;
  const presented = headerKey ?? (typeof record.apiKey === "string" ? record.apiKey : null);
  if (!presented)
    throw new TxrayError("unauthorized", "missing API key: send it in the x-api-key header or the body's apiKey");
  const principal = deps.principal(presented);
  if (!principal) throw new TxrayError("unauthorized", "invalid or revoked API key");
  if (!scopeCanIngest(principal.scope))
    throw new TxrayError("forbidden", "this key is read-only (query-scoped); ingest needs an ingest or admin key");

  if (Array.isArray(record.envelopes) && record.envelopes.length > deps.maxBatch) {
    throw new TxrayError(
      "payload_too_large",
      `envelopes: at most ${deps.maxBatch} envelopes per batch, got ${record.envelopes.length}`,
    );
  }
  const envelopes = validateIngestBody(record);
  // attemptId = the batch's UUIDv7 + the envelope's index: unique, time-ordered, one UUID per batch.
  const lines =
    envelopes.length > 0
      ? encodeSpoolBatch(principal.accountId, receivedAt, Bun.randomUUIDv7(), envelopes)
      : new Uint8Array(0);
  const programs = [...new Set(envelopes.map((envelope) => envelope.program))];
  return { keyId: principal.keyId, accountId: principal.accountId, programs, accepted: envelopes.length, lines };
}
