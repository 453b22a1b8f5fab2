// The wire contract's zod schema: the telemetry envelope (docs/architecture.md, "The envelope"; fields in
// docs/api.md), derived from the field table (./envelope-fields.ts), which is its one definition. It is
// the schema of record: src/ingest/validate.ts falls back to it for a batch its fast check refuses,
// so that every 400 names the field, and the OpenAPI document (src/contract/openapi.ts) renders it.
// The SDK imports only the Envelope type from here (so zod stays out of its bundle), and the limits it
// truncates to from ./envelope-limits.ts.
//
// Unknown fields are ignored and not stored: a newer SDK may send fields an older server does not
// know, and that must not turn its telemetry into 400s (docs/api.md, "Forward compatibility").

import { z } from "zod";
import { isBase58Address, isBase58Signature } from "./base58";
import {
  ENVELOPE_FIELDS,
  type Envelope,
  type EnvelopeField,
  type EnvelopeFieldName,
  envelopeField,
  hexPattern,
} from "./envelope-fields";
import { ENVELOPE_LIMITS } from "./envelope-limits";

export type { Envelope } from "./envelope-fields";
export { ENVELOPE_LIMITS };

export const isAddress = isBase58Address;

/** A payer under privacy: "hash": lower-case hex of a salted SHA-256. */
export const HASHED_PAYER = hexPattern(envelopeField("payer").hexDigits, false);

/** One field's schema; the order of the checks is the order of the issues a bad value gets. */
function fieldSchema(field: EnvelopeField): z.ZodType {
  let schema: z.ZodType;
  switch (field.kind) {
    case "base58":
      schema = z
        .string()
        .max(field.maxLength)
        .refine(field.bytes === 64 ? isBase58Signature : isAddress, field.message);
      break;
    case "base58-or-hex":
      schema = z
        .string()
        .max(field.maxLength)
        .refine((text) => HASHED_PAYER.test(text) || isAddress(text), field.message);
      break;
    case "hex": {
      // A fixed length is the pattern's alone: a wrong length reads "expected 16 … hex characters".
      const text = field.digits.min === field.digits.max ? z.string() : z.string().max(field.digits.max);
      schema = text.regex(hexPattern(field.digits, field.wholeBytes), field.message);
      break;
    }
    case "text":
      schema = (field.minLength > 0 ? z.string().min(field.minLength) : z.string()).max(field.maxLength);
      break;
    case "integer":
      schema = z.number().int().min(field.min).max(field.max);
      break;
    case "boolean":
      schema = z.boolean();
      break;
    case "enum":
      schema = z.enum(field.values as [string, ...string[]]);
      break;
    case "lines":
      schema = z.array(z.string().max(field.maxLineLength)).max(field.maxLines);
      break;
  }
  if (field.nullable) schema = schema.nullable();
  return field.required ? schema : schema.optional();
}

/** A field's schema type: optional fields are ZodOptional, so that zod's inferred types make them optional keys. */
type FieldSchema<N extends EnvelopeFieldName> = undefined extends Envelope[N]
  ? z.ZodOptional<z.ZodType<Exclude<Envelope[N], undefined>>>
  : z.ZodType<Envelope[N]>;

const shape = Object.fromEntries(ENVELOPE_FIELDS.map((field) => [field.name, fieldSchema(field)])) as {
  [N in EnvelopeFieldName]: FieldSchema<N>;
};

/** The rules across fields, which the table cannot say: what kind implies for preflightError and sig. */
export const envelopeSchema = z.object(shape).superRefine((envelope, context) => {
  if (envelope.kind === "preflight" && envelope.preflightError === null) {
    context.addIssue({ code: "custom", path: ["preflightError"], message: 'required when kind is "preflight"' });
  }
  if (envelope.kind === "send" && envelope.preflightError !== null) {
    context.addIssue({ code: "custom", path: ["preflightError"], message: 'must be null when kind is "send"' });
  }
  if (envelope.kind === "send" && envelope.sig === null) {
    context.addIssue({ code: "custom", path: ["sig"], message: 'null only when kind is "preflight"' });
  }
});

export const ingestBodySchema = z.object({
  apiKey: z.string().max(128).optional(),
  envelopes: z.array(envelopeSchema),
});
