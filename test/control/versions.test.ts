// Versions an operator can follow: the version and build the binaries name, the log line of each
// control migration, and an older binary refusing a data directory a newer one has upgraded.

import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json";
import type { StateDb } from "../../src/analytics/tables/state";
import { readStateFacts } from "../../src/analytics/tables/steps";
import { STATE_SCHEMA } from "../../src/analytics/tables/versions";
import { run } from "../../src/cli/commands";
import { CONTROL_SCHEMA, MIGRATION_SUMMARIES, openControlDb } from "../../src/control";
import { dataPaths } from "../../src/lake/paths";
import { BUILD, gitCommit, NewerDataError, VERSION, VERSION_LINE } from "../../src/shared/version";

const root = mkdtempSync(join(tmpdir(), "txray-versions-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(env: Record<string, string>, ...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

/** A data directory whose control database a newer txray migrated one step further than this build knows. */
function upgradedDataDir(name: string): string {
  const dataDir = join(root, name);
  const file = dataPaths(dataDir).controlDb;
  openControlDb(file).close();
  const db = new Database(file);
  db.exec(`UPDATE schema_version SET version = ${CONTROL_SCHEMA + 1}`);
  db.close();
  return dataDir;
}

const refusal = `this data directory was written by a newer txray (control schema ${CONTROL_SCHEMA + 1} > ${CONTROL_SCHEMA}); upgrade txray or restore a backup`;

test("the version comes from package.json; the build is the checkout's commit or unknown", () => {
  expect(VERSION).toBe(pkg.version);
  expect(BUILD).toMatch(/^([0-9a-f]{12}|unknown)$/);
  expect(VERSION_LINE).toBe(`txray ${VERSION} (build ${BUILD})`);

  const commit = "0123456789abcdef0123456789abcdef01234567";
  const checkout = join(root, "checkout");
  mkdirSync(join(checkout, ".git", "refs", "heads"), { recursive: true });
  writeFileSync(join(checkout, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(checkout, ".git", "refs", "heads", "main"), `${commit}\n`);
  expect(gitCommit(checkout)).toBe("0123456789ab");
  // A branch only in packed-refs, read through a worktree's .git file and its commondir.
  writeFileSync(join(checkout, ".git", "packed-refs"), `# pack-refs\n${commit.replace("0", "f")} refs/heads/packed\n`);
  const worktreeGit = join(checkout, ".git", "worktrees", "w");
  mkdirSync(worktreeGit, { recursive: true });
  writeFileSync(join(worktreeGit, "HEAD"), "ref: refs/heads/packed\n");
  writeFileSync(join(worktreeGit, "commondir"), "../..\n");
  const worktree = join(root, "worktree");
  mkdirSync(worktree);
  writeFileSync(join(worktree, ".git"), `gitdir: ${worktreeGit}\n`);
  expect(gitCommit(worktree)).toBe("f123456789ab");
  expect(gitCommit(join(root, "no-checkout-here"))).toBe("unknown");
});

test("txray --version prints the version and build without needing any setting", async () => {
  const result = await cli({ TXRAY_DATA_DIR: join(root, "unused") }, "--version");
  expect(result).toEqual({ code: 0, stdout: `${VERSION_LINE}\n`, stderr: "" });
});

test("a new control database logs one line; an upgrade logs each migration it applies; a reopen none", () => {
  expect(MIGRATION_SUMMARIES.length).toBe(CONTROL_SCHEMA);
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger = { info: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }) };
  const file = join(root, "fresh", "control.sqlite");
  openControlDb(file, undefined, { logger }).close();
  expect(lines.map((line) => line.message)).toEqual([`control: new control database at schema ${CONTROL_SCHEMA}`]);
  expect(lines[0].fields).toMatchObject({ schema: CONTROL_SCHEMA, durationMs: expect.any(Number) });

  // As if written by the build before the last migration: that migration is applied and logged alone.
  const db = new Database(file);
  db.query("UPDATE schema_version SET version = ?").run(CONTROL_SCHEMA - 1);
  db.close();
  lines.length = 0;
  openControlDb(file, undefined, { logger }).close();
  expect(lines.map((line) => line.message)).toEqual([
    `control: migration ${CONTROL_SCHEMA} applied (${MIGRATION_SUMMARIES[CONTROL_SCHEMA - 1]})`,
  ]);
  expect(lines[0].fields).toMatchObject({ migration: CONTROL_SCHEMA, durationMs: expect.any(Number) });

  lines.length = 0;
  openControlDb(file, undefined, { logger }).close();
  expect(lines).toEqual([]);
});

test("a control database newer than this build is refused with one line, untouched", async () => {
  const dataDir = upgradedDataDir("upgraded");
  expect(() => openControlDb(dataPaths(dataDir).controlDb)).toThrow(
    new NewerDataError("control schema", CONTROL_SCHEMA + 1, CONTROL_SCHEMA),
  );
  expect(() => openControlDb(dataPaths(dataDir).controlDb)).toThrow(refusal);
  const db = new Database(dataPaths(dataDir).controlDb, { readonly: true });
  expect(db.query("SELECT version FROM schema_version").get()).toEqual({ version: CONTROL_SCHEMA + 1 });
  db.close();

  const result = await cli({ TXRAY_DATA_DIR: dataDir, HOME: root, XDG_CONFIG_HOME: root }, "keys", "list");
  expect(result).toEqual({ code: 1, stdout: "", stderr: `txray: ${refusal}\n` });
});

test("the server binary on a newer data directory exits 1 with the one line, no stack", async () => {
  const dataDir = upgradedDataDir("upgraded-server");
  const server = Bun.spawn(["bun", "src/bin/server.ts"], {
    env: { ...process.env, TXRAY_DATA_DIR: dataDir, API_PORT: "0", TXRAY_LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await server.exited).toBe(1);
  expect(await new Response(server.stderr).text()).toBe(`txray: ${refusal}\n`);
}, 20_000);

test("a serving state of a newer schema stops the tables job instead of being rebuilt downwards", async () => {
  const meta: Record<string, string> = { schema: String(STATE_SCHEMA + 1), clock: "1700000000000" };
  const state = { meta: async (key: string) => meta[key] ?? null } as unknown as StateDb;
  await expect(readStateFacts(state)).rejects.toThrow(
    `this data directory was written by a newer txray (serving state schema ${STATE_SCHEMA + 1} > ${STATE_SCHEMA}); upgrade txray or restore a backup`,
  );
  meta.schema = String(STATE_SCHEMA);
  expect(await readStateFacts(state)).toEqual({ upgraded: true, schema: STATE_SCHEMA, clock: 1700000000000 });
});
