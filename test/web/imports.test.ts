// The web app is a client of the /v1 HTTP API like any other: nothing under src/web may import a
// server module (only other src/web files and browser-safe npm packages), checked on the sources and
// on what the bundler actually pulled in.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { buildWebBundle } from "../../src/api/web";

const root = resolve(import.meta.dir, "../..");
const web = join(root, "src/web");
const ALLOWED_PACKAGES = ["uplot"];

const sources = readdirSync(web, { recursive: true })
  .map((name) => join(web, String(name)))
  .filter((file) => /\.(ts|html|css)$/.test(file));

function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [
    ...[...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]),
    ...[...text.matchAll(/(?:src|href)="(\.[^"]+)"/g)].map((m) => m[1]),
  ];
}

describe("src/web imports no server module", () => {
  test("relative imports stay inside src/web; packages are browser-side ones", () => {
    const offending: string[] = [];
    for (const file of sources) {
      for (const spec of specifiers(file)) {
        if (spec.startsWith(".")) {
          const target = resolve(dirname(file), spec);
          if (!target.startsWith(`${web}/`)) offending.push(`${relative(root, file)} → ${relative(root, target)}`);
        } else if (!ALLOWED_PACKAGES.some((name) => spec === name || spec.startsWith(`${name}/`))) {
          offending.push(`${relative(root, file)} → package ${spec}`);
        }
      }
    }
    expect(offending).toEqual([]);
    expect(sources.length).toBeGreaterThan(5);
  });

  test("the bundle carries no server code", async () => {
    const bundle = await buildWebBundle();
    const js = [...bundle.assets]
      .filter(([name]) => name.endsWith(".js"))
      .map(([, a]) => new TextDecoder().decode(a.body))
      .join("\n");
    expect(js.length).toBeGreaterThan(1000);
    for (const marker of ["duckdb", "bun:sqlite", "node:fs", "elysia", "litesvm", "createHmac"])
      expect(js).not.toContain(marker);
    const html = new TextDecoder().decode(bundle.index.body);
    expect(html).not.toMatch(/https?:\/\//); // no CDN: everything is served by txray
  });
});
