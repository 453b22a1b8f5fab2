// The layout's rules, checked on the imports: the folder table of docs/architecture.md (each folder
// of src/ with its level) is read from the page itself, so the rules a newcomer reads are the rules
// the code is held to. Checked: arrows only point to lower levels; no cycle among src/ files; src/
// never imports development tools or tests; a folder with an index.ts is imported through it; src/web
// is apart. The checker itself is tried on small made-up trees, so a rule that stopped firing fails.

import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

type Rules = { levels: Map<string, number | null> };
type Tree = { files: Map<string, string>; isFile(path: string): boolean };

/** The folder table of docs/architecture.md: `| level | \`src/x\` | owns |` rows. */
function rulesFromDocs(markdown: string): Rules {
  const levels = new Map<string, number | null>();
  for (const match of markdown.matchAll(/^\| (\d+|—) \| `(src\/[a-z-]+)` \|/gm))
    levels.set(match[2], match[1] === "—" ? null : Number(match[1]));
  return { levels };
}

function importsOf(text: string): string[] {
  const specs: string[] = [];
  for (const match of text.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm,
  )) {
    specs.push(match[1] ?? match[2] ?? match[3]);
  }
  return specs;
}

/** The file an import names (relative imports only), or the path as written when nothing matches. */
function resolveImport(tree: Tree, from: string, spec: string): string {
  const base = normalize(join(dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) if (tree.isFile(candidate)) return candidate;
  return base;
}

const folderOf = (path: string) => path.split("/").slice(0, 2).join("/");

function violations(tree: Tree, rules: Rules): string[] {
  const found: string[] = [];
  const graph = new Map<string, string[]>();
  for (const [file, text] of tree.files) {
    if (!file.startsWith("src/")) continue;
    const folder = folderOf(file);
    if (!rules.levels.has(folder) && file.split("/").length > 2)
      found.push(`${folder}: not in the folder table of docs/architecture.md`);
    const edges: string[] = [];
    for (const spec of importsOf(text)) {
      if (!spec.startsWith(".")) continue;
      const target = resolveImport(tree, file, spec);
      if (!target.startsWith("src/")) {
        if (!/\.(json)$/.test(target)) found.push(`${file} → ${target}: src/ imports only src/`);
        continue;
      }
      edges.push(target);
      const targetFolder = folderOf(target);
      if (targetFolder !== folder) {
        const from = rules.levels.get(folder);
        const to = rules.levels.get(targetFolder);
        if (from === null || to === null) found.push(`${file} → ${target}: src/web is apart`);
        else if (from !== undefined && to !== undefined && !(to < from))
          found.push(`${file} → ${target}: level ${from} imports level ${to}`);
      }
      // Public surfaces: the outermost folder of the target that has an index.ts and does not hold the importer.
      const parts = target.split("/");
      for (let i = 2; i < parts.length; i++) {
        const surface = parts.slice(0, i).join("/");
        if (`${dirname(file)}/`.startsWith(`${surface}/`)) continue;
        if (tree.isFile(`${surface}/index.ts`) && target !== `${surface}/index.ts`)
          found.push(`${file} → ${target}: import ${surface} through its index.ts`);
        if (tree.isFile(`${surface}/index.ts`)) break;
      }
    }
    graph.set(file, edges);
  }
  for (const cycle of cyclesOf(graph)) found.push(`cycle: ${cycle.join(" → ")}`);
  return found;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

function repositoryTree(): Tree {
  const files = new Map<string, string>();
  for (const top of ["src", "devkit"]) {
    for (const name of readdirSync(join(root, top), { recursive: true })) {
      const path = `${top}/${String(name)}`;
      if (/\.tsx?$/.test(path) && statSync(join(root, path)).isFile())
        files.set(path, readFileSync(join(root, path), "utf8"));
    }
  }
  return {
    files,
    isFile: (path) => files.has(path) || (existsSync(join(root, path)) && statSync(join(root, path)).isFile()),
  };
}

function madeUpTree(files: Record<string, string>): Tree {
  const map = new Map(Object.entries(files));
  return { files: map, isFile: (path) => map.has(path) };
}

const rules = rulesFromDocs(readFileSync(join(root, "docs/architecture.md"), "utf8"));

describe("architecture (docs/architecture.md)", () => {
  test("the folder table lists every folder of src/ with a level", () => {
    const folders = readdirSync(join(root, "src"))
      .filter((name) => statSync(join(root, "src", name)).isDirectory())
      .map((name) => `src/${name}`);
    expect([...rules.levels.keys()].sort()).toEqual(folders.sort());
    expect(rules.levels.get("src/shared")).toBe(0);
    expect(rules.levels.get("src/web")).toBeNull();
  });

  test("every import of src/ follows the rules, and no cycle", () => {
    expect(violations(repositoryTree(), rules)).toEqual([]);
  });

  test("nothing under src/ names a development tool, a test, a benchmark or a script", () => {
    const offending: string[] = [];
    for (const [file, text] of repositoryTree().files) {
      if (!file.startsWith("src/")) continue;
      for (const spec of importsOf(text)) {
        const target = spec.startsWith(".") ? relative(root, resolve(root, dirname(file), spec)) : spec;
        if (/^(devkit|test|bench|scripts)(\/|$)/.test(target)) offending.push(`${file} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  test("no SQL against the control tables outside src/control", () => {
    const tree = repositoryTree();
    const migrations = tree.files.get("src/control/db.ts")!;
    const controlTables = new Set(
      [...migrations.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)].map((match) => match[1]),
    );
    // A name the serving tables (DuckDB) also create is not a control table in their code.
    for (const [file, text] of tree.files) {
      if (file.startsWith("src/analytics/"))
        for (const match of text.matchAll(/CREATE (?:OR REPLACE )?TABLE (\w+)/g)) controlTables.delete(match[1]);
    }
    expect(controlTables.has("pending_attempts") && controlTables.has("api_keys")).toBe(true);
    const statement = new RegExp(`\\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\\s+(${[...controlTables].join("|")})\\b`);
    const offending = [...tree.files]
      .filter(([file, text]) => !file.startsWith("src/control/") && statement.test(text))
      .map(([file, text]) => `${file}: ${statement.exec(text)![0]}`);
    expect(offending).toEqual([]);
  });

  test("the checker flags each kind of broken rule", () => {
    const tree = madeUpTree({
      "src/shared/a.ts": `import { b } from "../control/b";`, // up
      "src/control/b.ts": `export const b = 1;`,
      "src/control/index.ts": `export { b } from "./b";`,
      "src/jobs/c.ts": `import { b } from "../control/b";`, // past the index
      "src/ingest/d.ts": `import { e } from "../lake/e";`, // same level
      "src/lake/e.ts": `export const e = 1;`,
      "src/chain/f.ts": `import { g } from "./g";`, // cycle
      "src/chain/g.ts": `import { f } from "./f";\nimport { h } from "../../devkit/localnet/h";`,
      "src/web/w.ts": `import { s } from "../shared/s";`, // web is apart
      "src/shared/s.ts": `export const s = 1;`,
      "src/newcomer/n.ts": `export const n = 1;`, // not in the table
    });
    const found = violations(tree, rules).join("\n");
    expect(found).toContain("src/shared/a.ts → src/control/b.ts: level 0 imports level 2");
    expect(found).toContain("src/jobs/c.ts → src/control/b.ts: import src/control through its index.ts");
    expect(found).toContain("src/ingest/d.ts → src/lake/e.ts: level 4 imports level 4");
    expect(found).toContain("cycle: src/chain/f.ts → src/chain/g.ts");
    expect(found).toContain("src/chain/g.ts → devkit/localnet/h: src/ imports only src/");
    expect(found).toContain("src/web/w.ts → src/shared/s.ts: src/web is apart");
    expect(found).toContain("src/newcomer: not in the folder table");
    expect(
      violations(
        madeUpTree({
          "src/jobs/ok.ts": `import { b } from "../control";`,
          "src/control/index.ts": "export const b = 1;",
        }),
        rules,
      ),
    ).toEqual([]);
  });
});

// Comments say why the code is as it is, in the present tense; where a change came from (an issue,
// a round of measurements) is what git history keeps. The rule reads every comment under src/.

/** Each comment line of a source file: `//` to the end of the line and `/* … *\/` blocks (both only
 * after the line's start or a space, so a URL's `://` or a glob's `*\/*` is not one), and `--` in SQL. */
function commentsOf(file: string, text: string): { line: number; text: string }[] {
  const comments: { line: number; text: string }[] = [];
  let inBlock = false;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const add = (comment: string) => comments.push({ line: index + 1, text: comment });
    let rest = lines[index];
    while (rest.length > 0) {
      if (inBlock) {
        const end = rest.indexOf("*/");
        add(end < 0 ? rest : rest.slice(0, end));
        if (end < 0) break;
        inBlock = false;
        rest = rest.slice(end + 2);
        continue;
      }
      const opener = (file.endsWith(".sql") ? /(^|\s)(--|\/\*)/ : /(^|\s)(\/\/|\/\*)/).exec(rest);
      if (!opener) break;
      const after = rest.slice(opener.index + opener[0].length);
      if (opener[2] !== "/*") {
        add(after);
        break;
      }
      inBlock = true;
      rest = after;
    }
  }
  return comments;
}

const ORDINALS =
  "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|" +
  "fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|\\d+(?:st|nd|rd|th)";
/** An issue number ("issue 12", "issues #12", "#12") or a numbered pass ("the sixteenth pass", "pass 3"). */
const HISTORY_MARK = new RegExp(
  `\\bissues? #?\\d+|(?:^|[^&\\w])#\\d+\\b|\\b(?:${ORDINALS})[- ]pass(?:es)?\\b|\\bpass #?\\d+\\b`,
  "i",
);

function historyInComments(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (!file.startsWith("src/")) continue;
    for (const comment of commentsOf(file, text)) {
      const mark = HISTORY_MARK.exec(comment.text);
      if (mark) found.push(`${file}:${comment.line}: "${mark[0].trim()}" in a comment`);
    }
  }
  return found;
}

function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(join(root, "src"), { recursive: true })) {
    const path = `src/${String(name)}`;
    if (/\.(ts|tsx|c|h|sql)$/.test(path) && statSync(join(root, path)).isFile())
      files.set(path, readFileSync(join(root, path), "utf8"));
  }
  return files;
}

describe("comments under src/ carry no history", () => {
  test("no comment under src/ cites an issue number or a numbered pass", () => {
    const files = sourceFiles();
    expect(files.size).toBeGreaterThan(100);
    expect(historyInComments(files)).toEqual([]);
  });

  test("the checker flags issue numbers and passes in comments, and nothing in code or clean comments", () => {
    const planted = historyInComments(
      new Map([
        [
          "src/lake/planted.ts",
          [
            "// Merged by size tier (issue 23).",
            "/**",
            " * Rows per group: measured in the sixteenth pass; see #17.",
            " */",
            "export const x = 1; // pass 3 made this faster",
            "export const y = 2; /* the 19th pass */",
          ].join("\n"),
        ],
        ["src/lake/native/planted.c", "/* Issue #4: a line at a time. */\nint x = 1;\n"],
        ["src/analytics/sql/planted.sql", "-- the eighth pass keyed payers by md5\nSELECT 1;\n"],
      ]),
    );
    expect(planted).toEqual([
      'src/lake/planted.ts:1: "issue 23" in a comment',
      'src/lake/planted.ts:3: "sixteenth pass" in a comment',
      'src/lake/planted.ts:5: "pass 3" in a comment',
      'src/lake/planted.ts:6: "19th pass" in a comment',
      'src/lake/native/planted.c:1: "Issue #4" in a comment',
      'src/analytics/sql/planted.sql:1: "eighth pass" in a comment',
    ]);
    const clean = historyInComments(
      new Map([
        [
          "src/lake/clean.ts",
          [
            "// One pass over the segments; a pass that fails is retried (docs/lake.md#compaction).",
            "/** Callers pass nextCursor as cursor; issues are grouped by fingerprint. */",
            'const entity = "&#39;"; // an apostrophe, escaped',
            'const url = "http://127.0.0.1:8790/#12";',
            'const glob = "program=*/day=*/*.parquet"; const issue = "issue 12";',
          ].join("\n"),
        ],
      ]),
    );
    expect(clean).toEqual([]);
  });
});

// Module-level state: a module's `let`/`var`, or a Map, Set, WeakMap, WeakSet or array it creates at
// load and then changes, is state shared by every context in the process (two tests, a server and
// a job host on one thread). State belongs to the object that owns it: a component, or a part a
// context owns (src/context, `own`). Top-level declarations start at column 0 (Biome formats src/),
// so a declaration indented inside a function or class is local to it.

type ModuleState = { file: string; name: string };

/** Names that stay module-level, each with why; a listed name no longer found fails too (the list stays honest). */
const MODULE_STATE_ALLOWED: { file: string; name: string; why: string }[] = [
  // Commands: a command file's top level is its main program, run once per process.
  { file: "src/bin/server.ts", name: "config", why: "the command's main program" },
  { file: "src/bin/server.ts", name: "ctx", why: "the command's main program" },
  { file: "src/bin/server.ts", name: "stopping", why: "the command's main program" },
  { file: "src/bin/mcp.ts", name: "config", why: "the command's main program" },
  { file: "src/bin/mcp.ts", name: "stopping", why: "the command's main program" },
  // Worker entry files: a worker thread's module is loaded once per thread, so its top level is
  // that thread's own state, set by its first message and gone with the thread.
  { file: "src/control/postgres-worker.ts", name: "sql", why: "the worker thread's own connection" },
  { file: "src/control/postgres-worker.ts", name: "port", why: "the worker thread's own reply port" },
  { file: "src/control/postgres-worker.ts", name: "flag", why: "the worker thread's own wake-up flag" },
  { file: "src/ingest/worker.ts", name: "deps", why: "the worker thread's own ingest dependencies" },
  // Memos of pure functions: the same input always gives the same answer, whoever asks.
  { file: "src/analytics/sql/index.ts", name: "cache", why: "SQL file text by name" },
  { file: "src/analytics/landing-score/sql.ts", name: "cache", why: "SQL file text by name" },
  {
    file: "src/analytics/serving/shared-answer-text.ts",
    name: "texts",
    why: "an answer object's JSON text (answers are never mutated)",
  },
  { file: "src/api/web.ts", name: "building", why: "the web app's bundle, built from the files shipped with the code" },
  { file: "src/api/docs-page.ts", name: "bundle", why: "the /docs page's script, read from the installed package" },
  { file: "src/contract/openapi.ts", name: "documents", why: "the OpenAPI document, made from the question table" },
  { file: "src/mcp/tools.ts", name: "schemaCache", why: "a question's zod schemas as MCP tool schemas" },
  { file: "src/mcp/tools.ts", name: "validator", why: "the JSON Schema validator, stateless once made" },
  { file: "src/lake/exchange.ts", name: "renameat2", why: "the libc symbol, looked up once" },
  {
    file: "src/lake/column-presence.ts",
    name: "remembered",
    why: "a part's footer facts (a part is never rewritten under its name)",
  },
  { file: "src/sdk/wire.ts", name: "keyNames", why: "a key's text form (bounded)" },
  // Process-wide by nature.
  { file: "src/shared/fault.ts", name: "armed", why: "test-only fault point: the n-th time this process reaches it" },
  { file: "src/sdk/index.ts", name: "atExit", why: "the SDK's flushes at process exit (one exit per process)" },
  { file: "src/sdk/kit.ts", name: "instrumented", why: "RPC objects already wrapped (a fact about the object)" },
];

const COLLECTION = /^(?:export\s+)?const\s+(\w+)(?:\s*:[^=]+)?\s*=\s*(?:new\s+(?:Map|Set|WeakMap|WeakSet)\b|\[\s*\])/;
const VARIABLE = /^(?:export\s+)?(?:let|var)\s+(\w+)/;

/** Module-level `let`/`var`, and module-level collections the file mutates. src/web (a browser page's modules live and die with the page) is not checked. */
function moduleStateOf(tree: Tree): ModuleState[] {
  const found: ModuleState[] = [];
  for (const [file, text] of tree.files) {
    if (!file.startsWith("src/") || file.startsWith("src/web/")) continue;
    for (const line of text.split("\n")) {
      const variable = VARIABLE.exec(line);
      if (variable) {
        found.push({ file, name: variable[1] });
        continue;
      }
      const collection = COLLECTION.exec(line);
      if (!collection) continue;
      const name = collection[1];
      const mutated = new RegExp(
        `\\b${name}\\s*(?:\\.\\s*(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill)\\s*\\(|\\.length\\s*=[^=]|\\[[^\\]]*\\]\\s*=[^=])`,
      );
      if (mutated.test(text)) found.push({ file, name });
    }
  }
  return found;
}

function unexpectedModuleState(tree: Tree, allowed: { file: string; name: string }[]): string[] {
  const isAllowed = (state: ModuleState) => allowed.some((a) => a.file === state.file && a.name === state.name);
  return moduleStateOf(tree)
    .filter((state) => !isAllowed(state))
    .map((state) => `${state.file}: module-level ${state.name}`);
}

describe("no mutable module-level state in src/", () => {
  test("every module-level let/var or mutated collection is on the allow-list, and every entry is still there", () => {
    const tree = repositoryTree();
    expect(unexpectedModuleState(tree, MODULE_STATE_ALLOWED)).toEqual([]);
    const present = moduleStateOf(tree);
    const stale = MODULE_STATE_ALLOWED.filter((a) => !present.some((p) => p.file === a.file && p.name === a.name)).map(
      (a) => `${a.file}: ${a.name}`,
    );
    expect(stale).toEqual([]);
  });

  test("the checker fires on planted module state and leaves the rest alone", () => {
    const tree = madeUpTree({
      "src/jobs/counter.ts": `let runs = 0;\nexport function run() {\n  runs++;\n}`,
      "src/jobs/exported.ts": `export var shared = 1;`,
      "src/chain/seen.ts": `const seen = new Set<string>();\nexport const mark = (s: string) => seen.add(s);`,
      "src/lake/queue.ts": `const queue: string[] = [];\nexport const enqueue = (s: string) => queue.push(s);`,
      "src/alerts/by-key.ts": `const byKey = new WeakMap<object, number>();\nexport const put = (k: object) => byKey.set(k, 1);`,
      "src/api/fixed.ts": `const HOSTS = new Set(["localhost"]);\nexport const local = (h: string) => HOSTS.has(h);`,
      "src/ops/local.ts": `export function f() {\n  let n = 0;\n  const list: number[] = [];\n  list.push(n++);\n  return list;\n}`,
      "src/web/page.ts": `let current = 0;`,
      "src/analytics/memo.ts": `const cache = new Map<string, string>();\nexport const get = (k: string) => cache.set(k, k);`,
    });
    const found = unexpectedModuleState(tree, [{ file: "src/analytics/memo.ts", name: "cache" }]);
    expect(found.sort()).toEqual(
      [
        "src/alerts/by-key.ts: module-level byKey",
        "src/chain/seen.ts: module-level seen",
        "src/jobs/counter.ts: module-level runs",
        "src/jobs/exported.ts: module-level shared",
        "src/lake/queue.ts: module-level queue",
      ].sort(),
    );
  });
});
