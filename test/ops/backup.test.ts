// `txray backup <dir>` of a running instance, restored with `txray restore` (docs/operations.md): the
// restored instance gives the same answers on every route, holds every envelope acknowledged before
// the backup began exactly once (flushed or still in the spool copy, with its checksums), and its
// control database counts exactly the lake parts the copy holds, even with ingest, flush and the
// other jobs running during the backup. backup.json lists every file with its SHA-256. The real
// processes, kill -9 and damaged copies are in test/reliability/backup-restore.test.ts.

import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { buildServingTables } from "../../src/analytics/tables/build";
import { EMPTY_STORY, type ResolvedEntry } from "../../src/chain/resolve";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { createAccountKey } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { type RunningServer, startServer } from "../../src/server";
import { silentLogger } from "../../src/shared/logger";
import { cliInProcess, scratch } from "../helpers/backups";
import { makeEnvelope, PROGRAMS, randomSignature } from "../helpers/envelopes";

const END_MS = 1_763_700_000_000;
const { defer, tempDir } = scratch();

async function instance(dataDir: string, env: Record<string, string> = {}, clock?: () => number) {
  const config = loadConfig({
    TXRAY_DATA_DIR: dataDir,
    TXRAY_SNAPSHOTS_DIR: join(dataDir, "..", "snapshots"),
    TXRAY_SCHEDULER: "off",
    TXRAY_LOG_LEVEL: "silent",
    API_HOST: "127.0.0.1",
    API_PORT: "0",
    INGEST_WORKERS: "0",
    PUBLIC_RATE_PER_MINUTE: "1000000",
    ...env,
  });
  const ctx: Context = await createContext(config, { logger: silentLogger, clock });
  const server: RunningServer = await startServer(ctx, { port: 0, hostname: "127.0.0.1" });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    ctx.close();
  };
  defer(stop);
  return { ctx, server, stop };
}

const cli = cliInProcess;

async function answer(server: RunningServer, path: string, key?: string) {
  const response = await fetch(`${server.url}${path}`, { headers: key ? { "x-api-key": key } : {} });
  return { status: response.status, body: (await response.json()) as any };
}

async function ingest(server: RunningServer, key: string, envelopes: unknown[]) {
  const response = await fetch(`${server.url}/v1/ingest`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ envelopes }),
  });
  return response.status;
}

/** Restores a backup as docs/operations.md says (`txray restore`, snapshots beside the data directory). */
async function restore(backupDir: string): Promise<string> {
  const root = tempDir("txray-restored-");
  const restored = await cli(["restore", backupDir, join(root, "data"), "--snapshots", join(root, "snapshots")], {});
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  return join(root, "data");
}

const lakeRows = (ctx: Context) =>
  ctx.duck.all<{ attempt_id: string; sig: string | null; spool_segment: string }>(
    `SELECT attempt_id, sig, spool_segment FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}')`,
  );

test("a restored backup answers every route exactly as the instance did", async () => {
  const root = tempDir("txray-source-");
  const dataDir = join(root, "data");
  const clock = () => END_MS;
  const source = await instance(dataDir, {}, clock);
  const a = createAccountKey(source.ctx.control, "bk-a", "live", END_MS);
  const b = createAccountKey(source.ctx.control, "bk-b", "read", END_MS);
  const generated = await generateLake({
    dataDir,
    envelopes: 3000,
    programs: 2,
    days: 30,
    seed: 9,
    endMs: END_MS,
    accounts: [a.record.accountId, b.record.accountId],
    control: source.ctx.control,
    threads: 1,
  });
  // Envelopes through the server: some flushed into the lake, some still in the spool.
  expect(
    await ingest(source.server, a.key, [
      makeEnvelope({ program: PROGRAMS.jupiter }),
      makeEnvelope({ program: PROGRAMS.jupiter }),
    ]),
  ).toBe(202);
  await source.server.spool!.seal();
  await flushSpool(source.ctx);
  expect(await ingest(source.server, a.key, [makeEnvelope({ program: PROGRAMS.token })])).toBe(202);
  // Serving tables, an indexed attempt (why), an IDL and a snapshot.
  await buildServingTables(source.ctx);
  const sig = randomSignature();
  const dropped: ResolvedEntry = {
    attemptId: "att-1",
    accountId: a.record.accountId,
    program: generated.programs[0],
    payer: "payer",
    rpcHash: "h",
    rpcLabel: "l",
    sentAt: END_MS - 1000,
    state: "resolved",
    at: END_MS - 500,
    outcome: "dropped",
    slot: null,
    blockTime: null,
    err: null,
    story: EMPTY_STORY,
    fingerprint: null,
    drop: {
      dropClass: "expired_blockhash",
      confidence: 0.5,
      evidence: [{ kind: "blockhash_expired", detail: "expired", value: 1 }],
    },
  };
  await source.ctx.signatures.append([{ sig, attemptId: "att-1", value: dropped }], () => END_MS - 500);
  const env = { TXRAY_DATA_DIR: dataDir, TXRAY_SNAPSHOTS_DIR: join(root, "snapshots") };
  const idlFile = join(import.meta.dir, "..", "fixtures", "mainnet", "04_idl_jupiter_v6_legacy.json");
  expect((await cli(["idl", "add", PROGRAMS.jupiter, idlFile], env)).code).toBe(0);
  mkdirSync(join(root, "snapshots", "landing-score"), { recursive: true });
  writeFileSync(join(root, "snapshots", "landing-score", "latest.json"), '{"sample":true}\n');
  // A deploy's cached verified-build source: once the on-chain record moves on, the only copy.
  mkdirSync(join(dataDir, "verified-builds", PROGRAMS.jupiter), { recursive: true });
  writeFileSync(join(dataDir, "verified-builds", PROGRAMS.jupiter, "300000000.json"), '{"source":null}\n');

  const backupDir = join(tempDir("txray-backup-"), "b1");
  const made = await cli(["backup", backupDir], env);
  expect(made.stderr).toBe("");
  expect(made.code).toBe(0);
  const manifest = JSON.parse(made.stdout);
  // The generated lake records no spool segments; the two envelopes flushed through the server do.
  expect(manifest).toMatchObject({
    format: 3,
    controlPlane: "sqlite",
    envelopes: 2,
    spoolSegments: 1,
    quarantinedSegments: 0,
    idlFiles: 1,
    snapshots: true,
  });
  expect(manifest.servingVersion).toEqual(expect.any(Number));
  const { files, ...written } = JSON.parse(readFileSync(join(backupDir, "backup.json"), "utf8"));
  expect(written).toEqual(manifest);
  // Every file, with its size and SHA-256; the spool segment with its checksum sidecar.
  expect(existsSync(join(backupDir, "backup.incomplete"))).toBe(false);
  expect(files.map((file: { path: string }) => file.path)).toEqual(
    [...files.map((file: { path: string }) => file.path)].sort(),
  );
  for (const file of files) {
    const bytes = readFileSync(join(backupDir, file.path));
    expect({
      path: file.path,
      bytes: bytes.length,
      sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
    }).toEqual(file);
  }
  expect(files.map((file: { path: string }) => file.path)).toContain(
    `data/verified-builds/${PROGRAMS.jupiter}/300000000.json`,
  );
  const spoolFiles = files
    .map((file: { path: string }) => file.path)
    .filter((path: string) => path.startsWith("data/spool/"));
  expect(
    spoolFiles
      .filter((path: string) => path.endsWith(".sealed"))
      .map((path: string) => path.replace(/\.sealed$/, ".frames")),
  ).toEqual(spoolFiles.filter((path: string) => path.endsWith(".frames")));
  expect(spoolFiles).toHaveLength(2);
  expect(manifest.bytes).toBe(files.reduce((sum: number, file: { bytes: number }) => sum + file.bytes, 0));
  expect((await cli(["backup", "verify", backupDir], {})).code).toBe(0);
  // Refuses a non-empty target and a target inside the data directory.
  expect((await cli(["backup", backupDir], env)).code).toBe(1);
  expect((await cli(["backup", join(dataDir, "inside")], env)).code).toBe(1);

  const restoredDir = await restore(backupDir);
  const restored = await instance(restoredDir, {}, clock);
  expect(existsSync(join(restoredDir, "..", "snapshots", "landing-score", "latest.json"))).toBe(true);

  const program = generated.programs[0];
  const paths: [string, string?][] = [];
  for (const p of generated.programs) {
    for (const route of ["baseline", "top-issues", "cu-headroom", "provider-report", "release-diff"]) {
      paths.push(
        [`/v1/${route}/${p}?window=30d`],
        [`/v1/${route}/${p}?window=7d&scope=account`, a.key],
        [`/v1/${route}/${p}?window=30d&scope=account`, b.key],
      );
    }
  }
  const payer = (
    await source.ctx.duck.all<{ payer: string }>(
      `SELECT payer FROM read_parquet('${source.ctx.paths.datasetGlob("envelopes")}') WHERE program = '${program}' LIMIT 1`,
    )
  )[0].payer;
  paths.push(
    [`/v1/wallet/${program}/${payer}?window=30d&limit=5`],
    [`/v1/programs`, a.key],
    [`/v1/programs`, b.key],
    [`/v1/why/${sig}`],
    [`/v1/diagnose-drop/${sig}`],
  );
  let compared = 0;
  for (const [path, key] of paths) {
    const before = await answer(source.server, path, key);
    const after = await answer(restored.server, path, key);
    expect({ path, ...after }).toEqual({ path, ...before });
    if (before.status === 200) compared++;
  }
  expect(compared).toBeGreaterThan(20);
  const statusBefore = (await answer(source.server, "/v1/status")).body;
  const statusAfter = (await answer(restored.server, "/v1/status")).body;
  expect(statusAfter.lake.envelopes).toBe(statusBefore.lake.envelopes);
  expect(statusAfter.jobs).toEqual(statusBefore.jobs);
  expect((await cli(["keys", "list"], { TXRAY_DATA_DIR: restoredDir })).stdout).toBe(
    (await cli(["keys", "list"], env)).stdout,
  );

  // The envelope still in the source's spool is in the copy's spool: flushed, both lakes hold the same attempts.
  await source.server.spool!.seal();
  await flushSpool(source.ctx);
  await restored.server.spool!.seal();
  await flushSpool(restored.ctx);
  const ids = async (ctx: Context) => (await lakeRows(ctx)).map((row) => row.attempt_id).sort();
  expect(await ids(restored.ctx)).toEqual(await ids(source.ctx));
}, 120_000);

test("a backup taken under ingest and running jobs holds every envelope acknowledged before it began, once", async () => {
  const root = tempDir("txray-live-");
  const dataDir = join(root, "data");
  const source = await instance(dataDir, {
    SPOOL_SEAL_MS: "50",
    FLUSH_INTERVAL_MS: "40",
    COMPACT_INTERVAL_MS: "300",
    TABLES_INTERVAL_MS: "400",
    RESOLVE_INTERVAL_MS: "100000",
    DEPLOYS_INTERVAL_MS: "100000",
  });
  // The scheduler runs flush, compaction and the tables build throughout.
  const { startScheduler } = await import("../../src/jobs/scheduler");
  const { schedule } = await import("../../src/jobs/registry");
  const scheduler = startScheduler(
    source.ctx,
    schedule(source.ctx.config).filter((s) => ["flush", "compact", "tables"].includes(s.job.name)),
    { spool: source.server.spool ?? undefined },
  );
  defer(() => scheduler.stop());
  const key = createAccountKey(source.ctx.control, "live-load", "live", Date.now()).key;

  const acknowledged: string[] = [];
  let backupStarted = false;
  const beforeBackup = new Set<string>();
  let stop = false;
  const load = (async () => {
    while (!stop) {
      const batch = Array.from({ length: 20 }, () =>
        makeEnvelope({ program: acknowledged.length % 2 ? PROGRAMS.jupiter : PROGRAMS.token, sentAt: Date.now() }),
      );
      const started = backupStarted;
      if ((await ingest(source.server, key, batch)) === 202) {
        for (const envelope of batch) {
          acknowledged.push(envelope.sig!);
          if (!started) beforeBackup.add(envelope.sig!);
        }
      }
    }
  })();
  while (acknowledged.length < 2000) await Bun.sleep(20);
  backupStarted = true;
  // A batch answered before this line was acknowledged before the backup began.
  const acknowledgedAtStart = new Set(acknowledged);
  const backupDir = join(tempDir("txray-live-backup-"), "b");
  const made = await cli(["backup", backupDir], {
    TXRAY_DATA_DIR: dataDir,
    TXRAY_SNAPSHOTS_DIR: join(root, "snapshots"),
  });
  expect(made.code).toBe(0);
  while (acknowledged.length < acknowledgedAtStart.size + 1000) await Bun.sleep(20);
  stop = true;
  await load;
  await scheduler.stop();

  const restoredDir = await restore(backupDir);
  const config = loadConfig({ TXRAY_DATA_DIR: restoredDir, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" });
  const restored = await createContext(config, { logger: silentLogger });
  defer(() => restored.close());
  // Before anything runs: the control database counts exactly the parts the copy holds.
  const rows = await lakeRows(restored);
  const segments = restored.control
    .query<{ segment: string; rows: number }, []>("SELECT segment, rows FROM lake_segments")
    .all();
  const perSegment = new Map<string, number>();
  for (const row of rows) perSegment.set(row.spool_segment, (perSegment.get(row.spool_segment) ?? 0) + 1);
  expect(Object.fromEntries(perSegment)).toEqual(Object.fromEntries(segments.map((s) => [s.segment, s.rows])));
  // Then the restored spool is flushed: every envelope acknowledged before the backup, exactly once.
  await flushSpool(restored);
  const after = await lakeRows(restored);
  const seen = new Map<string, number>();
  for (const row of after) seen.set(row.sig!, (seen.get(row.sig!) ?? 0) + 1);
  const missing = [...acknowledgedAtStart].filter((sig) => !seen.has(sig));
  expect(missing).toEqual([]);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
  expect(new Set(after.map((row) => row.attempt_id)).size).toBe(after.length);
  expect(beforeBackup.size).toBeGreaterThan(0);
}, 180_000);
