// `txray backup verify` names every bad file of a backup (changed, truncated, missing, unlisted, a
// Parquet part whose footer does not read, an interrupted or old-format backup) and exits 1;
// `txray restore` refuses such a backup and a target that is not empty, writing nothing, and
// restores a good one into an absent or empty directory. The staging directory of a backup that died
// is counted in /v1/status (once, though it hard-links lake parts) and removed by the next backup or
// the retention job, never while a backup runs.
import { expect, test } from "bun:test";
import {
  appendFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { listIngestNodes, openControlDbReadOnly, withLease } from "../../src/control";
import { retentionJob } from "../../src/jobs/retention";
import { runJob } from "../../src/jobs/run";
import { flushSpool } from "../../src/lake/flush-spool";
import { cliInProcess, flipByte, listing, scratch } from "../helpers/backups";
import { makeEnvelope } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const { defer, tempDir } = scratch();
const cli = cliInProcess;

/** A source instance with flushed parts and a sealed spool segment, and its CLI environment. */
async function source(): Promise<{ t: TestServer; env: Record<string, string> }> {
  // Its envelopes are dated 2025-11 (makeEnvelope): the retention job run here must keep them.
  const t = await testServer({ SPOOL_SEAL_MS: "600000", TXRAY_RETENTION_DAYS: "off" });
  defer(() => t.stop());
  const key = t.key("acme");
  expect((await t.ingest({ apiKey: key, envelopes: Array.from({ length: 30 }, () => makeEnvelope()) })).status).toBe(
    202,
  );
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  expect((await t.ingest({ apiKey: key, envelopes: Array.from({ length: 10 }, () => makeEnvelope()) })).status).toBe(
    202,
  );
  await t.server.spool!.seal();
  return {
    t,
    env: { TXRAY_DATA_DIR: t.ctx.paths.root, TXRAY_SNAPSHOTS_DIR: join(t.ctx.paths.root, "..", "no-snapshots") },
  };
}

async function takeBackup(env: Record<string, string>): Promise<string> {
  const dir = join(tempDir("txray-bk-"), "backup");
  const made = await cli(["backup", dir], env);
  expect(made.stderr).toBe("");
  expect(made.code).toBe(0);
  return dir;
}

const manifestFiles = (backup: string) =>
  (JSON.parse(readFileSync(join(backup, "backup.json"), "utf8")).files as { path: string }[]).map((file) => file.path);

test("verify names each bad file and exits 1; restore refuses the backup and writes nothing", async () => {
  const { env } = await source();
  const good = await takeBackup(env);
  const verified = await cli(["backup", "verify", good]);
  expect(verified.code).toBe(0);
  expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, problems: [], files: manifestFiles(good).length });
  expect(JSON.parse(verified.stdout).parquetFiles).toBeGreaterThan(0);

  const part = manifestFiles(good).find((path) => path.endsWith(".parquet"))!;
  const segment = manifestFiles(good).find((path) => path.endsWith(".sealed"))!;
  const frames = manifestFiles(good).find((path) => path.endsWith(".frames"))!;
  const damages: [string, (dir: string) => void, string][] = [
    ["a byte changed in a lake part", (dir) => flipByte(join(dir, part)), `${part}: SHA-256 differs from the manifest`],
    [
      "a byte changed in a spool segment",
      (dir) => flipByte(join(dir, segment)),
      `${segment}: SHA-256 differs from the manifest`,
    ],
    [
      "a truncated checksum sidecar",
      (dir) => writeFileSync(join(dir, frames), readFileSync(join(dir, frames)).subarray(0, 7)),
      `${frames}: 7 bytes, the manifest says`,
    ],
    ["a missing control database", (dir) => rmSync(join(dir, "data/control.sqlite")), "data/control.sqlite: missing"],
    [
      "a file the manifest does not list",
      (dir) => writeFileSync(join(dir, "data/lake/extra.parquet"), "x"),
      "data/lake/extra.parquet: not in the manifest",
    ],
    [
      "no backup.json (an interrupted backup)",
      (dir) => {
        rmSync(join(dir, "backup.json"));
        writeFileSync(join(dir, "backup.incomplete"), "{}");
      },
      "backup.json: missing: the backup was interrupted",
    ],
    [
      "a manifest's count changed by hand (still valid JSON and schema)",
      (dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, "backup.json"), "utf8"));
        writeFileSync(join(dir, "backup.json"), JSON.stringify({ ...manifest, envelopes: manifest.envelopes + 1 }));
      },
      "backup.json: its fields do not match its manifestSha256",
    ],
    [
      "a manifest that names another control plane",
      (dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, "backup.json"), "utf8"));
        writeFileSync(join(dir, "backup.json"), JSON.stringify({ ...manifest, controlPlane: "postgres" }));
      },
      "backup.json: its fields do not match its manifestSha256",
    ],
    [
      "a format 1 manifest",
      (dir) => writeFileSync(join(dir, "backup.json"), JSON.stringify({ format: 1 })),
      "backup.json: format 1 (written before backups kept checksums)",
    ],
  ];
  for (const [what, damage, named] of damages) {
    const bad = join(tempDir("txray-bad-"), "backup");
    cpSync(good, bad, { recursive: true });
    damage(bad);
    const result = await cli(["backup", "verify", bad]);
    expect({ what, code: result.code }).toEqual({ what, code: 1 });
    expect(result.stderr).toContain(`txray: ${named}`);
    expect(JSON.parse(result.stdout).ok).toBe(false);

    const parent = tempDir("txray-restore-to-");
    const refused = await cli(["restore", bad, join(parent, "data")]);
    expect({ what, code: refused.code }).toEqual({ what, code: 1 });
    expect(refused.stderr).toContain(`txray: ${named}`);
    expect(refused.stderr).toContain("failed verification; nothing was restored");
    expect(readdirSync(parent)).toEqual([]);
  }
});

test("restore: the restored directory has no live ingest node, a SQLite backup is refused under TXRAY_CONTROL_URL, format 2 still reads", async () => {
  const { env } = await source(); // its server, in this process, is a live ingest node of the backed-up instance
  const backup = await takeBackup(env);
  const parent = tempDir("txray-restore-");
  // With TXRAY_CONTROL_URL set, a server here would read PostgreSQL: no control.sqlite is written for nobody.
  const refused = await cli(["restore", backup, join(parent, "data")], {
    TXRAY_CONTROL_URL: "postgres://txray@127.0.0.1:1/none",
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("TXRAY_CONTROL_URL is set");
  expect(readdirSync(parent)).toEqual([]);

  // The first job run in the restored directory asks no node of the backed-up instance to seal.
  expect((await cli(["restore", backup, join(parent, "data")])).code).toBe(0);
  const control = openControlDbReadOnly(join(parent, "data", "control.sqlite"));
  try {
    expect(listIngestNodes(control)).toEqual([]);
  } finally {
    control.close();
  }
  const flushed = await cli(["jobs", "run", "flush"], { TXRAY_DATA_DIR: join(parent, "data") });
  expect(flushed.stderr).not.toContain("did not answer");
  expect(flushed.code).toBe(0);

  // A format 2 manifest (no checksum of its own, always a SQLite control plane) still verifies.
  const { controlPlane, manifestSha256, ...fields } = JSON.parse(readFileSync(join(backup, "backup.json"), "utf8"));
  expect({ controlPlane, manifestSha256 }).toEqual({ controlPlane: "sqlite", manifestSha256: expect.any(String) });
  writeFileSync(join(backup, "backup.json"), JSON.stringify({ ...fields, format: 2 }));
  expect((await cli(["backup", "verify", backup])).code).toBe(0);
});

test("verify reads every Parquet footer: a part already damaged in the lake is named though its checksum matches", async () => {
  const { t, env } = await source();
  const partition = readdirSync(t.ctx.paths.dataset("envelopes"), { recursive: true })
    .map(String)
    .find((name) => name.endsWith(".parquet"))!;
  const broken = join(t.ctx.paths.dataset("envelopes"), dirname(partition), "part-broken-0.parquet");
  writeFileSync(broken, "PAR1 this is not a parquet file PAR1");
  const backup = await takeBackup(env);
  const result = await cli(["backup", "verify", backup]);
  expect(result.code).toBe(1);
  const named = `data/lake/envelopes/${dirname(partition)}/part-broken-0.parquet`;
  expect(JSON.parse(result.stdout).problems).toEqual([
    { file: named, problem: expect.stringMatching(/^Parquet footer unreadable: /) },
  ]);
  expect(result.stderr).toContain(`txray: ${named}: Parquet footer unreadable`);
});

test("restore: into an absent or an empty directory, never into a non-empty one or over a file; snapshots only where asked", async () => {
  const { env } = await source();
  mkdirSync(join(env.TXRAY_SNAPSHOTS_DIR, "landing-score"), { recursive: true });
  writeFileSync(join(env.TXRAY_SNAPSHOTS_DIR, "landing-score", "latest.json"), '{"sample":true}\n');
  const backup = await takeBackup(env);
  const parent = tempDir("txray-restore-");

  // A non-empty target (and a file) is refused; nothing in it changes, nothing appears beside it.
  mkdirSync(join(parent, "busy"));
  writeFileSync(join(parent, "busy", "keep.txt"), "mine");
  writeFileSync(join(parent, "a-file"), "x");
  const before = listing(parent);
  for (const target of ["busy", "a-file"]) {
    const refused = await cli(["restore", backup, join(parent, target)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(target === "busy" ? "is not empty" : "is not a directory");
    expect(listing(parent)).toEqual(before);
  }
  expect(readFileSync(join(parent, "busy", "keep.txt"), "utf8")).toBe("mine");
  expect((await cli(["restore", backup])).code).toBe(2);

  // An empty directory: restored; without --snapshots the snapshots are left out, and it says so.
  mkdirSync(join(parent, "empty"));
  const restored = await cli(["restore", backup, join(parent, "empty")]);
  expect(restored.code).toBe(0);
  expect(restored.stderr).toContain("snapshots were not restored");
  expect(JSON.parse(restored.stdout)).toMatchObject({
    dataDir: join(parent, "empty"),
    snapshotsDir: null,
    snapshotsSkipped: true,
    spoolSegments: 1,
  });
  const dataFiles = manifestFiles(backup).filter((path) => path.startsWith("data/"));
  expect(
    listing(join(parent, "empty"))
      .filter((entry) => !entry.endsWith(":dir"))
      .map((entry) => `data/${entry.split(":")[0]}`)
      .sort(),
  ).toEqual(dataFiles.sort());

  // An absent directory, with the snapshots: every file of the backup.
  const withSnapshots = await cli([
    "restore",
    backup,
    join(parent, "deep", "data"),
    "--snapshots",
    join(parent, "deep", "snapshots"),
  ]);
  expect(withSnapshots.code).toBe(0);
  expect(readFileSync(join(parent, "deep", "snapshots", "landing-score", "latest.json"), "utf8")).toBe(
    '{"sample":true}\n',
  );
  expect(readdirSync(join(parent, "deep")).sort()).toEqual(["data", "snapshots"]);
  expect(readdirSync(parent).filter((name) => name.includes(".restore-"))).toEqual([]);
});

test("a dead backup's staging is counted in /v1/status and removed by the retention job, but not while a backup runs", async () => {
  const { t } = await source();
  // What a backup killed after staging leaves: hard links of lake parts and its own control snapshot.
  const stage = join(t.ctx.paths.staging, `backup-${Bun.randomUUIDv7()}`);
  const part = readdirSync(t.ctx.paths.lake, { recursive: true })
    .map(String)
    .find((name) => name.endsWith(".parquet"))!;
  mkdirSync(join(stage, "lake"), { recursive: true });
  cpSync(join(t.ctx.paths.lake, part), join(stage, "lake", "pinned.parquet"));
  const pinned = statSync(join(stage, "lake", "pinned.parquet")).size;
  linkSync(join(t.ctx.paths.lake, part), join(stage, "lake", "linked.parquet"));
  appendFileSync(join(stage, "control.sqlite"), Buffer.alloc(1000));
  expect((await t.get("/v1/status")).body.disk.stagingBytes).toBe(pinned + 1000); // the hard link is counted once, in the lake

  // A backup running (its lease held): housekeeping leaves its stage alone.
  await withLease(t.ctx.control, "backup", async () => {
    const outcome = await runJob(t.ctx, retentionJob);
    expect(outcome.ok).toBe(true);
    expect((outcome.details as { deadBackupStagesRemoved: number }).deadBackupStagesRemoved).toBe(0);
  });
  expect(existsSync(stage)).toBe(true);
  const outcome = await runJob(t.ctx, retentionJob);
  expect((outcome.details as { deadBackupStagesRemoved: number }).deadBackupStagesRemoved).toBe(1);
  expect(existsSync(stage)).toBe(false);
  expect(existsSync(join(t.ctx.paths.lake, part))).toBe(true);
});

test("backup: one at a time per data directory; the next one removes a dead one's stage and replaces its interrupted target", async () => {
  const { t, env } = await source();
  const target = join(tempDir("txray-bk-"), "backup");
  await withLease(t.ctx.control, "backup", async () => {
    const refused = await cli(["backup", target], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("another backup of");
    expect(existsSync(target)).toBe(false);
  });
  // The leftovers of a backup killed mid-copy (its process gone): a stage, and a target without backup.json.
  const stage = join(t.ctx.paths.staging, `backup-${Bun.randomUUIDv7()}`);
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, "control.sqlite"), "half");
  mkdirSync(join(target, "data", "lake"), { recursive: true });
  writeFileSync(join(target, "data", "lake", "half.parquet"), "half");
  const dead = Bun.spawnSync(["true"]).pid;
  writeFileSync(join(target, "backup.incomplete"), JSON.stringify({ owner: `${hostname()}:${dead}` }));
  expect((await cli(["backup", "verify", target])).code).toBe(1);
  const made = await cli(["backup", target], env);
  expect(made.stderr).toBe("");
  expect(made.code).toBe(0);
  expect(existsSync(stage)).toBe(false);
  expect(readdirSync(t.ctx.paths.staging).filter((name) => name.startsWith("backup-"))).toEqual([]);
  expect((await cli(["backup", "verify", target])).code).toBe(0);
  // A target with anything else in it is never cleared.
  const other = tempDir("txray-other-");
  writeFileSync(join(other, "backup.incomplete"), JSON.stringify({ owner: `${hostname()}:${dead}` }));
  writeFileSync(join(other, "notes.txt"), "mine");
  expect((await cli(["backup", other], env)).stderr).toContain("is not empty");
  expect(readFileSync(join(other, "notes.txt"), "utf8")).toBe("mine");
});
