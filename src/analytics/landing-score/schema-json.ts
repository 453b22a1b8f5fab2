// The JSON Schema of the snapshot (docs/landing-score.schema.json), generated from the zod schema
// of record. `bun run src/analytics/landing-score/schema-json.ts` rewrites the docs file;
// test/analytics/landing-score-files.test.ts fails when the two disagree.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { snapshotSchema } from "./snapshot";

/**
 * The published schema is open: a reader accepts fields a later file adds (schemaVersion changes only when a field
 * changes meaning). The zod schema stays strict, so the writer never adds one it does not declare.
 */
export function snapshotJsonSchema(): string {
  const schema = z.toJSONSchema(snapshotSchema, { target: "draft-2020-12" });
  return `${JSON.stringify(schema, (key, value) => (key === "additionalProperties" && value === false ? undefined : value), 2)}\n`;
}

export const SCHEMA_DOC = join(import.meta.dir, "..", "..", "..", "docs", "landing-score.schema.json");

if (import.meta.main) {
  writeFileSync(SCHEMA_DOC, snapshotJsonSchema());
  console.log(`wrote ${SCHEMA_DOC}`);
}
