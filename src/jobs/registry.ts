// Every job by name, and its schedule as data (its interval setting, what else wakes it, where its
// runs happen): the one place that knows the jobs. `txray jobs run <name>` and the scheduler read
// these lists; `all` runs the data jobs in data-flow order (not the publishing jobs).

import { NIGHTLY_AT_MS, nightlySnapshotMissing } from "../analytics/landing-score";
import type { Config } from "../config";
import type { Context } from "../context";
import { alertsJob } from "./alerts";
import { compactJob } from "./compact";
import { deploysJob } from "./deploys";
import { flushJob } from "./flush";
import { landingScoreJob, landingScoreJobFor } from "./landing-score";
import { inChildProcess } from "./process";
import { resolveJob } from "./resolve";
import { RETENTION_INTERVAL_MS, retentionJob } from "./retention";
import type { Job } from "./run";
import type { RunAfter, ScheduledJob } from "./scheduler";
import { tablesJob, tablesJobFor } from "./tables";
import { onThread } from "./thread";

/** In data-flow order: `jobs run all` runs them like this. */
export const JOBS: Job[] = [flushJob, resolveJob, deploysJob, tablesJob, compactJob, retentionJob];

/**
 * Jobs with effects beyond the data directory: publishing (`jobs run landing-score`) and telling
 * people (`jobs run alerts`). Run by name and on their own schedule, never by `jobs run all`, which
 * keeps the data fresh and should not write public files or send messages as a side effect.
 */
export const PUBLISHING_JOBS: Job[] = [landingScoreJob, alertsJob];

export function jobByName(name: string): Job | undefined {
  return [...JOBS, ...PUBLISHING_JOBS].find((job) => job.name === name);
}

/** A job by name with its run options (`--date` of landing-score, `--full` of tables). */
export function jobFor(name: string, options: { date?: string; full?: boolean }): Job | undefined {
  if (name === landingScoreJob.name) return landingScoreJobFor(options.date);
  if (name === tablesJob.name) return tablesJobFor({ full: options.full });
  return jobByName(name);
}

/**
 * The steps of a run from outside the server: the jobs asked for, after a flush when one of them needs
 * a fresh lake and the flush is not among them.
 */
export function planOutsideRun(jobs: Job[]): Job[] {
  const freshLake = jobs.some((job) => job.needs?.includes("fresh-lake"));
  return freshLake && !jobs.some((job) => job.name === flushJob.name) ? [flushJob, ...jobs] : jobs;
}

/**
 * The niceness of the tables job's and compaction's processes (TABLES_PROCESS, COMPACT_PROCESS): the kernel gives each
 * ~1/10 of a core's share against a process at 0.
 */
const BACKGROUND_NICE = 10;

/** A setting holding a number of milliseconds (a job's interval). */
type IntervalSetting = { [K in keyof Config]: Config[K] extends number ? K : never }[keyof Config];
/** An on/off setting that moves a job's scheduled runs off the scheduler's thread. */
type PlacementSetting = "RESOLVE_THREAD" | "TABLES_PROCESS" | "COMPACT_PROCESS";
/**
 * Where a job's scheduled runs happen: the scheduler's thread, a thread of its own (thread.ts), a child process at a
 * lower priority (process.ts).
 */
export type RunsIn = "in-process" | "thread" | "child-process";

/** When the scheduler runs a job and where, as data: the scheduler knows no job by name. */
export type JobSchedule = {
  job: Job;
  /** Its interval: the setting that holds it, or a fixed one. */
  every?: { setting: IntervalSetting } | { ms: number };
  /** What also wakes it: a successful run of another job (whose details meet `when`, when given). */
  after?: readonly RunAfter[];
  /** Daily at this time past a UTC midnight; caught up at start when `missed` says the last one was not done. */
  daily?: { atMs: number; missed?: (ctx: Context) => boolean };
  /** Where its runs happen while `setting` is on (in-process when off, or without one). */
  runsIn?: { setting: PlacementSetting; where: Exclude<RunsIn, "in-process"> };
};

/** The shortest time between two tables refreshes that new issues start (their alerts wait at most this much more). */
export const NEW_ISSUE_WAKE_GAP_MS = 5_000;

export const SCHEDULES: readonly JobSchedule[] = [
  { job: flushJob, every: { setting: "FLUSH_INTERVAL_MS" } },
  {
    job: resolveJob,
    every: { setting: "RESOLVE_INTERVAL_MS" },
    // New envelopes in the lake start a resolve run at once (continuous resolution, docs/operations.md).
    after: [{ job: flushJob.name, when: (details) => Number(details.rows ?? 0) > 0 }],
    // The resolver's JavaScript needs most of a core at 20,000 envelopes/s: a thread of its own.
    runsIn: { setting: "RESOLVE_THREAD", where: "thread" },
  },
  // A watch of the ProgramData headers every few seconds: one getMultipleAccounts call a run (src/jobs/deploys.ts).
  { job: deploysJob, every: { setting: "DEPLOYS_INTERVAL_MS" } },
  // The tables job's DuckDB threads yield to everything else on a busy machine: a child process at a
  // lower priority. Besides its interval, a refresh starts as soon as the resolver counted a failure of
  // an issue it never saw before (the new issue is on the tables, and alerts evaluated, seconds after
  // it) and as soon as a deploy is recorded (the release periods the regression alert tests move):
  // docs/alerts.md#evaluation-and-freshness. Failures of known issues wait for the interval, so a
  // program that fails all the time does not keep the tables job refreshing back to back.
  {
    job: tablesJob,
    every: { setting: "TABLES_INTERVAL_MS" },
    after: [
      // At most every 5 s: a preflight failure's error comes from the envelope, so a client could
      // mint new issues at will and keep the tables job refreshing back to back.
      { job: resolveJob.name, when: (details) => Number(details.newIssues ?? 0) > 0, minGapMs: NEW_ISSUE_WAKE_GAP_MS },
      { job: deploysJob.name, when: (details) => Number(details.recorded ?? 0) > 0 },
    ],
    runsIn: { setting: "TABLES_PROCESS", where: "child-process" },
  },
  // So do compaction's merges (at 10,000 envelopes/s in the server they raise the resolver's lag to
  // 9 s while they run: bench/README.md, "Why the defaults").
  {
    job: compactJob,
    every: { setting: "COMPACT_INTERVAL_MS" },
    runsIn: { setting: "COMPACT_PROCESS", where: "child-process" },
  },
  // Hourly; the job does nothing but purge while TXRAY_RETENTION_DAYS is off.
  { job: retentionJob, every: { ms: RETENTION_INTERVAL_MS } },
  // Nightly, shortly after 00:00 UTC, for the day that just ended; caught up at start when missed.
  { job: landingScoreJob, daily: { atMs: NIGHTLY_AT_MS, missed: nightlySnapshotMissing } },
  // Alerts read the serving tables: evaluated right after each build; the interval sends retries.
  { job: alertsJob, every: { setting: "ALERTS_INTERVAL_MS" }, after: [{ job: tablesJob.name }] },
];

/** Where `entry`'s runs happen under `config`. */
export function runsIn(entry: JobSchedule, config: Config): RunsIn {
  return entry.runsIn && config[entry.runsIn.setting] === "on" ? entry.runsIn.where : "in-process";
}

/**
 * The scheduler's entries under `config`. `hostedRuns`: jobs run where their placement setting puts
 * them (each host makes its own context from the config); without it every job runs in-process,
 * with the caller's context (a test's clock and logger).
 */
export function schedule(config: Config, { hostedRuns = false }: { hostedRuns?: boolean } = {}): ScheduledJob[] {
  return SCHEDULES.map((entry) => {
    const where = hostedRuns ? runsIn(entry, config) : "in-process";
    const job =
      where === "thread"
        ? onThread(entry.job)
        : where === "child-process"
          ? inChildProcess(entry.job, { nice: BACKGROUND_NICE })
          : entry.job;
    if (entry.daily) return { job, dailyAtMs: entry.daily.atMs, missed: entry.daily.missed };
    const every = entry.every!;
    const intervalMs = "ms" in every ? every.ms : config[every.setting];
    return entry.after ? { job, intervalMs, after: entry.after } : { job, intervalMs };
  });
}
