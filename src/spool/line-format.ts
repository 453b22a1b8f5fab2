// The spool's line format (version 2): one tab-separated line per accepted envelope, in the order of
// SPOOL_COLUMNS: the server's columns, then one per envelope field of the field table
// (src/shared/envelope-fields.ts), which appends new fields at its end. A line written before the
// table's last fields (down to OLDEST_SPOOL_LINE_COLUMNS) is still read: flush pads it with null. Ingest builds every
// line of a batch on its hot path and flush reads them back with DuckDB's CSV reader, which is about
// twice as fast as its JSON reader on the same rows; both sides are what the ingest and flush speed
// targets are made of (bench/README.md).
//
// Encoding, chosen so that no field ever needs CSV quoting:
// - no value (null, an absent optional field): `\N`;
// - base58, hex, numbers, booleans and enums: as they are (validation guaranteed their alphabet);
// - free text: as it is when it is printable ASCII without `"` or `\`; otherwise as a JSON string
//   literal, which starts with `"` (plain text never does) and never holds a raw tab or newline;
// - simulationLogs: a JSON array (`[]` when empty).
// Flush decodes it in spoolRowsSql (src/lake/flush-spool.ts); test/spool/line-format.test.ts checks that
// awkward values (quotes, tabs, newlines, NUL, non-ASCII, lone surrogates) come out intact.

import { ENVELOPE_FIELDS, type Envelope } from "../shared/envelope-fields";

type EnvelopeField = (typeof ENVELOPE_FIELDS)[number];
/** The columns every line starts with, which the server assigns (spoolLinePrefix). */
const SERVER_COLUMNS = ["account_id", "received_at", "attempt_id"] as const;
/** The partition column (`program`) first, then every other envelope field in the table's order. */
const LINE_FIELDS: readonly EnvelopeField[] = [
  ...ENVELOPE_FIELDS.filter(({ lake }) => "partition" in lake),
  ...ENVELOPE_FIELDS.filter(({ lake }) => !("partition" in lake)),
];

export type SpoolColumn = (typeof SERVER_COLUMNS)[number] | EnvelopeField["lake"]["column"];

/** Lake column names in the order a spool line holds them. `program` is also the partition column. */
export const SPOOL_COLUMNS: readonly SpoolColumn[] = [...SERVER_COLUMNS, ...LINE_FIELDS.map(({ lake }) => lake.column)];

/**
 * Columns of the shortest line still read: version 2's first lines, written before `ix_prefix` and
 * `nonce_account` existed (the native flush writer's SPOOL_OLDEST_FIELDS).
 */
export const OLDEST_SPOOL_LINE_COLUMNS = SPOOL_COLUMNS.indexOf("ix_prefix");

/** Spool columns holding free text (decoded by flush when they start with `"`). */
export const SPOOL_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  "account_id",
  ...LINE_FIELDS.filter((field) => field.kind === "text").map(({ lake }) => lake.column),
]);

const NULL = "\\N";
const ENCODER = new TextEncoder();
/** Printable ASCII without `"` or `\\` is written as it is; anything else as a JSON string. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// toWellFormed: a lone surrogate would make the JSON invalid for DuckDB; it becomes U+FFFD, as it does in UTF-8 anyway.
const text = (value: string) => (PLAIN.test(value) ? value : JSON.stringify(value.toWellFormed()));
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
 * line, concatenating all lines into one string before turning it into bytes, and a loop over the
 * fields instead of the compiled code below.)
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
    lines[i] = encodeLine(prefix, i, e, tail);
  }
  lines[envelopes.length] = "";
  return ENCODER.encode(lines.join("\n"));
}

/** The first field of a line's tail; the fields before it (program, sig, blockhash, …) vary per attempt. */
const TAIL_FROM = "rpcHash";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

type LineEncoder = {
  encodeLine: (prefix: string, index: number, e: Envelope, tail: string) => string;
  encodeTail: (e: Envelope) => string;
  sameTail: (a: Envelope, b: Envelope) => boolean;
};

/**
 * The line's code, compiled from the table once, at load: the template strings and the comparison
 * one would write by hand, field by field (the source holds only the table's names, checked to be
 * identifiers; the helpers come in as arguments).
 */
function compileLineEncoder(): LineEncoder {
  for (const { name } of LINE_FIELDS)
    if (!IDENTIFIER.test(name)) throw new Error(`envelope table: "${name}" is not an identifier`);
  const tailAt = LINE_FIELDS.findIndex(({ name }) => name === TAIL_FROM);
  const head = LINE_FIELDS.slice(0, tailAt);
  const tail = LINE_FIELDS.slice(tailAt);
  const value = (field: EnvelopeField) => {
    const x = `e.${field.name}`;
    const written = field.kind === "text" ? `text(${x})` : field.kind === "lines" ? `logs(${x})` : x;
    const absent = [field.nullable && `${x} === null`, !field.required && `${x} === undefined`].filter(Boolean);
    return `\${${absent.length === 0 ? written : `${absent.join(" || ")} ? NULL : ${written}`}}`;
  };
  const same = (field: EnvelopeField) =>
    field.kind === "lines"
      ? `a.${field.name}.length === 0 && b.${field.name}.length === 0`
      : `a.${field.name} === b.${field.name}`;
  const source = `return {
  encodeLine: (prefix, i, e, tail) => \`\${prefix}\${i.toString(36)}\\t${head.map(value).join("\\t")}\\t\${tail}\`,
  encodeTail: (e) => \`${tail.map(value).join("\\t")}\`,
  sameTail: (a, b) => ${tail.map(same).join(" && ")},
};`;
  return new Function("text", "logs", "NULL", source)(text, logs, NULL);
}

const { encodeLine, encodeTail, sameTail } = compileLineEncoder();

/**
 * One spool line back into its fields (what `why` reads of an envelope not flushed yet): `\N` is
 * null, free text written as a JSON string is decoded, simulation_logs stays JSON text. A line a few
 * columns short (written before the table's last fields) has those fields null. Null when the line is not one.
 */
export function decodeSpoolLine(line: string): Record<SpoolColumn, string | null> | null {
  const fields = line.split("\t");
  if (fields.length > SPOOL_COLUMNS.length || fields.length < OLDEST_SPOOL_LINE_COLUMNS) return null;
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
