// The data directory's server lock (src/server/single-instance.ts): written whole (no temporary
// file left behind), removed and rewritten only by its holder, and a lock of another host refused
// with the way to remove it. The processes and the port are in test/bin/second-server.test.ts.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { readServerLock, ServerLockedError, takeServerLock } from "../../src/server/single-instance";

const root = mkdtempSync(join(tmpdir(), "txray-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("release and setPort touch the lock only while this process holds it", () => {
  const dataDir = join(root, "own");
  const lock = takeServerLock(dataDir, "n1", null);
  expect(readServerLock(lock.file)).toEqual({ host: hostname(), pid: process.pid, port: null, node: "n1" });
  expect(readdirSync(dataDir)).toEqual(["server-n1.lock"]); // no temporary file left
  lock.setPort(8123);
  expect(readServerLock(lock.file)?.port).toBe(8123);
  // Taken over meanwhile (an operator removed it, another server started): that server's lock stays.
  const theirs = { host: hostname(), pid: process.pid + 1, port: 9, node: "n1" };
  writeFileSync(lock.file, JSON.stringify(theirs));
  lock.setPort(8124);
  lock.release();
  expect(JSON.parse(readFileSync(lock.file, "utf8"))).toEqual(theirs);
});

test("a lock of another host is never taken over, and the refusal says how to remove it", () => {
  const dataDir = join(root, "shared");
  const file = takeServerLock(dataDir, "n1", null).file;
  writeFileSync(file, JSON.stringify({ host: `${hostname()}-elsewhere`, pid: 1234, port: 8790, node: "n1" }));
  let refusal: unknown = null;
  try {
    takeServerLock(dataDir, "n1", null);
  } catch (error) {
    refusal = error;
  }
  expect(refusal).toBeInstanceOf(ServerLockedError);
  expect((refusal as Error).message).toContain(`host ${hostname()}-elsewhere`);
  expect((refusal as Error).message).toContain(`once that server is known to be stopped, remove ${file}`);
  expect(existsSync(file)).toBe(true);
});
