// `txray backup` of an instance whose control plane is on PostgreSQL (TXRAY_CONTROL_URL): pg_dump
// writes control/control.pgdump, listed with its SHA-256, and a stale control.sqlite lying in the
// data directory is never copied; without pg_dump on PATH it refuses in one line naming the
// documented procedure, writing nothing. `txray restore` restores the data directory, writes no
// control.sqlite, and prints the commands that restore the dump; run as printed, they give a
// control plane that counts the backed-up lake and has no live ingest node. One throwaway cluster.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lakeRowCount, listIngestNodes, openControlDb } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { cliInProcess, scratch } from "../helpers/backups";
import { makeEnvelope } from "../helpers/envelopes";
import { POSTGRES_MISSING, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres";
import { testServer } from "../helpers/server";

const { defer, tempDir } = scratch();
const cli = cliInProcess;
const bin = postgresBinaries();
const pgDump = Bun.which("pg_dump");
const runnable = bin !== null && pgDump !== null && Bun.which("pg_restore") !== null && Bun.which("psql") !== null;
if (!runnable)
  console.warn(`backup-postgres.test: skipped: ${bin ? "pg_dump, pg_restore or psql not on PATH" : POSTGRES_MISSING}`);
let cluster: PostgresCluster | null = null;
afterAll(async () => {
  await cluster?.stop();
});

test.skipIf(!runnable)(
  "a backup pg_dumps a PostgreSQL control plane, never a stale control.sqlite; restore says what to restore by hand",
  async () => {
    cluster = await startPostgres(bin!);
    const url = await cluster.createDatabase("source");
    const t = await testServer({ TXRAY_CONTROL_URL: url, SPOOL_SEAL_MS: "600000" });
    defer(() => t.stop());
    const key = t.key("acme");
    expect((await t.ingest({ apiKey: key, envelopes: Array.from({ length: 5 }, () => makeEnvelope()) })).status).toBe(
      202,
    );
    await t.server.spool!.seal();
    await flushSpool(t.ctx);
    // A control.sqlite from before the move to PostgreSQL still lies in the data directory.
    writeFileSync(join(t.ctx.paths.root, "control.sqlite"), "stale");
    const env = {
      TXRAY_DATA_DIR: t.ctx.paths.root,
      TXRAY_CONTROL_URL: url,
      TXRAY_SNAPSHOTS_DIR: join(tempDir("txray-pg-snapshots-"), "none"),
    };

    const backupDir = join(tempDir("txray-pg-bk-"), "backup");
    const made = await cli(["backup", backupDir], env);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ format: 3, controlPlane: "postgres", envelopes: 5 });
    const files = (JSON.parse(readFileSync(join(backupDir, "backup.json"), "utf8")).files as { path: string }[]).map(
      (file) => file.path,
    );
    expect(files).toContain("control/control.pgdump");
    expect(files).not.toContain("data/control.sqlite");
    expect(readFileSync(join(backupDir, "control/control.pgdump")).subarray(0, 5).toString()).toBe("PGDMP");
    expect((await cli(["backup", "verify", backupDir])).code).toBe(0);

    // Without pg_dump: one line naming the documented procedure, and nothing written.
    const refusedDir = join(tempDir("txray-pg-none-"), "backup");
    const refused = await cli(["backup", refusedDir], { ...env, PATH: "/nonexistent" });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("pg_dump is not on PATH");
    expect(refused.stderr).toContain("docs/operations.md");
    expect(existsSync(refusedDir)).toBe(false);
    const restoredDir = join(tempDir("txray-pg-restored-"), "data");
    const restored = await cli(["restore", backupDir, restoredDir], env);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ controlPlane: "postgres", envelopes: 5 });
    expect(existsSync(join(restoredDir, "control.sqlite"))).toBe(false);
    const byHand = JSON.parse(restored.stdout).byHand as string[];
    expect(restored.stderr).toBe(byHand.map((command) => `txray: restore by hand: ${command}\n`).join(""));
    expect(byHand[0]).toStartWith("pg_restore ");
    // The printed commands, run against a fresh database, restore the control plane of the backup.
    const target = await cluster.createDatabase("restored");
    for (const command of byHand) {
      const ran = Bun.spawnSync(["sh", "-c", command], {
        env: { ...process.env, TXRAY_CONTROL_URL: target },
        stderr: "pipe",
      });
      expect({ command, stderr: ran.stderr.toString(), code: ran.exitCode }).toMatchObject({ command, code: 0 });
    }
    const control = openControlDb(join(restoredDir, "control.sqlite"), target);
    try {
      expect(lakeRowCount(control)).toBe(5);
      expect(listIngestNodes(control)).toEqual([]);
    } finally {
      control.close();
    }
  },
  60_000,
);
