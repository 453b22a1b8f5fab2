// Test-only fault injection (TXRAY_FAULT_POINT, read by the config loader; unset in production, where
// every call below is one comparison). `bun run chaos` and test/reliability name a moment in the
// code (`flush:after-rename`) and what to do when the process reaches it the n-th time:
//   pause  log `fault point reached` and freeze the whole event loop, so the chaos driver can
//          SIGKILL the process exactly there (worker threads and the disk keep going, as in a real kill)
//   kill   SIGKILL itself at that moment   throw  fail there with an error (a fault such as a DuckDB error, without
// breaking DuckDB) The moments are listed in FAULT_POINTS; a point not in the list is refused at start-up.

export const FAULT_POINTS = [
  "spool:after-write", // batch bytes written, checksums not yet written or synced (mid-group-commit)
  "spool:after-sync", // batch durable, its 202 not yet sent
  "spool:seal", // active segment closed, not yet renamed to .sealed
  "flush:after-stage", // Parquet parts written to staging
  "flush:after-rename", // parts renamed into the lake, segments not yet committed
  "flush:after-commit", // segments committed, spool files not yet deleted
  "resolve:after-read", // chain read, nothing recorded yet
  "resolve:after-rename", // resolution parts in the lake, batch not yet committed
  "resolve:after-commit", // committed, staging not yet cleaned
  "compact:after-merge", // merged part written, partition not yet swapped
  "compact:after-swap", // partition swapped, old parts not yet removed
  "tables:mid-build", // between two statements of the serving-file build (n-th statement with @n)
  "tables:after-build", // new serving file complete, pointer not yet switched
  "tables:after-pointer", // pointer switched, old versions not yet removed
  "backup:mid-copy", // a staged file copied into the backup target (n-th file with @n), backup.json not yet written
  "restore:mid-copy", // a backup file copied into the restore's temporary directory (n-th with @n), not yet renamed into place
  "alerts:before-send", // a due alert delivery's attempt recorded, its request not yet sent
  "alerts:after-send", // the receiver answered 2xx, the delivery not yet marked sent
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

let armed: { point: string; action: string; at: number; hits: number } | null = null;

/** Arms the configured fault point (`<moment>:<action>[@n]`); called once by createContext. */
export function configureFault(spec: string | undefined): void {
  if (!spec) {
    armed = null;
    return;
  }
  const match = /^([a-z-]+:[a-z-]+):(pause|kill|throw)(?:@(\d+))?$/.exec(spec);
  if (!match || !(FAULT_POINTS as readonly string[]).includes(match[1]))
    throw new Error(`TXRAY_FAULT_POINT: unknown fault point ${JSON.stringify(spec)}`);
  armed = { point: match[1], action: match[2], at: Number(match[3] ?? 1), hits: 0 };
}

/** A named moment; does nothing unless TXRAY_FAULT_POINT names it. */
export function fault(point: FaultPoint): void {
  if (armed === null || armed.point !== point || ++armed.hits !== armed.at) return;
  if (armed.action === "throw") throw new Error(`injected fault at ${point}`);
  process.stderr.write(
    `${JSON.stringify({
      time: new Date().toISOString(),
      level: "warn",
      message: "fault point reached",
      point,
      pid: process.pid,
    })}\n`,
  );
  if (armed.action === "kill") process.kill(process.pid, "SIGKILL");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // pause: frozen until killed
}
