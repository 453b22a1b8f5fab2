// `txray restore <backup> <data dir>`: a backup back into a data directory that a server then starts
// on (docs/operations.md, "Restore"). It refuses, writing nothing, a target that exists and is not an
// empty directory and a backup that fails `txray backup verify`. It copies the manifest's files into
// a temporary directory beside the target (hashing them again on the way), syncs them, and renames
// the directory into place: an interrupted restore leaves no half instance under the target's name,
// only a temporary directory that the next restore beside it removes.
//
// The restored instance starts with no live ingest-node records: those of the backed-up instance
// name processes that are not this instance's (a job run here would wait for them to seal). A
// PostgreSQL control plane is not restored here: its dump stays in the backup, and the result says
// the commands that restore it (`byHand`); with TXRAY_CONTROL_URL set, a SQLite backup is refused
// rather than restored into a control.sqlite the server would not read.

import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { forgetAllIngestNodes, RESTORED_CONTROL_PLANE_RESET_SQL, sqliteControlDb } from "../control";
import type { Duck } from "../lake/duckdb";
import { syncDirectory } from "../shared/durable-files";
import { eachConcurrently } from "../shared/each-concurrently";
import { fault } from "../shared/fault";
import { processAlive } from "../shared/process-alive";
import { type BackupFile, CONTROL_DUMP_FILE, FILES_AT_ONCE, hashFile } from "./backup-manifest";
import { type BackupProblem, verifyBackup } from "./backup-verify";

export type RestoreOptions = {
  duck: Duck;
  /** Where the backup's snapshots go; without it they are not restored. */
  snapshotsDir?: string;
  /** TXRAY_CONTROL_URL of the restoring environment: the server there reads its control plane from PostgreSQL. */
  controlUrl?: string;
};
export type RestoreResult = {
  backup: string;
  dataDir: string;
  /** Where the snapshots went; null when the backup has none or no snapshots directory was given. */
  snapshotsDir: string | null;
  snapshotsSkipped: boolean;
  /** sqlite: restored with the data directory; postgres: left in the backup for the `byHand` commands. */
  controlPlane: "sqlite" | "postgres";
  /** What the operator restores by hand before starting a server on the data directory (empty: nothing). */
  byHand: string[];
  envelopes: number;
  spoolSegments: number;
  servingVersion: number | null;
  files: number;
  bytes: number;
  seconds: number;
};

/** A refusal: the backup failed verification (each problem names a file), or the target is not usable. */
export class RestoreRefused extends Error {
  constructor(
    message: string,
    readonly problems: BackupProblem[] = [],
  ) {
    super(message);
  }
}

const OWNER_FILE = ".txray-restore-owner";

export async function restoreBackup(
  backupDir: string,
  dataDir: string,
  options: RestoreOptions,
): Promise<RestoreResult> {
  const started = performance.now();
  const backup = resolve(backupDir);
  const target = resolve(dataDir);
  const snapshotsTarget = options.snapshotsDir === undefined ? null : resolve(options.snapshotsDir);
  for (const path of [target, snapshotsTarget]) if (path) checkTarget(path, backup);
  if (snapshotsTarget === target)
    throw new RestoreRefused("the data directory and the snapshots directory must differ");

  const verified = await verifyBackup(backup, options.duck);
  if (!verified.ok || !verified.manifest)
    throw new RestoreRefused(`backup ${backup} failed verification; nothing was restored`, verified.problems);
  const manifest = verified.manifest;
  if (manifest.controlPlane === "sqlite" && options.controlUrl)
    throw new RestoreRefused(
      `backup ${backup} holds a SQLite control plane (data/control.sqlite), but TXRAY_CONTROL_URL is set: a server here would read PostgreSQL and ignore it; unset TXRAY_CONTROL_URL to restore it (nothing was restored)`,
    );
  const restoreSnapshots = manifest.snapshots && snapshotsTarget !== null;

  // Snapshots first, then the data directory: once the data directory exists, everything is there.
  if (restoreSnapshots)
    await restoreTree(
      backup,
      manifest.files.filter((file) => file.path.startsWith("snapshots/")),
      "snapshots",
      snapshotsTarget!,
    );
  const files = manifest.files.filter((file) => file.path.startsWith("data/"));
  await restoreTree(backup, files, "data", target, (dir) => {
    if (manifest.controlPlane === "sqlite") forgetIngestNodesIn(join(dir, "control.sqlite"));
  });
  const restored = restoreSnapshots ? manifest.files : files;
  return {
    backup,
    dataDir: target,
    snapshotsDir: restoreSnapshots ? snapshotsTarget : null,
    snapshotsSkipped: manifest.snapshots && !restoreSnapshots,
    controlPlane: manifest.controlPlane,
    byHand: manifest.controlPlane === "postgres" ? postgresRestoreCommands(join(backup, CONTROL_DUMP_FILE)) : [],
    envelopes: manifest.envelopes,
    spoolSegments: manifest.spoolSegments,
    servingVersion: manifest.servingVersion,
    files: restored.length,
    bytes: restored.reduce((sum, file) => sum + file.bytes, 0),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/**
 * The commands that restore a PostgreSQL control plane's dump into the database TXRAY_CONTROL_URL
 * names (stop every txray process on it first), then clear the leases and live-node rows of the
 * backed-up instance. The URL stays a shell variable: it may hold a password.
 */
export function postgresRestoreCommands(dump: string): string[] {
  const quoted = `'${dump.replaceAll("'", "'\\''")}'`;
  return [
    `pg_restore --clean --if-exists --no-owner --single-transaction --dbname "$TXRAY_CONTROL_URL" ${quoted}`,
    `psql "$TXRAY_CONTROL_URL" -c "${RESTORED_CONTROL_PLANE_RESET_SQL}"`,
  ];
}

/** Removes the backed-up instance's ingest-node records and seal requests from a restored control.sqlite. */
function forgetIngestNodesIn(file: string): void {
  if (!existsSync(file)) return;
  const db = new Database(file, { strict: true });
  try {
    forgetAllIngestNodes(sqliteControlDb(db));
  } finally {
    db.close();
  }
}

/** A restore target must be absent or an empty directory, and apart from the backup. */
function checkTarget(target: string, backup: string): void {
  if (target === backup || target.startsWith(`${backup}/`) || backup.startsWith(`${target}/`))
    throw new RestoreRefused(`${target} and the backup ${backup} overlap; restore into a directory apart from it`);
  if (!existsSync(target)) return;
  if (!statSync(target).isDirectory()) throw new RestoreRefused(`${target} exists and is not a directory`);
  if (readdirSync(target).length > 0)
    throw new RestoreRefused(`${target} is not empty; restore into an absent or empty directory (nothing was written)`);
}

/**
 * Copies the backup's files under `prefix/` into a temporary sibling of `target`, checks each
 * copy's SHA-256 against the manifest, lets `prepare` adjust the copy, syncs, then renames it into place (onto an empty directory
 * too). Temporaries of restores that died beside the same target are removed first.
 */
async function restoreTree(
  backup: string,
  files: BackupFile[],
  prefix: string,
  target: string,
  prepare: (temporary: string) => void = () => {},
): Promise<void> {
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  removeDeadTemporaries(parent, basename(target));
  const temporary = join(parent, `.${basename(target)}.restore-${Bun.randomUUIDv7()}`);
  mkdirSync(temporary);
  writeFileSync(join(temporary, OWNER_FILE), `${hostname()}:${process.pid}`);
  let renamed = false;
  try {
    const directories = new Set<string>([temporary]);
    for (const file of files) directories.add(dirname(join(temporary, relative(prefix, file.path))));
    for (const dir of directories) mkdirSync(dir, { recursive: true });
    await eachConcurrently(files, FILES_AT_ONCE, async (file) => {
      const copied = await hashFile(join(backup, file.path), join(temporary, relative(prefix, file.path)));
      if (copied.sha256 !== file.sha256 || copied.bytes !== file.bytes)
        throw new RestoreRefused(`backup ${backup} changed while it was restored; nothing was restored`, [
          { file: file.path, problem: "SHA-256 differs from the manifest" },
        ]);
      fault("restore:mid-copy");
    });
    prepare(temporary);
    for (const dir of [...directories].sort().reverse()) syncDirectory(dir);
    if (existsSync(target) && readdirSync(target).length > 0)
      throw new RestoreRefused(`${target} is no longer empty; nothing was restored`);
    renameSync(temporary, target);
    renamed = true;
    rmSync(join(target, OWNER_FILE));
    syncDirectory(target);
    syncDirectory(parent);
  } finally {
    if (!renamed) rmSync(temporary, { recursive: true, force: true });
  }
}

/** `.<name>.restore-*` directories whose owner process (on this host) is gone. */
function removeDeadTemporaries(parent: string, name: string): void {
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(`.${name}.restore-`)) continue;
    const dir = join(parent, entry);
    let owner = "";
    try {
      owner = readFileSync(join(dir, OWNER_FILE), "utf8");
    } catch {}
    const [host, pid] = owner.split(":");
    if (host === hostname() && !processAlive(Number(pid))) rmSync(dir, { recursive: true, force: true });
  }
}
