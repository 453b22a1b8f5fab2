// Whether a process of this host is still running (signal 0 checks without signalling). Spool
// owners, job leases, ingest nodes and DuckDB spill directories all name a `host` and `pid`; only
// on the same host does the pid mean anything.

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
