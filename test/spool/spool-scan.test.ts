// why/{sig} looks for a signature txray has not flushed yet in the spool, reading at most a fixed
// number of bytes whatever the spool holds: the newest segments first, the end of each (where the
// newest lines are). An envelope older than that budget is not found there.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spoolLineWith } from "../../src/spool";

const root = mkdtempSync(join(tmpdir(), "txray-spool-scan-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("the newest bytes are searched first, and never more than the budget", () => {
  const dir = join(root, "node1");
  mkdirSync(dir, { recursive: true });
  const filler = (n: number) => `${Array.from({ length: n }, (_, i) => `acc\t${i}\tfiller-${i}\tline`).join("\n")}\n`;
  // An old sealed segment holding "old-sig" at its start, then a lot; a newer active one holding "new-sig" at its end.
  writeFileSync(join(dir, "node1-1-aa.sealed"), `acc\t1\told-sig\tline\n${filler(20_000)}`);
  writeFileSync(join(dir, "node1-2-bb.active"), `${filler(20_000)}acc\t2\tnew-sig\tline\n`);
  utimesSync(join(dir, "node1-1-aa.sealed"), new Date(1_000_000), new Date(1_000_000));
  expect(spoolLineWith(root, "new-sig", 1024)).toBe("acc\t2\tnew-sig\tline");
  expect(spoolLineWith(root, "old-sig", 1024)).toBeNull(); // beyond the budget: the newest kilobyte of each holds it not
  expect(spoolLineWith(root, "old-sig", 10 * 1024 * 1024)).toBe("acc\t1\told-sig\tline");
  expect(spoolLineWith(root, "nowhere", 10 * 1024 * 1024)).toBeNull();
  expect(spoolLineWith(join(root, "missing"), "new-sig", 1024)).toBeNull();
});
