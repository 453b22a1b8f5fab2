// `txray backup verify <dir>`: whether a backup can be trusted (docs/operations.md, "Verify").
// Checks that the manifest is there and complete, that every file it lists is present with its
// size and SHA-256, that nothing else is, that every Parquet file's footer reads (DuckDB's
// parquet_file_metadata) and that the control database passes SQLite's integrity check (or, for a
// PostgreSQL control plane, that its dump is a pg_dump archive). Reads only; every problem names
// its file.

import { closeSync, existsSync, lstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { controlDbFileProblem } from "../control";
import { type Duck, sqlString } from "../lake/duckdb";
import { eachConcurrently } from "../shared/each-concurrently";
import {
  type BackupManifest,
  CONTROL_DUMP_FILE,
  FILES_AT_ONCE,
  hashFile,
  INCOMPLETE_FILE,
  MANIFEST_FILE,
  parseManifest,
} from "./backup-manifest";

export type BackupProblem = { file: string; problem: string };
/** Footers read by one DuckDB call (4,003 one by one took 2.6 s, 500 at a time 0.7 s). */
const FOOTERS_AT_ONCE = 500;
export type VerifyReport = {
  ok: boolean;
  backup: string;
  /** Files listed in the manifest, their bytes, and how many were Parquet files whose footer was read. */
  files: number;
  bytes: number;
  parquetFiles: number;
  problems: BackupProblem[];
};

/** The verified manifest alongside the report (restore uses it); null when the manifest itself is missing or bad. */
export async function verifyBackup(
  backupDir: string,
  duck: Duck,
): Promise<VerifyReport & { manifest: BackupManifest | null }> {
  const report: VerifyReport & { manifest: BackupManifest | null } = {
    ok: false,
    backup: backupDir,
    files: 0,
    bytes: 0,
    parquetFiles: 0,
    problems: [],
    manifest: null,
  };
  const problem = (file: string, text: string): void => {
    report.problems.push({ file, problem: text });
  };
  if (!existsSync(backupDir) || !statSync(backupDir).isDirectory()) {
    problem(backupDir, "no such directory");
    return report;
  }
  const manifestPath = join(backupDir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) {
    problem(
      MANIFEST_FILE,
      existsSync(join(backupDir, INCOMPLETE_FILE))
        ? `missing: the backup was interrupted (${INCOMPLETE_FILE} is there); take a new one`
        : "missing: not a complete txray backup",
    );
    return report;
  }
  const parsed = parseManifest(readFileSync(manifestPath, "utf8"));
  if ("problem" in parsed) {
    problem(MANIFEST_FILE, parsed.problem);
    return report;
  }
  const manifest = parsed.manifest;
  report.manifest = manifest;

  const listed = new Set(manifest.files.map((file) => file.path));
  const parquet: string[] = [];
  await eachConcurrently(manifest.files, FILES_AT_ONCE, async (file) => {
    const path = join(backupDir, file.path);
    report.files++;
    report.bytes += file.bytes;
    if (!existsSync(path)) return problem(file.path, "missing");
    const stat = statSync(path);
    if (!stat.isFile()) return problem(file.path, "not a regular file");
    if (stat.size !== file.bytes) return problem(file.path, `${stat.size} bytes, the manifest says ${file.bytes}`);
    const hashed = await hashFile(path).catch((error: Error) => error);
    if (hashed instanceof Error) return problem(file.path, `unreadable: ${hashed.message}`);
    if (hashed.sha256 !== file.sha256)
      return problem(file.path, "SHA-256 differs from the manifest (the file was changed or damaged)");
    if (file.path.endsWith(".parquet")) parquet.push(file.path);
  });
  report.parquetFiles = parquet.length;
  for (const { file, problem: text } of await parquetFooterProblems(duck, backupDir, parquet.sort()))
    problem(file, text);
  for (const path of filesUnder(backupDir)) {
    if (path !== MANIFEST_FILE && path !== INCOMPLETE_FILE && !listed.has(path)) problem(path, "not in the manifest");
  }
  if (manifest.controlPlane === "postgres") {
    if (listed.has("data/control.sqlite"))
      problem("data/control.sqlite", "listed, but the manifest says the control plane is on PostgreSQL");
    if (!listed.has(CONTROL_DUMP_FILE))
      problem(CONTROL_DUMP_FILE, "not in the manifest: a PostgreSQL backup always holds the control plane's dump");
    else if (
      !report.problems.some((p) => p.file === CONTROL_DUMP_FILE) &&
      !isCustomDump(join(backupDir, CONTROL_DUMP_FILE))
    )
      problem(CONTROL_DUMP_FILE, "not a pg_dump custom-format archive");
  } else if (listed.has("data/control.sqlite") && !report.problems.some((p) => p.file === "data/control.sqlite")) {
    const integrity = controlDbFileProblem(join(backupDir, "data", "control.sqlite"));
    if (integrity) problem("data/control.sqlite", integrity);
  } else if (!listed.has("data/control.sqlite"))
    problem("data/control.sqlite", "not in the manifest: a backup always holds the control database");
  report.problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  report.ok = report.problems.length === 0;
  return report;
}

/** Parquet files whose footer does not read: read 500 at a time, and one by one in a batch that fails, to name them. */
async function parquetFooterProblems(duck: Duck, backupDir: string, files: string[]): Promise<BackupProblem[]> {
  const problems: BackupProblem[] = [];
  const read = (paths: string[]) =>
    duck.all(
      `SELECT count(*) AS n FROM parquet_file_metadata([${paths.map((path) => sqlString(join(backupDir, path))).join(", ")}])`,
    );
  for (let at = 0; at < files.length; at += FOOTERS_AT_ONCE) {
    const batch = files.slice(at, at + FOOTERS_AT_ONCE);
    if (
      await read(batch).then(
        () => true,
        () => false,
      )
    )
      continue;
    for (const file of batch) {
      await read([file]).catch((error: Error) =>
        problems.push({ file, problem: `Parquet footer unreadable: ${String(error.message).split("\n")[0]}` }),
      );
    }
  }
  return problems;
}

/** pg_dump's custom format starts with the magic bytes "PGDMP". */
function isCustomDump(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(5);
    return readSync(fd, head, 0, 5, 0) === 5 && head.toString("latin1") === "PGDMP";
  } finally {
    closeSync(fd);
  }
}

/** Every non-directory entry under a directory, as `/`-separated paths relative to it (links are not followed). */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (lstatSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path).split("\\").join("/"));
    }
  };
  walk(root);
  return out;
}
