// Every job by name, with its scheduler interval setting: the one place that knows the jobs.
// `txray jobs run <name>` and the scheduler read this list; `all` runs the data jobs in data-flow
// order (not the publishing jobs).

import type { Config } from "../config";
import type { Job } from "./run";
import { flushJob } from "./flush";
import { compactJob } from "./compact";
import { resolveJob } from "./resolve";
import { deploysJob } from "./deploys";
import { tablesJob, tablesJobFor } from "./tables";
import { landingScoreJob, landingScoreJobFor } from "./landing-score";
import { NIGHTLY_AT_MS, nightlySnapshotMissing } from "../analytics/landing-score";
import type { RunAfter, ScheduledJob } from "./scheduler";
import { RETENTION_INTERVAL_MS, retentionJob } from "./retention";
import { alertsJob } from "./alerts";
import { onThread } from "./thread";
import { inChildProcess } from "./process";

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

/** The niceness of the tables job's and compaction's processes (TABLES_PROCESS, COMPACT_PROCESS): the kernel gives each ~1/10 of a core's share against a process at 0. */
const BACKGROUND_NICE = 10;

export function schedule(config: Config) {
  const interval: Record<string, number> = {
    flush: config.FLUSH_INTERVAL_MS,
    compact: config.COMPACT_INTERVAL_MS,
    resolve: config.RESOLVE_INTERVAL_MS,
    deploys: config.DEPLOYS_INTERVAL_MS,
    tables: config.TABLES_INTERVAL_MS,
    retention: RETENTION_INTERVAL_MS, // hourly; the job does nothing but purge while TXRAY_RETENTION_DAYS is unset
  };
  // New envelopes in the lake start a resolve run at once (continuous resolution, docs/operations.md).
  const after: Record<string, RunAfter[]> = {
    resolve: [{ job: flushJob.name, when: (details) => Number(details.rows ?? 0) > 0 }],
  };
  // Where a job's runs happen: the resolver's JavaScript needs most of a core at 20,000
  // envelopes/s (a thread of its own: src/jobs/thread.ts); the tables job's DuckDB threads yield
  // to everything else on a busy machine (a child process at a lower priority: src/jobs/process.ts),
  // and so do compaction's merges (at 10,000 envelopes/s in the server they raise the resolver's
  // lag to 9 s while they run: bench/README.md, "Why the defaults").
  const hosted = (job: Job) => {
    if (job === resolveJob && config.RESOLVE_THREAD === "on") return onThread(job);
    if (job === tablesJob && config.TABLES_PROCESS === "on") return inChildProcess(job, { nice: BACKGROUND_NICE });
    if (job === compactJob && config.COMPACT_PROCESS === "on") return inChildProcess(job, { nice: BACKGROUND_NICE });
    return job;
  };
  const entries: ScheduledJob[] = JOBS.filter((job) => interval[job.name] !== undefined).map((job) => ({
    job: hosted(job),
    intervalMs: interval[job.name],
    after: after[job.name],
  }));
  // Nightly, shortly after 00:00 UTC, for the day that just ended; caught up at start when missed.
  entries.push({ job: landingScoreJob, dailyAtMs: NIGHTLY_AT_MS, missed: nightlySnapshotMissing });
  // Alerts read the serving tables: evaluated right after each build; the interval sends retries.
  entries.push({ job: alertsJob, intervalMs: config.ALERTS_INTERVAL_MS, after: [{ job: tablesJob.name }] });
  return entries;
}
