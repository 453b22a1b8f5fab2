// A job in a child process of its own, at a lower CPU priority (TABLES_PROCESS, COMPACT_PROCESS;
// docs/operations.md, "The tables job's process"): runs handed to a `bun` child (hosted-runs.ts, process-worker.ts)
// started under `nice`. Why: on a busy box the tables job's DuckDB threads otherwise take the
// cores on equal terms with ingest, reads and the resolver, and at 20,000 envelopes/s on two cores
// there is not enough for all of them; the kernel's scheduler now gives the others their share
// first, and the dashboards fall behind (which /v1/status shows) instead of the answers about
// single attempts. The child writes what the job writes in-process (the data directory is shared,
// as with TXRAY_ROLES=jobs: docs/scaling.md); it ends when this process closes it, and on its own
// when this process is gone.

import { existsSync } from "node:fs";
import { type HostedJob, type HostReply, withHostedRuns } from "./hosted-runs";
import type { Job } from "./run";

/**
 * `nice`: the child's niceness (0-19; 0 starts it without `nice`); `module`: the child's module (tests give one that
 * misbehaves).
 */
export function inChildProcess(
  job: Job,
  { nice, module = new URL("./process-worker.ts", import.meta.url) }: { nice: number; module?: URL },
): HostedJob {
  const niceCommand = nice > 0 ? niceBinary() : null;
  return withHostedRuns(job, {
    kind: "process",
    start(events) {
      const command = [process.execPath, module.pathname];
      const child = Bun.spawn({
        cmd: niceCommand ? [niceCommand, "-n", String(nice), ...command] : command,
        stdio: ["ignore", "inherit", "inherit"],
        serialization: "json",
        ipc: (reply: HostReply) => events.reply(reply),
        onExit: (_child, code, signal) => events.ended(`ended (${signal ? `signal ${signal}` : `exit code ${code}`})`),
      });
      return {
        send: (message) => {
          // A child that is gone answers nothing: onExit fails what it had.
          if (child.exitCode === null && child.signalCode === null) child.send(message);
        },
        end: () => child.kill(),
      };
    },
  });
}

/** coreutils' `nice`, where Debian and most systems have it; without it the child runs at the same priority. */
function niceBinary(): string | null {
  return ["/usr/bin/nice", "/bin/nice"].find((path) => existsSync(path)) ?? null;
}
