// `txray backup verify <dir>`: whether a backup can be trusted (docs/operations.md, "Verify").
// Checks that the manifest is there and complete, that every file it lists is present with its
// size and SHA-256, that nothing else is, that every Parquet file's footer reads (DuckDB's
// parquet_file_metadata) and that the control database passes SQLite's integrity check. Reads
// only; every problem names its file.

import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { controlDbFileProblem } from "../control";
import { sqlString, type Duck } from "../lake/duckdb";
import { hashFile, INCOMPLETE_FILE, MANIFEST_FILE, parseManifest, type BackupManifest } from "./backup-manifest";

export type BackupProblem = { file: string; problem: string };
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
export async function verifyBackup(backupDir: string, duck: Duck): Promise<VerifyReport & { manifest: BackupManifest | null }> {
  const report: VerifyReport & { manifest: BackupManifest | null } = { ok: false, backup: backupDir, files: 0, bytes: 0, parquetFiles: 0, problems: [], manifest: null };
  const problem = (file: string, text: string) => report.problems.push({ file, problem: text });
  if (!existsSync(backupDir) || !statSync(backupDir).isDirectory()) {
    problem(backupDir, "no such directory");
    return report;
  }
  const manifestPath = join(backupDir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) {
    problem(MANIFEST_FILE, existsSync(join(backupDir, INCOMPLETE_FILE)) ? `missing: the backup was interrupted (${INCOMPLETE_FILE} is there); take a new one` : "missing: not a complete txray backup");
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
  for (const file of manifest.files) {
    const path = join(backupDir, file.path);
    report.files++;
    report.bytes += file.bytes;
    if (!existsSync(path)) {
      problem(file.path, "missing");
      continue;
    }
    const size = statSync(path).size;
    if (size !== file.bytes) {
      problem(file.path, `${size} bytes, the manifest says ${file.bytes}`);
      continue;
    }
    if ((await hashFile(path)).sha256 !== file.sha256) {
      problem(file.path, "SHA-256 differs from the manifest (the file was changed or damaged)");
      continue;
    }
    if (file.path.endsWith(".parquet")) {
      report.parquetFiles++;
      const footer = await parquetFooterProblem(duck, path);
      if (footer) problem(file.path, footer);
    }
  }
  for (const path of filesUnder(backupDir)) {
    if (path !== MANIFEST_FILE && path !== INCOMPLETE_FILE && !listed.has(path)) problem(path, "not in the manifest");
  }
  if (listed.has("data/control.sqlite") && !report.problems.some((p) => p.file === "data/control.sqlite")) {
    const integrity = controlDbFileProblem(join(backupDir, "data", "control.sqlite"));
    if (integrity) problem("data/control.sqlite", integrity);
  } else if (!listed.has("data/control.sqlite")) problem("data/control.sqlite", "not in the manifest: a backup always holds the control database");
  report.ok = report.problems.length === 0;
  return report;
}

/** Why a Parquet file's footer cannot be read, or null when it reads. */
async function parquetFooterProblem(duck: Duck, path: string): Promise<string | null> {
  try {
    await duck.all(`SELECT num_rows FROM parquet_file_metadata(${sqlString(path)})`);
    return null;
  } catch (error) {
    return `Parquet footer unreadable: ${String((error as Error).message).split("\n")[0]}`;
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
