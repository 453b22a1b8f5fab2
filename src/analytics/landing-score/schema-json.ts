// The JSON Schema of the snapshot (docs/landing-score.schema.json), generated from the zod schema
// of record. `bun run src/analytics/landing-score/schema-json.ts` rewrites the docs file;
// test/analytics/landing-score-files.test.ts fails when the two disagree.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { snapshotSchema } from "./snapshot";

export function snapshotJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(snapshotSchema, { target: "draft-2020-12" }), null, 2)}\n`;
}

export const SCHEMA_DOC = join(import.meta.dir, "..", "..", "..", "docs", "landing-score.schema.json");

if (import.meta.main) {
  writeFileSync(SCHEMA_DOC, snapshotJsonSchema());
  console.log(`wrote ${SCHEMA_DOC}`);
}
