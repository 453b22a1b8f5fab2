// The JSON Schema a tool advertises for a zod schema, in the form every strict MCP client accepts:
// JSON Schema 2020-12, the MCP default dialect (SEP-1613), written without `$schema` since the
// default needs no declaration; shared components under `$defs`; one `type` per schema (a nullable
// is `anyOf: [{type: X}, {type: "null"}]`, as clients that map schemas onto a single-type dialect,
// such as Gemini's function declarations, require); and no schema without a type: a loose object's
// `additionalProperties: {}` says nothing the default does not, so it is left out, and a value of
// any shape (a job's `details`) is the `anyOf` of every JSON type. A tuple is an array of its
// members' schema and its length: 2020-12's `prefixItems` beside `items: false` reads, to a
// draft-07 validator (the SDK client's default), as an array that may hold nothing, and its
// draft-07 spelling `items: [...]` is invalid in 2020-12. The SDK's own conversion writes
// draft-07 with none of this, so tools/list answers from here instead.

import { z } from "zod";

type JsonSchema = { [keyword: string]: unknown };

/** Keywords that describe the whole schema rather than constrain one type: they stay beside the `anyOf`. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "deprecated", "readOnly", "$comment"]);

/** The keywords that constrain values of one type only, so they belong in that type's branch. */
const KEYWORDS_OF_TYPE: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
  ],
};

/** Whether a JSON value is of a JSON Schema type (for splitting an `enum` or `const` across branches). */
function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** `{type: [A, B, …], …}` as `{anyOf: [{type: A, …}, {type: B, …}], annotations}`. */
function splitTypes(schema: JsonSchema, types: string[]): JsonSchema {
  const whole: JsonSchema = {};
  const shared: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "type") continue;
    if (ANNOTATIONS.has(keyword)) whole[keyword] = value;
    else if (!Object.values(KEYWORDS_OF_TYPE).some((keywords) => keywords.includes(keyword))) shared[keyword] = value;
  }
  const branches = types.map((type) => {
    const branch: JsonSchema = { type };
    for (const keyword of KEYWORDS_OF_TYPE[type] ?? []) if (keyword in schema) branch[keyword] = schema[keyword];
    for (const [keyword, value] of Object.entries(shared)) {
      if (keyword === "enum") branch.enum = (value as unknown[]).filter((member) => isOfType(member, type));
      else if (keyword === "const") {
        if (isOfType(value, type)) branch.const = value;
      } else branch[keyword] = value;
    }
    return branch;
  });
  return { anyOf: branches, ...whole };
}

const isSchemaObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isEmptySchema = (value: unknown) => isSchemaObject(value) && Object.keys(value).length === 0;

/** Keywords whose value is a map of names to schemas, rather than a schema or a list of them. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
/** Keywords whose value is data, never a schema, so the walk leaves them as they are. */
const DATA_KEYWORDS = new Set(["type", "enum", "const", "examples", "default", "required"]);

/** Keywords that say what type a schema's values have. */
const TYPING_KEYWORDS = ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"];
/** Any JSON value, spelled with one type per branch. */
const ANY_JSON_VALUE = ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type }));

/** A tuple's `prefixItems` (and any rest `items`) folded into one `items` schema; minItems and maxItems keep its length. */
function withoutTuple(schema: JsonSchema): void {
  const members = [...(schema.prefixItems as JsonSchema[]), ...(isSchemaObject(schema.items) ? [schema.items] : [])];
  const distinct = [...new Map(members.map((member) => [JSON.stringify(member), member])).values()];
  delete schema.prefixItems;
  schema.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

function portable(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "$schema") continue;
    if (keyword === "additionalProperties" && isEmptySchema(value)) continue;
    if (DATA_KEYWORDS.has(keyword) || typeof value !== "object" || value === null) out[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword))
      out[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => [name, portable(sub)]),
      );
    else if (Array.isArray(value)) out[keyword] = value.map((sub) => (isSchemaObject(sub) ? portable(sub) : sub));
    else out[keyword] = portable(value as JsonSchema);
  }
  if (Array.isArray(out.prefixItems)) withoutTuple(out);
  if (Array.isArray(out.type)) return splitTypes(out, out.type as string[]);
  if (!TYPING_KEYWORDS.some((keyword) => keyword in out)) return { anyOf: ANY_JSON_VALUE, ...out };
  return out;
}

/**
 * A tool's inputSchema (`io: "input"`) or outputSchema (`io: "output"`) for a zod object schema.
 * Components with an id in zod's registry (CallFrame, Issue, …) become `$defs`, referenced as
 * `#/$defs/Name`.
 */
export function toolJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return portable(z.toJSONSchema(schema, { target: "draft-2020-12", io }) as JsonSchema);
}
