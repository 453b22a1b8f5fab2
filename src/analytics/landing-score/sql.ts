// Loads the Landing Score's SQL files (sql/ next to this file) and fills their `{{name}}`
// placeholders with SQL literals, like src/analytics/sql does for the serving tables.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type SqlValue, sqlLiteral } from "../sql";

const cache = new Map<string, string>();

export function scoreSql(name: string, values: Record<string, SqlValue> = {}): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(import.meta.dir, "sql", `${name}.sql`), "utf8");
    cache.set(name, text);
  }
  return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`${name}.sql: no value for {{${key}}}`);
    return sqlLiteral(values[key]);
  });
}
