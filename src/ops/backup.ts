// `txray backup <dir>`: a consistent copy of a running instance — the control database, the lake's
// Parquet parts, the spool's acknowledged-but-unflushed segments with their checksum sidecars, the
// current serving tables, the IDLs and the snapshots — with the SHA-256 of every file in its
// manifest, restored by `txray restore` (docs/operations.md, "Backup").
//
// Consistency: flush, resolve, compaction and retention change the lake and the control database
// together only under the "lake" lease. The backup takes that lease for a moment, snapshots the
// control database (snapshotControlDb), and hard-links every lake part, uncommitted sealed spool
// segment and its sidecar, serving file and IDL into a staging directory beside them (instant, same
// filesystem; these files are never modified in place, only replaced); the acknowledged prefix of
// each active spool segment (and of its checksums) is copied. Then the lease is released and the
// staged files are copied to the target at leisure, hashed on the way, while ingest and jobs go on.
// So the copy is one moment of the instance: every part the snapshot counts is there, no part it
// does not count is, and everything acknowledged by then is in the lake or the spool copy.
//
// The control plane: on SQLite it is snapshotted into data/control.sqlite; on PostgreSQL
// (TXRAY_CONTROL_URL) pg_dump writes control/control.pgdump under the same lake lease (its snapshot
// is taken then), without the live ingest-node rows, and no control.sqlite lying in the data
// directory is copied (it is not the control plane). Without pg_dump the backup refuses, writing nothing.
//
// Completeness: the target gets `backup.incomplete` first and `backup.json` last, so a backup that
// died midway is known as such (`txray backup verify` fails it, `txray restore` refuses it). Its
// staging directory is removed by the next backup or by the retention job's housekeeping; only one
// backup of a data directory runs at a time (the "backup" lease), so any other backup stage is dead.

import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join, relative, resolve } from "node:path";
import { readPointer } from "../analytics/serving/pointer";
import { VERIFIED_BUILDS_DIR_NAME } from "../chain/deploys";
import {
  type ControlDb,
  controlDialect,
  ifLeaseFree,
  isSegmentCommitted,
  lakeRowCount,
  openControlDbReadOnly,
  snapshotControlDb,
  withLease,
} from "../control";
import type { DataPaths } from "../lake/paths";
import { sweepStaging } from "../lake/staging";
import { syncDirectory, writeFileDurably } from "../shared/durable-files";
import { eachConcurrently } from "../shared/each-concurrently";
import { fault } from "../shared/fault";
import { processAlive } from "../shared/process-alive";
import { VERSION } from "../shared/version";
import { FRAME_RECORD_BYTES, FRAMES_SUFFIX, framesFileOf, QUARANTINE_DIR, segmentNameOf } from "../spool";
import {
  type BackupFile,
  type BackupManifest,
  CONTROL_DUMP_FILE,
  FILES_AT_ONCE,
  hashFile,
  INCOMPLETE_FILE,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestChecksum,
} from "./backup-manifest";

export type BackupDeps = {
  paths: DataPaths;
  control: ControlDb;
  snapshotsDir: string;
  clock: () => number;
  /** The PostgreSQL control plane's URL (TXRAY_CONTROL_URL) and the pg_dump that copies it (null: not on PATH). */
  postgres?: { url: string; pgDump: string | null };
};

/** The documented procedure a refused PostgreSQL backup points to. */
export const POSTGRES_BACKUP_DOC = 'docs/operations.md, "A PostgreSQL control plane"';

/** Held for a whole backup: one backup of a data directory at a time, and its stage is never swept from under it. */
const BACKUP_LEASE = "backup";
/** Staging and the control snapshot block the event loop (no renewal meanwhile): the lease outlives a long one. */
const LEASE_TTL_MS = 10 * 60_000;

export async function backupInstance(deps: BackupDeps, targetDir: string): Promise<BackupManifest> {
  const started = performance.now();
  const target = resolve(targetDir);
  const source = resolve(deps.paths.root);
  if (target === source || target.startsWith(`${source}/`))
    throw new Error(`backup target ${target} is inside the data directory ${source}`);
  const postgres = controlDialect(deps.control) === "postgres";
  if (postgres && !deps.postgres?.pgDump)
    throw new Error(
      `the control plane is on PostgreSQL (TXRAY_CONTROL_URL) and pg_dump is not on PATH: install PostgreSQL's client tools (the server's major version or newer), or follow ${POSTGRES_BACKUP_DOC}`,
    );
  const interrupted = checkTarget(target);

  const run = await ifLeaseFree(
    deps.control,
    BACKUP_LEASE,
    async () => {
      sweepStaging(deps.paths, "backup"); // stages of backups that died (none can be running: we hold the lease)
      if (interrupted) rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      // A backup holds what the data directory holds: the owner's only (0700, its files 0600), whatever the umask.
      chmodSync(target, 0o700);
      writeFileDurably(
        join(target, INCOMPLETE_FILE),
        `${JSON.stringify({ owner: `${hostname()}:${process.pid}`, startedAt: deps.clock(), source })}\n`,
      );
      chmodSync(join(target, INCOMPLETE_FILE), 0o600);
      const stageRoot = join(deps.paths.staging, `backup-${Bun.randomUUIDv7()}`);
      const stage = join(stageRoot, "data");
      const controlStage = join(stageRoot, "control");
      mkdirSync(stage, { recursive: true });
      try {
        const counts = await withLease(
          deps.control,
          "lake",
          async () => {
            let envelopes: number | null = null;
            if (postgres) {
              // pg_dump's snapshot is taken while the lease is held: the same moment as the files below.
              mkdirSync(controlStage);
              await pgDump(deps.postgres!, join(stageRoot, CONTROL_DUMP_FILE));
              envelopes = lakeRowCount(deps.control);
            } else snapshotControlDb(deps.control, join(stage, "control.sqlite"));
            const lakeFiles = linkTree(deps.paths.lake, join(stage, "lake"), (name) => name.endsWith(".parquet"));
            const spool = stageSpool(deps.control, deps.paths.spoolRoot, join(stage, "spool"));
            const servingVersion = stageServing(deps.paths, join(stage, "tables"));
            const idlFiles = linkTree(deps.paths.idl, join(stage, "idl"), (name) => name.endsWith(".json"));
            // Each deploy's verified-build source: once a later release overwrites the on-chain record,
            // the cache is the only copy of an older deploy's commit.
            linkTree(join(deps.paths.root, VERIFIED_BUILDS_DIR_NAME), join(stage, VERIFIED_BUILDS_DIR_NAME), (name) =>
              name.endsWith(".json"),
            );
            // The signature index (why, diagnose-drop) and the resolver's checkpoint of its open attempts:
            // both replaced by rename, never modified in place. Read under the lease, the checkpoint holds
            // no commit the control snapshot lacks (src/chain/resolve/checkpoint.ts).
            linkTree(deps.paths.signatureIndex, join(stage, "index", "signatures"), (name) => name.endsWith(".run"));
            linkTree(deps.paths.resolver, join(stage, "resolver"), (name) => name === "checkpoint.json");
            return { envelopes, lakeFiles, ...spool, servingVersion, idlFiles };
          },
          { ttlMs: LEASE_TTL_MS },
        );
        const envelopes = counts.envelopes ?? countEnvelopes(join(stage, "control.sqlite"));

        const files: BackupFile[] = [];
        await copyHashedTree(stage, target, "data", files);
        if (postgres) await copyHashedTree(controlStage, target, "control", files);
        const snapshots = existsSync(deps.snapshotsDir);
        if (snapshots) await copyHashedTree(deps.snapshotsDir, target, "snapshots", files);
        files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const fields: Omit<BackupManifest, "manifestSha256"> = {
          format: MANIFEST_FORMAT,
          txrayVersion: VERSION,
          createdAt: deps.clock(),
          source,
          controlPlane: postgres ? "postgres" : "sqlite",
          ...counts,
          envelopes,
          snapshots,
          bytes: files.reduce((sum, file) => sum + file.bytes, 0),
          seconds: Math.round((performance.now() - started) / 100) / 10,
          files,
        };
        const manifest: BackupManifest = { ...fields, manifestSha256: manifestChecksum(fields) };
        writeFileDurably(join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
        chmodSync(join(target, MANIFEST_FILE), 0o600);
        rmSync(join(target, INCOMPLETE_FILE), { force: true });
        syncDirectory(target);
        return manifest;
      } finally {
        rmSync(stageRoot, { recursive: true, force: true });
      }
    },
    LEASE_TTL_MS,
  );
  if (!run.ran) throw new Error(`another backup of ${source} is running; wait for it to finish`);
  return run.value;
}

/**
 * Housekeeping (the retention job): removes the staging directories of backups that died, unless a
 * backup is running now. Returns how many went.
 */
export async function sweepDeadBackupStages(deps: Pick<BackupDeps, "paths" | "control">): Promise<number> {
  const run = await ifLeaseFree(
    deps.control,
    BACKUP_LEASE,
    async () => sweepStaging(deps.paths, "backup"),
    LEASE_TTL_MS,
  );
  return run.ran ? run.value : 0;
}

/**
 * The target must be absent or empty, or hold only a backup that died midway here (its
 * `backup.incomplete` names a process of this host that is gone, and there is no `backup.json`):
 * returns true for the latter, which the backup replaces. Refuses anything else, writing nothing.
 */
function checkTarget(target: string): boolean {
  if (!existsSync(target)) return false;
  if (!statSync(target).isDirectory()) throw new Error(`backup target ${target} is not a directory`);
  const names = readdirSync(target);
  if (names.length === 0) return false;
  if (
    !names.includes(INCOMPLETE_FILE) ||
    names.includes(MANIFEST_FILE) ||
    !names.every((name) => [INCOMPLETE_FILE, "data", "snapshots", "control", `.${MANIFEST_FILE}.tmp`].includes(name))
  )
    throw new Error(`backup target ${target} is not empty`);
  let owner = "";
  try {
    owner = String(
      (JSON.parse(readFileSync(join(target, INCOMPLETE_FILE), "utf8")) as { owner?: unknown }).owner ?? "",
    );
  } catch {}
  const [host, pid] = owner.split(":");
  if (host === hostname() && processAlive(Number(pid)))
    throw new Error(`a backup into ${target} is running (process ${pid})`);
  if (host !== hostname())
    throw new Error(
      `backup target ${target} holds an interrupted backup started on host ${host || "unknown"}; remove it or pick another target`,
    );
  return true;
}

/**
 * The control plane into `file` with pg_dump (custom format, for pg_restore), the live ingest-node
 * rows left out: a restored instance starts with none. The password goes through the environment,
 * never the command line (other users of the host can read that).
 */
async function pgDump(postgres: { url: string; pgDump: string | null }, file: string): Promise<void> {
  const url = new URL(postgres.url);
  const password = decodeURIComponent(url.password);
  url.password = "";
  const child = Bun.spawn(
    [
      postgres.pgDump!,
      "--format=custom",
      "--no-password",
      "--exclude-table-data=ingest_nodes",
      "--exclude-table-data=seal_requests",
      `--file=${file}`,
      `--dbname=${url.href}`,
    ],
    {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}), PGCONNECT_TIMEOUT: "10" },
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0)
    throw new Error(
      `pg_dump failed (exit ${code}): ${stderr.trim().split("\n")[0] || "no message"}; nothing was backed up (${POSTGRES_BACKUP_DOC})`,
    );
  chmodSync(file, 0o600);
}

function countEnvelopes(file: string): number {
  const db = openControlDbReadOnly(file);
  try {
    return lakeRowCount(db);
  } finally {
    db.close();
  }
}

/** Hard-links the files under `from` that `keep` accepts into `to`, keeping the layout; returns how many. */
function linkTree(from: string, to: string, keep: (name: string) => boolean): number {
  if (!existsSync(from)) return 0;
  let count = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && keep(entry.name)) {
        const destination = join(to, relative(from, path));
        mkdirSync(join(destination, ".."), { recursive: true });
        linkSync(path, destination);
        count++;
      }
    }
  };
  walk(from);
  return count;
}

/**
 * Under the lake lease. Sealed segments not yet committed are linked with their sidecars (a
 * committed one's rows are in the lake copy already; none can be committed or set aside while the
 * lease is held, so none vanishes meanwhile); an active segment's acknowledged prefix is copied as
 * a sealed one, with the checksum records that cover it, so the restored instance flushes it and
 * still verifies it. Quarantined segments are linked for inspection. The owner file is left out:
 * the restored spool belongs to whichever process opens it.
 */
function stageSpool(
  control: ControlDb,
  spoolRoot: string,
  to: string,
): { spoolSegments: number; quarantinedSegments: number } {
  const counts = { spoolSegments: 0, quarantinedSegments: 0 };
  if (!existsSync(spoolRoot)) return counts;
  for (const node of readdirSync(spoolRoot)) {
    const dir = join(spoolRoot, node);
    if (!statSync(dir).isDirectory()) continue;
    mkdirSync(join(to, node), { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      // An active segment may be sealed (renamed) between the listing and the copy: list again.
      try {
        for (const name of readdirSync(dir)) {
          const destination = join(to, node, name.replace(/\.active$/, ".sealed"));
          if (existsSync(destination)) continue;
          if (name.endsWith(".sealed")) {
            if (isSegmentCommitted(control, segmentNameOf(name))) continue;
            linkSync(join(dir, name), destination);
            if (existsSync(framesFileOf(join(dir, name))))
              linkSync(framesFileOf(join(dir, name)), framesFileOf(destination));
            counts.spoolSegments++;
          } else if (name.endsWith(".active") && copyAcknowledged(join(dir, name), destination)) counts.spoolSegments++;
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 4) throw error;
      }
    }
    counts.quarantinedSegments += linkTree(join(dir, QUARANTINE_DIR), join(to, node, QUARANTINE_DIR), (name) =>
      name.endsWith(".sealed"),
    );
    linkTree(join(dir, QUARANTINE_DIR), join(to, node, QUARANTINE_DIR), (name) => name.endsWith(FRAMES_SUFFIX));
  }
  return counts;
}

/**
 * Copies the acknowledged part of an active segment to `destination` (as sealed); false when it
 * has none. With checksums: the batches its whole records cover (records are read first, and each
 * batch's bytes reach the file before its record), and those records. Without (a legacy segment):
 * up to and including its last newline.
 */
function copyAcknowledged(file: string, destination: string): boolean {
  const frames = existsSync(framesFileOf(file)) ? readFileSync(framesFileOf(file)) : null;
  const data = readWhole(file);
  let end: number;
  let records: Uint8Array | null = null;
  if (frames) {
    const view = new DataView(frames.buffer, frames.byteOffset, frames.byteLength);
    let whole = Math.floor(frames.length / FRAME_RECORD_BYTES);
    const endOf = (i: number) =>
      Number(view.getBigUint64(i * FRAME_RECORD_BYTES, true)) + view.getUint32(i * FRAME_RECORD_BYTES + 8, true);
    while (whole > 0 && endOf(whole - 1) > data.length) whole--; // a write that failed and is being cut: never acknowledged
    end = whole > 0 ? endOf(whole - 1) : 0;
    records = frames.subarray(0, whole * FRAME_RECORD_BYTES);
  } else end = data.lastIndexOf(10) + 1;
  if (end === 0) return false;
  writeFileSync(destination, data.subarray(0, end));
  if (records) writeFileSync(framesFileOf(destination), records);
  return true;
}

function readWhole(file: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const size = statSync(file).size;
    const data = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, data, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return data.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The current serving version's files and its pointer (null:
 * none built yet, or replaced meanwhile: rebuild after restore). The tables job's own state is not
 * copied: the restored instance's first run rebuilds it from the lake (docs/operations.md).
 */
function stageServing(paths: DataPaths, to: string): number | null {
  const pointer = readPointer(paths);
  if (pointer === null) return null;
  const prefix = `serving-${pointer.version}.`;
  const files = existsSync(paths.tables)
    ? readdirSync(paths.tables).filter((name) => name.startsWith(prefix) && !name.endsWith(".wal"))
    : [];
  if (!files.includes(`serving-${pointer.version}.duckdb`)) return null;
  mkdirSync(to, { recursive: true });
  try {
    for (const name of files) linkSync(join(paths.tables, name), join(to, name));
  } catch {
    rmSync(to, { recursive: true, force: true });
    return null;
  }
  writeFileSync(join(to, "current.json"), JSON.stringify(pointer));
  return pointer.version;
}

/**
 * Copies a tree into `<target>/<prefix>/…` (the staged hard links become independent copies), a few
 * files at once, hashing each file on the way and listing it in `files`; then syncs every directory.
 */
async function copyHashedTree(from: string, target: string, prefix: string, files: BackupFile[]): Promise<void> {
  const sources: string[] = [];
  const directories: string[] = [];
  const walk = (dir: string) => {
    directories.push(join(target, prefix, relative(from, dir)));
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.isFile()) sources.push(join(dir, entry.name));
    }
  };
  walk(from);
  for (const dir of directories) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o700);
  }
  await eachConcurrently(sources, FILES_AT_ONCE, async (source) => {
    const copy = join(target, prefix, relative(from, source));
    const { bytes, sha256 } = await hashFile(source, copy);
    chmodSync(copy, 0o600);
    files.push({ path: [prefix, relative(from, source)].join("/"), bytes, sha256 });
    fault("backup:mid-copy");
  });
  for (const dir of directories) syncDirectory(dir);
}
