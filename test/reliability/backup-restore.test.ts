// Backups as an operator takes them: a real server process under concurrent ingest, with its
// scheduler flushing and compacting, and `txray backup`, `backup verify` and `restore` as real CLI
// processes. A backup restored and started answers as the original did and holds every envelope
// acknowledged before it began exactly once; a backup killed with kill -9 mid-copy fails
// verification and its debris goes with the next backup; a damaged byte is named by verify and
// refused by restore; a spool segment damaged after a restore loses only its damaged batch, which
// is reported; a restore into a non-empty directory, or killed midway, leaves no half instance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { generateLake } from "../../devkit/generate";
import { createAccountKey, openControlDb } from "../../src/control";
import { openDuck, sqlString } from "../../src/lake/duckdb";
import { dataPaths } from "../../src/lake/paths";
import { FRAME_RECORD_BYTES, SPOOL_COLUMNS } from "../../src/spool";
import { flipByte, listing } from "../helpers/backups";
import { makeEnvelope, PROGRAMS } from "../helpers/envelopes";
import { type ServerProcess, startServerProcess } from "../helpers/process";

const REPO = new URL("../..", import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), "txray-backup-live-"));
const dataDir = join(root, "data");
const sourceEnv = { TXRAY_DATA_DIR: dataDir, TXRAY_SNAPSHOTS_DIR: join(root, "snapshots") };
const servers: ServerProcess[] = [];

type Cli = { code: number; stdout: string; stderr: string };
async function cli(args: string[], env: Record<string, string> = {}): Promise<Cli> {
  const child = spawn(["bun", "run", "src/bin/cli.ts", ...args], {
    cwd: REPO,
    env: { ...process.env, TXRAY_LOG_LEVEL: "silent", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

async function getJson(url: string, key?: string) {
  const response = await fetch(url, { headers: key ? { "x-api-key": key } : {} });
  return { status: response.status, body: (await response.json()) as any };
}

/** Serving-table answers of every analytical route for the programs, public and account-scoped. */
async function answers(url: string, programs: string[], key: string) {
  const out: Record<string, unknown> = {};
  for (const program of programs) {
    for (const route of ["baseline", "top-issues", "cu-headroom", "provider-report", "release-diff"]) {
      out[`${route}/${program}`] = await getJson(`${url}/v1/${route}/${program}?window=7d`);
      out[`${route}/${program}/account`] = await getJson(`${url}/v1/${route}/${program}?window=30d&scope=account`, key);
    }
  }
  return out;
}

/** Sigs and attempt ids of a data directory's lake, read with DuckDB as a data team would. */
async function lakeRows(dir: string) {
  const duck = await openDuck();
  try {
    return await duck.all<{ sig: string | null; attempt_id: string }>(
      `SELECT sig, attempt_id FROM read_parquet(${sqlString(dataPaths(dir).datasetGlob("envelopes"))}, hive_partitioning = true)`,
    );
  } finally {
    duck.close();
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

let source: ServerProcess;
let key: string;
let programs: string[];
let before: Record<string, unknown>;
const acknowledged: string[] = [];
let stopLoad = false;
let load: Promise<void>;

beforeAll(async () => {
  const control = openControlDb(dataPaths(dataDir).controlDb);
  const account = createAccountKey(control, "acme", "live", Date.now());
  key = account.key;
  programs = (
    await generateLake({
      dataDir,
      envelopes: 4000,
      programs: 2,
      days: 7,
      seed: 25,
      accounts: [account.record.accountId],
      control,
      threads: 1,
    })
  ).programs;
  control.close();
  // The scheduler flushes and compacts all along; the tables are built once (at start) and then
  // left alone, so the serving answers stay those of the backup's moment.
  source = await startServerProcess({
    ...sourceEnv,
    TXRAY_SCHEDULER: "on",
    SPOOL_SEAL_MS: "200",
    FLUSH_INTERVAL_MS: "200",
    COMPACT_INTERVAL_MS: "1500",
    TABLES_INTERVAL_MS: "3600000",
    RESOLVE_INTERVAL_MS: "3600000",
    DEPLOYS_INTERVAL_MS: "3600000",
    SOLANA_RPC_URL: "http://127.0.0.1:9",
    INGEST_BURST: "100000000",
    INGEST_RATE_PER_SECOND: "100000000",
    PUBLIC_RATE_PER_MINUTE: "1000000",
  });
  servers.push(source);
  await until(
    "the first tables build",
    async () => (await getJson(`${source.url}/v1/status`)).body.jobs.tables?.ok === true,
  );
  before = await answers(source.url, programs, key);
  load = (async () => {
    while (!stopLoad) {
      const envelopes = Array.from({ length: 20 }, (_, i) =>
        makeEnvelope({ program: i % 2 ? PROGRAMS.jupiter : PROGRAMS.token, sentAt: Date.now() }),
      );
      const response = await fetch(`${source.url}/v1/ingest`, {
        method: "POST",
        body: JSON.stringify({ apiKey: key, envelopes }),
      }).catch(() => null);
      if (response?.status === 202) acknowledged.push(...envelopes.map((e) => e.sig!));
    }
  })();
  await until("ingest under way", () => acknowledged.length >= 1000);
}, 120_000);

afterAll(async () => {
  stopLoad = true;
  await load;
  for (const server of servers) {
    server.process.kill("SIGKILL");
    await server.process.exited;
  }
  rmSync(root, { recursive: true, force: true });
});

/** A backup taken while ingest goes on; the sigs acknowledged before it began, and its manifest. */
async function backupUnderLoad(name: string) {
  const target = join(root, "backups", name);
  const acknowledgedBefore = new Set(acknowledged);
  const made = await cli(["backup", target], sourceEnv);
  expect(made.stderr).toBe("");
  expect(made.code).toBe(0);
  await until("more ingest after the backup", () => acknowledged.length >= acknowledgedBefore.size + 200);
  return { target, acknowledgedBefore, manifest: JSON.parse(made.stdout) };
}

describe("backup, verify and restore of a live instance (real processes, concurrent ingest)", () => {
  test("backup → verify → restore → start: the same answers, and every envelope acknowledged before the backup exactly once", async () => {
    const { target, acknowledgedBefore, manifest } = await backupUnderLoad("b1");
    expect(manifest).toMatchObject({ format: 3, snapshots: expect.any(Boolean) });
    expect(manifest.servingVersion).toEqual(expect.any(Number));
    expect(manifest.spoolSegments + manifest.lakeFiles).toBeGreaterThan(0);
    const verified = await cli(["backup", "verify", target]);
    expect(verified.stderr).toBe("");
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, problems: [] });

    const restoredDir = join(root, "restored-1", "data");
    const restored = await cli(["restore", target, restoredDir, "--snapshots", join(root, "restored-1", "snapshots")]);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({
      dataDir: restoredDir,
      envelopes: manifest.envelopes,
      servingVersion: manifest.servingVersion,
    });

    const server = await startServerProcess({
      TXRAY_DATA_DIR: restoredDir,
      TXRAY_SNAPSHOTS_DIR: join(root, "restored-1", "snapshots"),
      PUBLIC_RATE_PER_MINUTE: "1000000",
    });
    servers.push(server);
    expect(await answers(server.url, programs, key)).toEqual(before);
    expect(await answers(source.url, programs, key)).toEqual(before); // the source's tables were not rebuilt meanwhile
    expect((await getJson(`${server.url}/v1/status`)).body.lake.envelopes).toBe(manifest.envelopes);

    // Its first flush moves the copied spool into the lake: each envelope acknowledged before the backup, once.
    const flushed = await cli(["jobs", "run", "flush"], { TXRAY_DATA_DIR: restoredDir });
    expect(flushed.code).toBe(0);
    const rows = await lakeRows(restoredDir);
    const seen = new Map<string, number>();
    for (const row of rows) if (row.sig) seen.set(row.sig, (seen.get(row.sig) ?? 0) + 1);
    expect([...acknowledgedBefore].filter((sig) => seen.get(sig) !== 1)).toEqual([]);
    expect(new Set(rows.map((row) => row.attempt_id)).size).toBe(rows.length);
    expect((await getJson(`${server.url}/v1/status`)).body.lake.spoolIntegrity.corruptFrames).toBe(0);
  }, 180_000);

  test("a backup killed with kill -9 mid-copy: the target fails verification, the next backup succeeds, and the staging debris is gone", async () => {
    const target = join(root, "backups", "killed");
    const child = spawn(["bun", "run", "src/bin/cli.ts", "backup", target], {
      cwd: REPO,
      env: { ...process.env, ...sourceEnv, TXRAY_LOG_LEVEL: "silent", TXRAY_FAULT_POINT: "backup:mid-copy:pause@3" },
      stdout: "ignore",
      stderr: "pipe",
    });
    const reader = child.stderr.getReader();
    let output = "";
    while (!output.includes("fault point reached")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`backup ended before the fault point: ${output}`);
      output += new TextDecoder().decode(value);
    }
    child.kill("SIGKILL");
    expect(await child.exited).not.toBe(0);
    expect(child.signalCode).toBe("SIGKILL");

    const staging = dataPaths(dataDir).staging;
    const debris = readdirSync(staging).filter((name) => name.startsWith("backup-"));
    expect(debris).toHaveLength(1);
    expect(existsSync(join(target, "backup.json"))).toBe(false);
    const verified = await cli(["backup", "verify", target]);
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain("txray: backup.json: missing: the backup was interrupted");
    const refused = await cli(["restore", target, join(root, "from-killed", "data")]);
    expect(refused.code).toBe(1);
    expect(existsSync(join(root, "from-killed", "data"))).toBe(false);
    // Until it is swept, /v1/status counts the debris (measured again as the lake grows under ingest).
    await until(
      "staging in the disk figures",
      async () => (await getJson(`${source.url}/v1/status`)).body.disk.stagingBytes > 0,
    );

    const again = await cli(["backup", target], sourceEnv);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect((await cli(["backup", "verify", target])).code).toBe(0);
    expect(readdirSync(staging).filter((name) => name.startsWith("backup-"))).toEqual([]);
  }, 180_000);

  test("a byte corrupted in a backed-up lake part or spool segment: verify names the file, restore refuses and writes nothing", async () => {
    const { target } = await backupUnderLoad("b3");
    const paths = (JSON.parse(readFileSync(join(target, "backup.json"), "utf8")).files as { path: string }[]).map(
      (file) => file.path,
    );
    const damaged = [
      paths.find((path) => path.startsWith("data/lake/") && path.endsWith(".parquet")),
      paths.find((path) => path.startsWith("data/spool/") && path.endsWith(".sealed")),
    ];
    expect(damaged.every(Boolean)).toBe(true);
    for (const file of damaged as string[]) {
      const copy = join(root, "backups", `b3-${damaged.indexOf(file)}`);
      cpSync(target, copy, { recursive: true });
      flipByte(join(copy, file));

      const verified = await cli(["backup", "verify", copy]);
      expect(verified.code).toBe(1);
      expect(verified.stderr).toContain(`txray: ${file}: SHA-256 differs from the manifest`);
      expect(JSON.parse(verified.stdout).problems).toEqual([{ file, problem: expect.stringContaining("SHA-256") }]);

      const parent = join(root, `restore-refused-${damaged.indexOf(file)}`);
      mkdirSync(parent);
      const refused = await cli(["restore", copy, join(parent, "data"), "--snapshots", join(parent, "snapshots")]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`txray: ${file}: SHA-256 differs`);
      expect(readdirSync(parent)).toEqual([]);
    }
  }, 180_000);

  test("after a restore whose spool segment was damaged, the damaged batch is skipped and reported, and the others flush", async () => {
    const { target } = await backupUnderLoad("b4");
    const restoredDir = join(root, "restored-4", "data");
    expect((await cli(["restore", target, restoredDir])).code).toBe(0);

    // The restored spool's batches, from the checksum records: each batch's sigs.
    const sigColumn = SPOOL_COLUMNS.indexOf("sig");
    const batches: { file: string; offset: number; length: number; sigs: string[] }[] = [];
    const spoolRoot = dataPaths(restoredDir).spoolRoot;
    for (const node of readdirSync(spoolRoot)) {
      for (const name of readdirSync(join(spoolRoot, node)).filter((n) => n.endsWith(".sealed"))) {
        const file = join(spoolRoot, node, name);
        const data = readFileSync(file);
        const frames = readFileSync(file.replace(/\.sealed$/, ".frames"));
        for (let at = 0; at + FRAME_RECORD_BYTES <= frames.length; at += FRAME_RECORD_BYTES) {
          const offset = Number(frames.readBigUInt64LE(at));
          const length = frames.readUInt32LE(at + 8);
          const sigs = data
            .subarray(offset, offset + length)
            .toString()
            .split("\n")
            .filter(Boolean)
            .map((line) => line.split("\t")[sigColumn]);
          batches.push({ file, offset, length, sigs });
        }
      }
    }
    expect(batches.length).toBeGreaterThan(1);
    const victim = batches.find((batch, i) => i > 0 && batch.file === batches[i - 1].file) ?? batches[0];
    const bytes = readFileSync(victim.file);
    bytes[victim.offset + Math.floor(victim.length / 2)] ^= 0x01;
    writeFileSync(victim.file, bytes);

    const server = await startServerProcess({ TXRAY_DATA_DIR: restoredDir });
    servers.push(server);
    const flushed = await cli(["jobs", "run", "flush"], { TXRAY_DATA_DIR: restoredDir, TXRAY_LOG_LEVEL: "info" });
    expect(flushed.code).toBe(0);
    expect(flushed.stderr).toContain('"message":"spool segment has corrupted batches; they are skipped"');
    expect(flushed.stderr).toContain(`"corruptFrames":1,"corruptBytes":${victim.length}`);
    const status = (await getJson(`${server.url}/v1/status`)).body;
    expect(status.lake.spoolIntegrity).toMatchObject({ corruptFrames: 1, corruptBytes: victim.length });
    expect(status.lake.quarantine.segments).toBe(0);
    const lake = new Set((await lakeRows(restoredDir)).map((row) => row.sig));
    for (const sig of victim.sigs) expect(lake.has(sig)).toBe(false);
    const others = batches.filter((batch) => batch !== victim).flatMap((batch) => batch.sigs);
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((sig) => !lake.has(sig))).toEqual([]);
  }, 180_000);

  test("restore into a non-empty directory refuses and writes nothing; a restore killed midway leaves no half instance", async () => {
    const { target } = await backupUnderLoad("b5");
    const parent = join(root, "restore-5");
    mkdirSync(join(parent, "data"), { recursive: true });
    writeFileSync(join(parent, "data", "notes.txt"), "mine");
    const beforeRefusal = listing(parent);
    const refused = await cli(["restore", target, join(parent, "data")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty");
    expect(listing(parent)).toEqual(beforeRefusal);

    // Killed while copying: no data directory under the target's name; the next restore succeeds and removes the leftover.
    const child = spawn(["bun", "run", "src/bin/cli.ts", "restore", target, join(parent, "fresh")], {
      cwd: REPO,
      env: { ...process.env, TXRAY_LOG_LEVEL: "silent", TXRAY_FAULT_POINT: "restore:mid-copy:pause@2" },
      stdout: "ignore",
      stderr: "pipe",
    });
    let output = "";
    const reader = child.stderr.getReader();
    while (!output.includes("fault point reached")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`restore ended before the fault point: ${output}`);
      output += new TextDecoder().decode(value);
    }
    child.kill("SIGKILL");
    await child.exited;
    expect(existsSync(join(parent, "fresh"))).toBe(false);
    expect(readdirSync(parent).filter((name) => name.startsWith(".fresh.restore-"))).toHaveLength(1);
    const restored = await cli(["restore", target, join(parent, "fresh")]);
    expect(restored.code).toBe(0);
    expect(readdirSync(parent).sort()).toEqual(["data", "fresh"]);
    expect((await cli(["backup", "verify", target])).code).toBe(0);
  }, 180_000);
});
