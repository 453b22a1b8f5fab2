// Every tool's inputSchema and outputSchema, as tools/list answers them, in the form strict MCP
// clients accept: JSON Schema 2020-12 (the MCP default dialect, valid against its meta-schema), one
// `type` per schema (nullables as anyOf), no empty schema, a type on every property, no draft-07
// `definitions` or tuple `items`, no `prefixItems` (which the SDK client's draft-07 validator
// misreads). The checker is written here, apart from the converter, so that it
// judges the converter rather than repeats it.

import { expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import Ajv2020 from "ajv/dist/2020";
import type { QuestionDeps } from "../../src/contract";
import { QUESTIONS } from "../../src/contract/questions";
import { createMcpServer } from "../../src/mcp";

type JsonSchema = { [keyword: string]: unknown };

/**
 * Where a schema is not portable, one line per place: a `type` list, an empty schema, draft-07's
 * `definitions` or tuple `items: [...]`, a `$schema` other than 2020-12, a property without a type.
 */
function portabilityProblems(schema: unknown, path = "#"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const node = schema as JsonSchema;
  const problems: string[] = [];
  if (Object.keys(node).length === 0) problems.push(`${path}: empty schema`);
  if (Array.isArray(node.type)) problems.push(`${path}: type list ${JSON.stringify(node.type)}`);
  if ("definitions" in node) problems.push(`${path}: draft-07 definitions`);
  if (Array.isArray(node.items)) problems.push(`${path}: draft-07 tuple items`);
  // Beside `items: false`, a draft-07 validator (the SDK client's default) reads it as an empty array.
  if ("prefixItems" in node) problems.push(`${path}: 2020-12 tuple prefixItems`);
  if (typeof node.$schema === "string" && node.$schema !== "https://json-schema.org/draft/2020-12/schema")
    problems.push(`${path}: $schema ${node.$schema}`);
  for (const [keyword, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(keyword) || typeof value !== "object" || value === null) continue;
    if (SCHEMA_MAPS.has(keyword) || keyword === "definitions") {
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        if (keyword === "properties" && !hasType(sub)) problems.push(`${path}/properties/${name}: no type`);
        problems.push(...portabilityProblems(sub, `${path}/${keyword}/${name}`));
      }
    } else if (Array.isArray(value)) {
      for (const [index, sub] of value.entries())
        problems.push(...portabilityProblems(sub, `${path}/${keyword}/${index}`));
    } else problems.push(...portabilityProblems(value, `${path}/${keyword}`));
  }
  return problems;
}

/** A schema says what type its values have: `type`, or alternatives, a reference, an `enum` or a `const`. */
function hasType(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  return ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"].some((keyword) => keyword in schema);
}
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const DATA_KEYWORDS = new Set(["type", "enum", "const", "examples", "default", "required"]);

/**
 * tools/list as a client receives it, from a server in this process (listing reads no data). The
 * client compiles no validators (a second of CPU): mcp.test.ts validates real answers against these.
 */
async function listedTools() {
  const server = createMcpServer({} as QuestionDeps, null);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const acceptAll = { getValidator: () => (data: unknown) => ({ valid: true, data, errorMessage: undefined }) };
  const client = new Client({ name: "txray-test", version: "0" }, { jsonSchemaValidator: acceptAll as never });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

test("every tool's input and output schema is portable JSON Schema 2020-12", async () => {
  const tools = await listedTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(
    [...QUESTIONS.map((question) => question.name), "issue_list", "set_issue_state"].sort(),
  );
  const schemas = tools.flatMap((tool) => [
    { tool: tool.name, which: "inputSchema", schema: tool.inputSchema },
    { tool: tool.name, which: "outputSchema", schema: tool.outputSchema },
  ]);
  const problems = schemas.flatMap(({ tool, which, schema }) =>
    portabilityProblems(schema).map((problem) => `${tool} ${which} ${problem}`),
  );
  expect(problems).toEqual([]);
  const ajv = new Ajv2020({ strict: false });
  for (const { tool, which, schema } of schemas) {
    expect({ tool, which, type: schema?.type }).toEqual({ tool, which, type: "object" });
    expect({ tool, which, valid: ajv.validateSchema(schema as object) }).toEqual({ tool, which, valid: true });
  }
});

test("the checker finds each construct it forbids", () => {
  const problems = portabilityProblems({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      nullable: { type: ["string", "null"] },
      anything: {},
      pair: { type: "array", items: [{ type: "number" }, { type: "number" }] },
      interval: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
      loose: { type: "object", additionalProperties: {} },
    },
    definitions: { Frame: { type: "object" } },
  });
  expect(problems).toEqual([
    "#: draft-07 definitions",
    "#: $schema http://json-schema.org/draft-07/schema#",
    '#/properties/nullable: type list ["string","null"]',
    "#/properties/anything: no type",
    "#/properties/anything: empty schema",
    "#/properties/pair: draft-07 tuple items",
    "#/properties/interval: 2020-12 tuple prefixItems",
    "#/properties/loose/additionalProperties: empty schema",
  ]);
});
