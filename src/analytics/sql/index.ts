// Loads the analytics SQL files (one query per question, next to this file) and fills their
// `{{name}}` placeholders with SQL literals: numbers as numbers, strings quoted, string arrays as
// list literals. A missing value is an error, never an empty substitution.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sqlString } from "../../lake/duckdb";

export type SqlValue = number | string | string[];

const cache = new Map<string, string>();

export function sqlFile(name: string, values: Record<string, SqlValue> = {}): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(import.meta.dir, `${name}.sql`), "utf8");
    cache.set(name, text);
  }
  return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`${name}.sql: no value for {{${key}}}`);
    return sqlLiteral(values[key]);
  });
}

export function sqlLiteral(value: SqlValue): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(sqlString).join(", ")}]`;
  return sqlString(value);
}
