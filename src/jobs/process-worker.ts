// The child process of a job in a process of its own (process.ts): a job host (job-host.ts) whose
// messages come over the IPC channel from the server, which ends it after closing it. When the
// server is gone without that (killed), its parent changes and the child exits within a second, as
// if killed with it: an orphan must not hold the job's files, and every job is safe to kill
// (the next run goes on from what its last run committed).

import type { HostMessage } from "./hosted-runs";
import { jobHost } from "./job-host";

const parent = process.ppid;
const host = jobHost((reply) => process.send?.(reply));
process.on("message", (message: HostMessage) => void host.receive(message));
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1_000);
