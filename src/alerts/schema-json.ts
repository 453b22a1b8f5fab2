// The JSON Schema of the webhook payload (docs/alert-payload.schema.json), generated from the zod
// schema of record (payload.ts). `bun run src/alerts/schema-json.ts` rewrites the docs file;
// test/alerts/units.test.ts fails when the two disagree.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { AlertPayloadSchema } from "./payload";

export function payloadJsonSchema(): string {
  // As input: a receiver must accept fields it does not know yet (no additionalProperties: false).
  return `${JSON.stringify(z.toJSONSchema(AlertPayloadSchema, { target: "draft-2020-12", io: "input" }), null, 2)}\n`;
}

export const PAYLOAD_SCHEMA_DOC = join(import.meta.dir, "..", "..", "docs", "alert-payload.schema.json");

if (import.meta.main) {
  writeFileSync(PAYLOAD_SCHEMA_DOC, payloadJsonSchema());
  console.log(`wrote ${PAYLOAD_SCHEMA_DOC}`);
}
