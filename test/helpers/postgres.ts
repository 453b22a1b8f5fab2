// A throwaway PostgreSQL cluster for tests: initdb in a temp directory, run as an unprivileged user
// (PostgreSQL refuses root; as root we use `nobody` through runuser), listening on a free loopback
// port and a socket in the temp directory, trust auth, fsync off. `postgresBinaries()` is null where
// PostgreSQL is not installed; the tests that need it skip with that message.

import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";

export type PostgresCluster = {
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
};

/** The directory holding initdb / pg_ctl, or null. */
export function postgresBinaries(): string | null {
  const fromPath = Bun.which("initdb");
  if (fromPath && Bun.which("pg_ctl")) return fromPath.slice(0, fromPath.lastIndexOf("/"));
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  for (const version of readdirSync(root).sort().reverse()) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl"))) return bin;
  }
  return null;
}

export const POSTGRES_MISSING =
  "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's `postgresql` (.ci/run does) to run this test";

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** The account the cluster runs as: ourselves, or `nobody` when we are root. */
function asUser(command: string[]): string[] {
  return process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--", ...command] : command;
}

function run(command: string[]) {
  const result = Bun.spawnSync(asUser(command), { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0)
    throw new Error(`${command.join(" ")} failed: ${result.stderr.toString()}${result.stdout.toString()}`);
}

export async function startPostgres(bin: string): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), "txray-pg-"));
  if (process.getuid?.() === 0) chownSync(dir, 65534, 65534);
  const data = join(dir, "data");
  const port = await freePort();
  run([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "txray", "--no-sync", "-E", "UTF8"]);
  run([
    join(bin, "pg_ctl"),
    "-D",
    data,
    "-l",
    join(dir, "log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    "start",
  ]);
  const url = (database: string) => `postgres://txray@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name: string) {
      const admin = new SQL({ url: url("postgres"), max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.close();
      }
      return url(name);
    },
    async stop() {
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
