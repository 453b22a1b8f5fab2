// The spool's line format (version 2): one tab-separated line per accepted envelope, in the order of
// SPOOL_COLUMNS (23 fields since ix_prefix; lines of 22 fields, written before it, are still read: flush
// pads them with null). Ingest builds every line of a batch on its hot path and flush reads them back with
// DuckDB's CSV reader, which is about twice as fast as its JSON reader on the same rows; both sides
// are what the ingest and flush speed targets are made of (bench/README.md).
//
// Encoding, chosen so that no field ever needs CSV quoting:
// - no value (null, an absent optional field): `\N`;
// - base58, hex, numbers, booleans and enums: as they are (validation guaranteed their alphabet);
// - free text: as it is when it is printable ASCII without `"` or `\`; otherwise as a JSON string
//   literal, which starts with `"` (plain text never does) and never holds a raw tab or newline;
// - simulationLogs: a JSON array (`[]` when empty).
// Flush decodes it in spoolRowsSql (src/lake/flush-spool.ts); test/spool/line-format.test.ts checks that
// awkward values (quotes, tabs, newlines, NUL, non-ASCII, lone surrogates) come out intact.

import type { Envelope } from "../shared/envelope";

/** Lake column names in the order a spool line holds them. `program` is also the partition column. */
export const SPOOL_COLUMNS = [
  "account_id",
  "received_at",
  "attempt_id",
  "program",
  "sig",
  "blockhash",
  "last_valid_block_height",
  "sent_at",
  "rpc_hash",
  "rpc_label",
  "wallet_adapter",
  "kind",
  "preflight_error",
  "simulation_logs",
  "payer",
  "sdk_version",
  "cu_limit",
  "cu_price_micro_lamports",
  "max_retries",
  "skip_preflight",
  "send_path",
  "nonce",
  "ix_prefix",
] as const;

/** Spool columns holding free text (decoded by flush when they start with `"`). */
export const SPOOL_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  "account_id",
  "rpc_label",
  "wallet_adapter",
  "preflight_error",
  "sdk_version",
  "send_path",
]);

const NULL = "\\N";
const ENCODER = new TextEncoder();
/** Printable ASCII without `"` or `\\` is written as it is; anything else as a JSON string. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// toWellFormed: a lone surrogate would make the JSON invalid for DuckDB; it becomes U+FFFD, as it does in UTF-8 anyway.
const text = (value: string) => (PLAIN.test(value) ? value : JSON.stringify(value.toWellFormed()));
const optionalText = (value: string | null | undefined) => (value === null || value === undefined ? NULL : text(value));
const optional = (value: number | boolean | undefined) => (value === undefined ? NULL : `${value}`);
const logs = (lines: string[]) =>
  lines.length === 0 ? "[]" : JSON.stringify(lines.map((line) => line.toWellFormed()));

/** What every line of a batch starts with: account, receive time and the batch part of attemptId. */
export function spoolLinePrefix(accountId: string, receivedAt: number, batchId: string): string {
  return `${text(accountId)}\t${receivedAt}\t${batchId}-`;
}

/**
 * The spool bytes of one accepted batch: one template string per line, the lines joined once.
 * Everything from rpcHash on (the "tail": provider, wallet, kind, errors, payer, SDK and send
 * options) is usually the same for every envelope of an SDK's batch, so it is encoded once and
 * reused while it stays the same: about half of the encoding cost on the ingest hot path.
 * (Measured slower: one array of all pieces joined once, a byte-by-byte writer, JSON.stringify per
 * line, and concatenating all lines into one string before turning it into bytes.)
 * attemptId is `<batchId>-<index in base 36>`.
 */
export function encodeSpoolBatch(
  accountId: string,
  receivedAt: number,
  batchId: string,
  envelopes: readonly Envelope[],
): Uint8Array {
  const prefix = spoolLinePrefix(accountId, receivedAt, batchId);
  const lines: string[] = new Array(envelopes.length + 1);
  let previous: Envelope | null = null;
  let tail = "";
  for (let i = 0; i < envelopes.length; i++) {
    const e = envelopes[i];
    if (previous === null || !sameTail(e, previous)) tail = encodeTail(e);
    previous = e;
    lines[i] =
      `${prefix}${i.toString(36)}\t${e.program}\t${e.sig === null ? NULL : e.sig}\t${e.blockhash}\t${e.lastValidBlockHeight}\t${e.sentAt}\t${tail}`;
  }
  lines[envelopes.length] = "";
  return ENCODER.encode(lines.join("\n"));
}

function encodeTail(e: Envelope): string {
  return `${e.rpcHash}\t${text(e.rpcLabel)}\t${text(e.walletAdapter)}\t${e.kind}\t${optionalText(e.preflightError)}\t${logs(e.simulationLogs)}\t${e.payer}\t${text(e.sdkVersion)}\t${optional(e.cuLimit)}\t${optional(e.cuPriceMicroLamports)}\t${optional(e.maxRetries)}\t${optional(e.skipPreflight)}\t${optionalText(e.sendPath)}\t${optional(e.nonce)}\t${e.ixPrefix ?? NULL}`;
}

function sameTail(a: Envelope, b: Envelope): boolean {
  return (
    a.rpcHash === b.rpcHash &&
    a.rpcLabel === b.rpcLabel &&
    a.walletAdapter === b.walletAdapter &&
    a.kind === b.kind &&
    a.preflightError === b.preflightError &&
    a.simulationLogs.length === 0 &&
    b.simulationLogs.length === 0 &&
    a.payer === b.payer &&
    a.sdkVersion === b.sdkVersion &&
    a.cuLimit === b.cuLimit &&
    a.cuPriceMicroLamports === b.cuPriceMicroLamports &&
    a.maxRetries === b.maxRetries &&
    a.skipPreflight === b.skipPreflight &&
    a.sendPath === b.sendPath &&
    a.nonce === b.nonce &&
    a.ixPrefix === b.ixPrefix
  );
}

export type SpoolColumn = (typeof SPOOL_COLUMNS)[number];

/**
 * One spool line back into its fields (what `why` reads of an envelope not flushed yet): `\N` is
 * null, free text written as a JSON string is decoded, simulation_logs stays JSON text. A line of
 * the previous version (22 fields) has no ix_prefix. Null when the line is not one.
 */
export function decodeSpoolLine(line: string): Record<SpoolColumn, string | null> | null {
  const fields = line.split("\t");
  if (fields.length !== SPOOL_COLUMNS.length && fields.length !== SPOOL_COLUMNS.length - 1) return null;
  const out = {} as Record<SpoolColumn, string | null>;
  try {
    SPOOL_COLUMNS.forEach((column, i) => {
      const value = fields[i];
      out[column] =
        value === undefined || value === NULL
          ? null
          : SPOOL_TEXT_COLUMNS.has(column) && value.startsWith('"')
            ? (JSON.parse(value) as string)
            : value;
    });
  } catch {
    return null;
  }
  return out;
}
