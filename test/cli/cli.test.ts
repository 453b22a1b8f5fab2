// The txray CLI in-process, exactly as a user sees it: output, exit codes, the config file.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/commands";
import { authenticate, openControlDb } from "../../src/control";
import { dataPaths } from "../../src/lake/paths";

const root = mkdtempSync(join(tmpdir(), "txray-cli-"));
const env = { TXRAY_DATA_DIR: join(root, "data"), XDG_CONFIG_HOME: join(root, "config"), HOME: root };
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

test("keys create prints the key once, stores only its hash, and saves it to the 0600 config file", async () => {
  const result = await cli("keys", "create", "--account", "acme");
  expect(result.code).toBe(0);
  const key = result.stdout.trim();
  expect(key).toMatch(/^txr_live_[1-9A-HJ-NP-Za-km-z]{32}$/);
  const configFile = join(env.XDG_CONFIG_HOME, "txray", "config.json");
  expect(JSON.parse(readFileSync(configFile, "utf8"))).toEqual({ apiKey: key, account: "acme", scope: "live" });
  expect(statSync(configFile).mode & 0o777).toBe(0o600);
  const db = openControlDb(dataPaths(env.TXRAY_DATA_DIR).controlDb);
  expect(JSON.stringify(db.query("SELECT * FROM api_keys").all())).not.toContain(key);
  expect(authenticate(db, key)).toMatchObject({ accountName: "acme", scope: "live" });
  db.close();
});

test("--read-only --json --no-save: a query-scoped key as JSON, config untouched", async () => {
  const configFile = join(env.XDG_CONFIG_HOME, "txray", "config.json");
  const before = readFileSync(configFile, "utf8");
  const result = await cli("keys", "create", "--account", "acme", "--read-only", "--json", "--no-save");
  expect(result.code).toBe(0);
  const parsed = JSON.parse(result.stdout);
  expect(Object.keys(parsed).sort()).toEqual(["account", "id", "key", "scope"]);
  expect(parsed).toMatchObject({ account: "acme", scope: "read" });
  expect(parsed.id).toMatch(/^key_[0-9a-f]{12}$/);
  expect(parsed.key).toMatch(/^txr_read_/);
  expect(readFileSync(configFile, "utf8")).toBe(before);
});

test("keys list shows ids and scopes, never keys; keys revoke disables one", async () => {
  const listed = await cli("keys", "list");
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain("txr_");
  const ids = [...listed.stdout.matchAll(/^(key_[0-9a-f]{12})\tacme\t(live|read)/gm)].map((m) => m[1]);
  expect(ids.length).toBe(2);
  expect((await cli("keys", "revoke", ids[0])).stdout).toContain(`revoked ${ids[0]}`);
  expect((await cli("keys", "list")).stdout).toContain("revoked");
  const again = await cli("keys", "revoke", ids[0]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("no active key");
});

test("keys list --json: every key as {id, account, scope, createdAt, revokedAt}, never the key", async () => {
  const created = JSON.parse((await cli("keys", "create", "--account", "listed", "--json", "--no-save")).stdout);
  const listed = await cli("keys", "list", "--json");
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain("txr_");
  const keys = JSON.parse(listed.stdout) as Record<string, unknown>[];
  for (const key of keys) expect(Object.keys(key).sort()).toEqual(["account", "createdAt", "id", "revokedAt", "scope"]);
  const mine = keys.find((key) => key.id === created.id)!;
  expect(mine).toMatchObject({ account: "listed", scope: "live", revokedAt: null });
  expect(typeof mine.createdAt).toBe("number");
  expect(keys.some((key) => typeof key.revokedAt === "number")).toBe(true); // revoked in the test above
});

test("jobs run flush on an empty data dir succeeds and prints the outcome", async () => {
  const result = await cli("jobs", "run", "flush");
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ job: "flush", ok: true, details: { segments: 0, rows: 0 } });
});

test("usage errors exit 2 with a message; bad settings name the setting", async () => {
  for (const argv of [
    ["keys", "create"],
    ["jobs", "run", "nope"],
    ["frobnicate"],
    ["keys", "create", "--account", "a", "--bogus"],
  ]) {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith("txray: ");
  }
  expect((await cli("keys", "create", "--account", "bad name!")).code).toBe(1);
  expect((await cli("idl", "add", "not-a-program", "/nope.json")).stderr).toContain("not a program id");
  let stderr = "";
  const code = await run(["keys", "list"], {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { ...env, API_PORT: "eighty" },
  });
  expect(code).toBe(2);
  expect(stderr).toContain("API_PORT");
});

test("keys create --kind: ingest (txr_ingest_), read (txr_read_) and admin (txr_live_); anything else is a usage error", async () => {
  const create = async (...extra: string[]) => {
    const result = await cli("keys", "create", "--account", "kinds", "--json", "--no-save", ...extra);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as { key: string; scope: string };
  };
  expect(await create("--kind", "ingest")).toMatchObject({
    key: expect.stringMatching(/^txr_ingest_/),
    scope: "ingest",
  });
  expect(await create("--kind", "read")).toMatchObject({ key: expect.stringMatching(/^txr_read_/), scope: "read" });
  expect(await create("--kind", "admin")).toMatchObject({ key: expect.stringMatching(/^txr_live_/), scope: "live" });
  const plain = await cli("keys", "create", "--account", "kinds", "--kind", "ingest", "--no-save");
  expect(plain.stdout.trim()).toMatch(/^txr_ingest_[1-9A-HJ-NP-Za-km-z]{32}$/);
  expect(plain.stderr).toContain("ingest-only");
  const db = openControlDb(dataPaths(env.TXRAY_DATA_DIR).controlDb);
  expect(authenticate(db, plain.stdout.trim())).toMatchObject({ accountName: "kinds", scope: "ingest" });
  db.close();
  for (const wrong of [
    ["--kind", "root"],
    ["--kind", "ingest", "--read-only"],
  ]) {
    const refused = await cli("keys", "create", "--account", "kinds", "--no-save", ...wrong);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--kind");
  }
});
