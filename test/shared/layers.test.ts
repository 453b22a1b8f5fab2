// The query layer and everything beneath it serve HTTP, MCP, the web app and the chat bot alike, so
// none of it may depend on one surface. This walks the imports of every module below the surfaces.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");
const below = ["src/analytics", "src/chain", "src/lake", "src/ingest", "src/control", "src/shared", "src/context.ts"];
const surfaces = ["src/api", "src/mcp", "src/chat", "src/web", "src/cli"];

function files(path: string): string[] {
  const full = join(root, path);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full, { recursive: true })
    .map((name) => join(full, String(name)))
    .filter((file) => file.endsWith(".ts"));
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((match) => relative(root, resolve(dirname(file), match[1])));
}

describe("layers", () => {
  test("nothing below the surfaces imports a surface", () => {
    const offending: string[] = [];
    for (const area of below)
      for (const file of files(area))
        for (const target of importsOf(file))
          if (surfaces.some((surface) => target === surface || target.startsWith(`${surface}/`))) offending.push(`${relative(root, file)} → ${target}`);
    expect(offending).toEqual([]);
  });
});
