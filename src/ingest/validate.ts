// Batch validation on the ingest hot path. envelopeSchema (zod) is the schema of record and the
// source of every error message, but at ~4 µs per envelope it would cap one core far below the
// ingest target. So a fast check that mirrors it exactly runs first; only a batch that fails it
// goes through zod, to name the offending field. test/ingest/validate.test.ts fuzzes both side by
// side: same verdict, same output, for valid and mutated envelopes.
//
// Both are derived from the envelope's field table (src/shared/envelope-fields.ts). The fast check
// is compiled from it once, at load, into the straight-line code one would write by hand (one `if`
// per field, the output as one object literal): a loop over the table with a check function per
// field, reading and writing every property by a computed key, ran at less than half the speed
// (measured side by side). `checkFields.toString()` is the compiled code.

import { isBase58OfLength } from "../shared/base58";
import { ingestBodySchema } from "../shared/envelope";
import { ENVELOPE_FIELDS, type Envelope, type EnvelopeField, hexPattern } from "../shared/envelope-fields";
import { describeIssues, TxrayError } from "../shared/errors";

const isString = (value: unknown, max: number, min = 0): value is string =>
  typeof value === "string" && value.length <= max && value.length >= min;
const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;

function linesOk(value: unknown, maxLines: number, maxLineLength: number): boolean {
  if (!Array.isArray(value) || value.length > maxLines) return false;
  for (const line of value) if (!isString(line, maxLineLength)) return false;
  return true;
}

/**
 * Addresses already checked in this batch, by field name: an SDK's batch mostly repeats one
 * program, blockhash and payer, and comparing with the previous envelope's value is far cheaper
 * than re-checking. Every 32-byte base58 field is remembered (a signature never repeats).
 */
export type SeenAddresses = Record<string, string | null>;

const REMEMBERED: readonly string[] = ENVELOPE_FIELDS.filter(
  (field: EnvelopeField) => (field.kind === "base58" && field.bytes === 32) || field.kind === "base58-or-hex",
).map((field) => field.name);

const newSeen = (): SeenAddresses => Object.fromEntries(REMEMBERED.map((name) => [name, null]));

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A number of the table as source text (only finite numbers ever reach the compiled code). */
function literal(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`envelope table: ${value} is not a finite number`);
  return String(value);
}

/** The field check and output of the fast path, compiled from the table; null when a field is off. */
const checkFields = compileFieldCheck();

/** The envelope with only the schema's fields, in the schema's order; null when anything is off. */
export function fastEnvelope(value: unknown, seen: SeenAddresses = newSeen()): Envelope | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const envelope = checkFields(value as Record<string, unknown>, seen);
  // The rules across fields (as envelopeSchema's superRefine): kind decides preflightError, and sig.
  if (
    envelope === null ||
    (envelope.kind === "preflight"
      ? envelope.preflightError === null
      : envelope.preflightError !== null || envelope.sig === null)
  )
    return null;
  return envelope;
}

/** The batch's envelopes, or a schema_violation naming the first offending fields. */
export function validateIngestBody(body: Record<string, unknown>): Envelope[] {
  const raw = body.envelopes;
  if (Array.isArray(raw) && (body.apiKey === undefined || isString(body.apiKey, 128))) {
    const envelopes: Envelope[] = new Array(raw.length);
    const seen = newSeen();
    let ok = true;
    for (let i = 0; i < raw.length && ok; i++) {
      const envelope = fastEnvelope(raw[i], seen);
      if (envelope === null) ok = false;
      else envelopes[i] = envelope;
    }
    if (ok) return envelopes;
  }
  const parsed = ingestBodySchema.safeParse(body);
  if (!parsed.success) throw new TxrayError("schema_violation", describeIssues(parsed.error.issues));
  return parsed.data.envelopes; // unreachable unless the two checks disagree; zod has the last word
}

/**
 * One `if` per field in the table's order, then the output object. The source holds only the
 * table's names (checked to be identifiers), numbers and JSON strings; regular expressions and
 * helpers come in as arguments.
 */
function compileFieldCheck(): (v: Record<string, unknown>, seen: SeenAddresses) => Envelope | null {
  const patterns: RegExp[] = [];
  const pattern = (regex: RegExp) => `pattern${patterns.push(regex) - 1}`;
  const lines: string[] = [];
  let optionalSeen = false;
  for (const field of ENVELOPE_FIELDS as readonly EnvelopeField[]) {
    if (!IDENTIFIER.test(field.name)) throw new Error(`envelope table: "${field.name}" is not an identifier`);
    if (field.required && optionalSeen)
      throw new Error(`envelope table: required field ${field.name} after an optional one (zod's output order)`);
    optionalSeen ||= !field.required;
    // Each field is read once, into a local of its own (prefixed, so that no name shadows a helper).
    const x = `field_${field.name}`;
    lines.push(`const ${x} = v.${field.name};`);
    const remembered = REMEMBERED.includes(field.name);
    /** A string, the batch's previous value of the field when it is remembered, else checked. */
    const address = (maxLength: number, check: string) => {
      const checked = `${x}.length <= ${literal(maxLength)} && ${check}`;
      return `typeof ${x} === "string" && ${remembered ? `(${x} === seen.${field.name} || (${checked}))` : checked}`;
    };
    let ok: string;
    switch (field.kind) {
      case "base58":
        ok = address(field.maxLength, `isBase58OfLength(${x}, ${literal(field.bytes)})`);
        break;
      case "base58-or-hex":
        ok = address(
          field.maxLength,
          `(${pattern(hexPattern(field.hexDigits, false))}.test(${x}) || isBase58OfLength(${x}, 32))`,
        );
        break;
      case "hex":
        ok =
          field.digits.min === field.digits.max
            ? `typeof ${x} === "string" && ${pattern(hexPattern(field.digits, field.wholeBytes))}.test(${x})`
            : `isString(${x}, ${literal(field.digits.max)}) && ${pattern(hexPattern(field.digits, field.wholeBytes))}.test(${x})`;
        break;
      case "text":
        ok = `isString(${x}, ${literal(field.maxLength)}, ${literal(field.minLength)})`;
        break;
      case "integer":
        ok = `isInt(${x}, ${literal(field.min)}, ${literal(field.max)})`;
        break;
      case "boolean":
        ok = `typeof ${x} === "boolean"`;
        break;
      case "enum":
        ok = field.values.map((value) => `${x} === ${JSON.stringify(value)}`).join(" || ");
        break;
      case "lines":
        ok = `linesOk(${x}, ${literal(field.maxLines)}, ${literal(field.maxLineLength)})`;
        break;
    }
    if (field.nullable) ok = `${x} === null || (${ok})`;
    if (!field.required) ok = `${x} === undefined || (${ok})`;
    lines.push(`if (!(${ok})) return null;`);
    if (remembered) lines.push(`seen.${field.name} = ${x};`);
  }
  const required = ENVELOPE_FIELDS.filter((field) => field.required).map(({ name }) => `${name}: field_${name}`);
  lines.push(`const out = { ${required.join(", ")} };`);
  for (const { name } of ENVELOPE_FIELDS.filter((field) => !field.required))
    lines.push(`if (field_${name} !== undefined) out.${name} = field_${name};`);
  lines.push("return out;");
  const body = `return function checkFields(v, seen) {\n  ${lines.join("\n  ")}\n};`;
  const names = patterns.map((_, i) => `pattern${i}`);
  const make = new Function("isString", "isInt", "linesOk", "isBase58OfLength", ...names, body);
  return make(isString, isInt, linesOk, isBase58OfLength, ...patterns);
}
