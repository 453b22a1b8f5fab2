// The web app keeps its own copy of the well-known program names (it imports nothing of the
// server): every name it shows is the server's name for that program (chain/decode PROGRAM_NAMES,
// which the call stack, the Landing Score and chat use), so one program never reads two ways.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROGRAM_NAMES } from "../../src/chain/decode";

test("the web app's program names are the server's", () => {
  const source = readFileSync(join(import.meta.dir, "..", "..", "src", "web", "format.ts"), "utf8");
  const table = /const NAMES: Record<string, string> = \{([\s\S]*?)\n\};/.exec(source)![1];
  const entries = [...table.matchAll(/^\s+"?([1-9A-HJ-NP-Za-km-z]{32,44})"?: "([^"]+)",$/gm)].map((m) => [m[1], m[2]]);
  expect(entries.length).toBeGreaterThan(8);
  for (const [program, name] of entries) expect({ program, name }).toEqual({ program, name: PROGRAM_NAMES[program] });
});
