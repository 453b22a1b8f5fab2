// One server per port and per data directory (and node): a second `bun src/bin/server.ts` on a
// taken port, or on a data directory a live server holds, exits 1 at once with one line saying so
// and no stack trace. The lock file (`<dataDir>/server-<node>.lock`: host, pid, port) goes when the
// server stops, and a lock whose process is gone is taken over.

import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { ServerLockedError, takeServerLock } from "../../src/server";
import { startServerProcess } from "../helpers/process";

const root = mkdtempSync(join(tmpdir(), "txray-second-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts a second server and waits for it to end: its exit code and stderr. */
async function secondServer(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const child = spawn(["bun", "src/bin/server.ts"], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { ...process.env, API_HOST: "127.0.0.1", TXRAY_SCHEDULER: "off", TXRAY_LOG_LEVEL: "warn", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const stderr = await new Response(child.stderr).text();
  const code = await child.exited;
  clearTimeout(killer);
  return { code, stderr };
}

test("a second server on a taken port or a held data directory exits 1 with one line", async () => {
  const dataDir = join(root, "data");
  const first = await startServerProcess({ TXRAY_DATA_DIR: dataDir });
  const port = Number(new URL(first.url).port);
  try {
    const lock = join(dataDir, "server-node1.lock");
    expect(JSON.parse(readFileSync(lock, "utf8"))).toEqual({
      host: hostname(),
      pid: first.process.pid,
      port,
      node: "node1",
    });

    const [portTaken, dirHeld] = await Promise.all([
      secondServer({ TXRAY_DATA_DIR: join(root, "other"), API_PORT: String(port) }),
      secondServer({ TXRAY_DATA_DIR: dataDir, API_PORT: "0" }),
    ]);
    expect(portTaken).toEqual({ code: 1, stderr: `txray: port ${port} on 127.0.0.1 is in use\n` });
    expect(dirHeld.code).toBe(1);
    expect(dirHeld.stderr).toStartWith(
      `txray: already running on data directory ${dataDir} (node node1, pid ${first.process.pid}, port ${port}); `,
    );
    expect(dirHeld.stderr.trim().split("\n")).toHaveLength(1);
    expect((await fetch(`${first.url}/v1/status`)).status).toBe(200); // the first one is untouched

    first.process.kill("SIGTERM");
    expect(await first.process.exited).toBe(0);
    expect(existsSync(lock)).toBe(false);
  } finally {
    first.process.kill("SIGKILL");
  }
}, 60_000);

test("a lock whose process is gone is taken over; a live one is refused", () => {
  const dataDir = join(root, "stale");
  const parked = spawn(["sleep", "30"]);
  try {
    const file = join(dataDir, "server-n1.lock");
    takeServerLock(dataDir, "n1", 1).release();
    writeFileSync(file, JSON.stringify({ host: hostname(), pid: parked.pid, port: 8790, node: "n1" }));
    expect(() => takeServerLock(dataDir, "n1", 2)).toThrow(ServerLockedError);
    writeFileSync(file, JSON.stringify({ host: hostname(), pid: 2 ** 22 + 1, port: 8790, node: "n1" })); // above pid_max
    const lock = takeServerLock(dataDir, "n1", 3);
    expect(JSON.parse(readFileSync(file, "utf8")).pid).toBe(process.pid);
    lock.setPort(4);
    expect(JSON.parse(readFileSync(file, "utf8")).port).toBe(4);
    lock.release();
    expect(existsSync(file)).toBe(false);
    expect(takeServerLock(dataDir, "n2", null).file).toBe(join(dataDir, "server-n2.lock")); // another node: its own
  } finally {
    parked.kill();
  }
});
