// The data directory is the owner's only (0700), and so are the control database with its -wal and
// -shm files and every file of a backup (0600), whatever the umask: the modes are set explicitly
// after each create, so even a umask of 000 leaves nothing readable by other users.

import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { backupInstance } from "../../src/ops/backup";
import { silentLogger } from "../../src/shared/logger";

const root = mkdtempSync(join(tmpdir(), "txray-modes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and directory under `dir` (itself included) with its mode. */
function modesUnder(dir: string): { path: string; directory: boolean; mode: number }[] {
  const found = [{ path: dir, directory: true, mode: modeOf(dir) }];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...modesUnder(path));
    else found.push({ path, directory: false, mode: modeOf(path) });
  }
  return found;
}

test("the data directory is 0700, the control database, its WAL and SHM and every backup file 0600", async () => {
  const umask = process.umask(0o000);
  try {
    const dataDir = join(root, "data");
    const config = loadConfig({
      TXRAY_DATA_DIR: dataDir,
      TXRAY_SNAPSHOTS_DIR: join(root, "snapshots"),
      TXRAY_LOG_LEVEL: "silent",
    });
    const ctx = await createContext(config, { logger: silentLogger });
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      for (const file of ["control.sqlite", "control.sqlite-wal", "control.sqlite-shm"])
        expect({ file, mode: modeOf(join(dataDir, file)) }).toEqual({ file, mode: 0o600 });

      mkdirSync(join(root, "snapshots", "landing-score"), { recursive: true });
      await Bun.write(join(root, "snapshots", "landing-score", "latest.json"), "{}");
      const target = join(root, "backup");
      await backupInstance(
        { paths: ctx.paths, control: ctx.control, snapshotsDir: config.snapshotsDir, clock: Date.now },
        target,
      );
      const entries = modesUnder(target);
      expect(entries.some((entry) => entry.path.endsWith("control.sqlite"))).toBe(true);
      expect(entries.some((entry) => entry.path.endsWith("latest.json"))).toBe(true);
      for (const { path, directory, mode } of entries)
        expect({ path, mode }).toEqual({ path, mode: directory ? 0o700 : 0o600 });
    } finally {
      ctx.close();
    }
  } finally {
    process.umask(umask);
  }
});
