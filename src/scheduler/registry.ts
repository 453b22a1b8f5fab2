// Every job by name, with its scheduler interval setting. `txray jobs run <name>` and the scheduler
// read this list; `all` runs them in data-flow order.

import type { Config } from "../config";
import type { Job } from "./jobs";
import { flushJob } from "../../jobs/flush";
import { compactJob } from "../../jobs/compact";
import { resolveJob } from "../../jobs/resolve";
import { deploysJob } from "../../jobs/deploys";
import { tablesJob } from "../../jobs/tables";
import { RETENTION_INTERVAL_MS, retentionJob } from "../../jobs/retention";

/** In data-flow order: `jobs run all` runs them like this. */
export const JOBS: Job[] = [flushJob, resolveJob, deploysJob, tablesJob, compactJob, retentionJob];

export function jobByName(name: string): Job | undefined {
  return JOBS.find((job) => job.name === name);
}

export function schedule(config: Config) {
  const interval: Record<string, number> = {
    flush: config.FLUSH_INTERVAL_MS,
    compact: config.COMPACT_INTERVAL_MS,
    resolve: config.RESOLVE_INTERVAL_MS,
    deploys: config.DEPLOYS_INTERVAL_MS,
    tables: config.TABLES_INTERVAL_MS,
    retention: RETENTION_INTERVAL_MS, // hourly; the job does nothing but purge while TXRAY_RETENTION_DAYS is unset
  };
  return JOBS.filter((job) => interval[job.name] !== undefined).map((job) => ({ job, intervalMs: interval[job.name] }));
}
