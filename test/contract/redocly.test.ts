// The document the server serves at /openapi.json, linted by Redocly CLI (the pinned devDependency,
// run from node_modules, offline) with the repository's redocly.yaml: the recommended rules find no
// error. What they warn about is true of the design and listed here: the project names no licence,
// and the web app's pages, the health check, the readiness check (503, not 4xx) and the ingest CORS
// preflight never answer 4xx. Any other warning (an API route without a documented 4xx answer, say)
// fails.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PAGE_PATHS } from "../../src/api/web";
import { openApiDocument, openApiPath } from "../../src/contract";

const ROOT = resolve(import.meta.dir, "../..");
const REDOCLY = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");

/** Operations that answer no 4xx by design: pages are the app's index.html, the rest are probes. */
const WITHOUT_4XX = [
  ...PAGE_PATHS.map((path) => `get ${openApiPath(path)}`),
  "get /healthz",
  "get /readyz",
  "options /v1/ingest",
];

type Problem = { ruleId: string; severity: "error" | "warn"; message: string; location: { pointer: string }[] };
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "txray-redocly-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An operation's `method path` from a problem's JSON pointer (`#/paths/~1p~1{program}/get/responses`). */
function operationOf(pointer: string): string {
  const [, path, method] = pointer.split("/").slice(1);
  return `${method} ${path.replaceAll("~1", "/").replaceAll("~0", "~")}`;
}

async function lint(document: unknown): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  const file = join(work, "openapi.json");
  writeFileSync(file, JSON.stringify(document));
  const redocly = Bun.spawn(
    [process.execPath, REDOCLY, "lint", "--config", join(ROOT, "redocly.yaml"), "--format", "json", file],
    {
      cwd: work,
      // No usage data and no update check against the registry (each also off when not on a TTY or in CI).
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [out, err] = await Promise.all([new Response(redocly.stdout).text(), new Response(redocly.stderr).text()]);
  await redocly.exited;
  try {
    return JSON.parse(out);
  } catch {
    throw new Error(`redocly lint wrote no JSON report: ${out}\n${err}`);
  }
}

test("redocly lint finds no error in the served document, and warns only about what is so by design", async () => {
  const report = await lint(openApiDocument({ slack: true }));
  const errors = report.problems.filter((problem) => problem.severity === "error");
  expect(errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual(
    [],
  );
  expect(report.totals.errors).toBe(0);
  const warnings = report.problems.map((problem) =>
    problem.ruleId === "operation-4xx-response"
      ? `${problem.ruleId} ${operationOf(problem.location[0].pointer)}`
      : problem.ruleId,
  );
  expect(warnings.sort()).toEqual(
    ["info-license", ...WITHOUT_4XX.map((operation) => `operation-4xx-response ${operation}`)].sort(),
  );
}, 20_000);
