// A resolve run's commit (src/control/resolved-hours.ts) says how many of its issues were never
// counted before: the scheduler wakes the tables job for those (a new issue alerts within seconds),
// and not for failures of issues it already knows.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commitResolutionBatch, openControlDb, recordResolutionBatch } from "../../src/control";

const dir = mkdtempSync(join(tmpdir(), "txray-hours-"));
const db = openControlDb(join(dir, "control.sqlite"));
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const issue = (fingerprint: string, hour: number) => ({ fingerprint, hour, attempts: 2, firstSeen: hour * 3_600_000 });
const commit = (batch: string, issues: ReturnType<typeof issue>[]) => {
  recordResolutionBatch(db, batch, [], 0);
  return commitResolutionBatch(db, batch, [], issues);
};

test("a commit counts the issues it is the first to count, once each", () => {
  expect(commit("b1", [issue("a", 10), issue("a", 11), issue("b", 10)])).toBe(2);
  // Known issues, in the same hour or a later one, are not new; a third one is.
  expect(commit("b2", [issue("a", 10), issue("b", 12)])).toBe(0);
  expect(commit("b3", [issue("b", 12), issue("c", 12)])).toBe(1);
  expect(commit("b4", [])).toBe(0);
});
