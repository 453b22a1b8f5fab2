// The top-level jobs/ entry points (what a crontab line or a systemd timer runs): each runs its job
// once through the CLI's job runner in a process of its own, with that runner's output and exit code.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { JOBS, PUBLISHING_JOBS } from "../src/jobs";

const root = resolve(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "txray-jobs-entry-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function entry(file: string, ...args: string[]) {
  const result = Bun.spawnSync(["bun", join(root, "jobs", file), ...args], {
    cwd: dataDir,
    env: { ...process.env, TXRAY_DATA_DIR: join(dataDir, "data"), TXRAY_SNAPSHOTS_DIR: join(dataDir, "snapshots") },
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

test("one entry per job the runner knows, and nothing else but the shared runner", () => {
  const entries = readdirSync(join(root, "jobs")).filter((name) => name !== "run-once.ts");
  const names = [...JOBS, ...PUBLISHING_JOBS].map((job) => `${job.name}.ts`);
  expect(entries.sort()).toEqual([...new Set(names)].sort());
});

test("bun jobs/flush.ts on an empty data directory exits 0 and prints the runner's outcome", () => {
  const result = entry("flush.ts");
  // The data directory is new: its control database is created, which is the one line logged.
  expect(
    result.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).message),
  ).toEqual([expect.stringMatching(/^control: new control database at schema \d+$/)]);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ job: "flush", ok: true, details: { segments: 0, rows: 0 } });
});

test("arguments after the file reach the runner: an option of another job is a usage error (exit 2)", () => {
  const result = entry("flush.ts", "--full");
  expect(result.code).toBe(2);
  expect(result.stderr).toStartWith("txray: ");
});

test("bun jobs/landing-score.ts --date publishes that day's snapshot", () => {
  const result = entry("landing-score.ts", "--date", "2025-01-15");
  expect(result.code).toBe(0);
  const outcome = JSON.parse(result.stdout);
  expect(outcome).toMatchObject({ job: "landing-score", ok: true, details: { date: "2025-01-15" } });
  expect(outcome.details.files).toContain("2025-01-15.json");
  expect(readdirSync(join(dataDir, "snapshots", "landing-score"))).toContain("2025-01-15.json");
});
