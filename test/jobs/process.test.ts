// A job in a child process at a lower CPU priority (src/jobs/process.ts, TABLES_PROCESS): the
// tables job's refreshes happen in a `bun` child started under `nice`, while the lease and the
// recorded runs stay with the caller. What users rely on: the refresh's version is what this
// process serves, a failure or a child that exits is a failed run (and the next run starts
// another child), a shutdown's abort ends a run as stopped, and the child never outlives the
// server (killed with -9, it leaves no process holding the job's files).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import { processTree } from "../../scripts/process-tree";
import { baseline } from "../../src/analytics/queries";
import { readPointer } from "../../src/analytics/serving/pointer";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { runJob } from "../../src/jobs";
import { compactJob } from "../../src/jobs/compact";
import { inChildProcess } from "../../src/jobs/process";
import { schedule } from "../../src/jobs/registry";
import { tablesJob } from "../../src/jobs/tables";

let dir: string;
/** A context that made its own logger and clock, as `bun run start` does: jobs may move to other processes. */
let own: Context;
let world: GenerateResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "txray-process-"));
  own = await createContext(loadConfig({ TXRAY_DATA_DIR: dir, TXRAY_LOG_LEVEL: "silent" }));
  world = await generateLake({
    dataDir: dir,
    envelopes: 2_000,
    programs: 2,
    days: 2,
    seed: 11,
    endMs: Date.now() - 60_000,
    threads: 2,
  });
}, 120_000);
afterAll(() => {
  own.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The job processes under `pid`. */
const jobProcessesOf = (pid: number) =>
  processTree(pid)
    .slice(1)
    .filter((child) => commandOf(child).includes("process-worker.ts"));
const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return ""; // ended meanwhile
  }
};
/** The niceness (field 19 of /proc/<pid>/stat; the command name before it may hold spaces). */
const niceOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[16]);
const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
};
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
  return true;
}

test("a tables run in the child process: at niceness 10, reported to the caller's run record, its version served here", async () => {
  const job = inChildProcess(tablesJob, { nice: 10 });
  try {
    const outcome = await runJob(own, job);
    expect(outcome.ok).toBe(true);
    const details = outcome.details as { version: number; attempts: number };
    expect(details.attempts).toBe(world.envelopes);
    expect(readPointer(own.paths)?.version).toBe(details.version);
    const recorded = own.control
      .query<{ ok: number; details: string }, []>(
        "SELECT ok, details FROM job_runs WHERE job = 'tables' ORDER BY id DESC LIMIT 1",
      )
      .get()!;
    expect(recorded.ok).toBe(1);
    expect(JSON.parse(recorded.details).version).toBe(details.version);
    // The child stays for the next run, at the lower priority.
    const [child] = jobProcessesOf(process.pid);
    expect(child).toBeGreaterThan(0);
    expect(niceOf(child)).toBe(10);
    let served = 0;
    for (const program of world.programs) {
      const answer = await baseline(own, { program, window: "7d", accountId: null });
      served += answer.rates.attempts + answer.pending;
    }
    expect(served).toBe(world.envelopes);
    // Closed, the child ends.
    await job.close();
    expect(await until(() => !alive(child), 10_000)).toBe(true);
  } finally {
    await job.close();
  }
}, 120_000);

test("the scheduler's compactions run in a child process at niceness 10 (COMPACT_PROCESS), in the server with it off", async () => {
  const hostedOf = (settings: Record<string, string>) =>
    schedule(loadConfig({ TXRAY_DATA_DIR: dir, ...settings }), { hostedRuns: true }).find(
      (entry) => entry.job.name === "compact",
    )!.job;
  expect(hostedOf({ COMPACT_PROCESS: "off" })).toBe(compactJob);
  const job = hostedOf({});
  expect(job).not.toBe(compactJob);
  const before = new Set(jobProcessesOf(process.pid));
  try {
    const outcome = await runJob(own, job);
    expect(outcome).toMatchObject({
      ok: true,
      details: { partitions: expect.any(Number), partsMerged: expect.any(Number) },
    });
    const started = jobProcessesOf(process.pid).filter((pid) => !before.has(pid));
    expect(started.length).toBe(1);
    expect(niceOf(started[0])).toBe(10);
  } finally {
    await (job as { close(): Promise<void> }).close();
  }
}, 60_000);

test("a child that exits fails its run and is replaced at the next run; a shutdown's abort ends a run as stopped", async () => {
  const exiting = inChildProcess(tablesJob, {
    nice: 0,
    module: new URL("../helpers/exiting-process.ts", import.meta.url),
  });
  try {
    const first = await runJob(own, exiting);
    expect(first.ok).toBe(false);
    expect(first.error).toMatch(/tables process ended \(exit code 0\)/);
    const second = await runJob(own, exiting); // a new child (which exits again): not a message to the one that ended
    expect(second.error).toMatch(/tables process ended/);
  } finally {
    await exiting.close();
  }
  const job = inChildProcess(tablesJob, { nice: 10 });
  try {
    const stop = new AbortController();
    stop.abort();
    expect(await runJob(own, job, { signal: stop.signal })).toMatchObject({ ok: false, stopped: true });
  } finally {
    await job.close();
  }
}, 60_000);

test("the child does not outlive its server: killed with -9, it leaves no process behind", async () => {
  const parent = Bun.spawn(["bun", new URL("../helpers/process-parent.ts", import.meta.url).pathname], {
    env: { ...process.env, TXRAY_DATA_DIR: dir },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const reader = parent.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("ready");
    const [child] = jobProcessesOf(parent.pid);
    expect(alive(child)).toBe(true);
    parent.kill("SIGKILL");
    await parent.exited;
    expect(await until(() => !alive(child), 10_000)).toBe(true);
  } finally {
    parent.kill("SIGKILL");
  }
}, 60_000);
