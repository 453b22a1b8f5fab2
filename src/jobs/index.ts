// Public surface of the jobs: each job a module (flush, resolve, deploys, tables, compact, retention,
// landing-score, alerts), the registry that lists them, runJob (leases, run records), the scheduler (which
// receives its schedule and knows no job by name) and the runner for jobs started outside the server.
export { runJob, unrecordedFailures, type Job, type JobNeed, type JobOutcome, type JobRuntime } from "./run";
export {
  JOBS,
  PUBLISHING_JOBS,
  SCHEDULES,
  jobByName,
  jobFor,
  planOutsideRun,
  runsIn,
  schedule,
  type JobSchedule,
  type RunsIn,
} from "./registry";
export { schedulerComponent, startScheduler, nextDailyRun, retryDelayMs, type ScheduledJob } from "./scheduler";
export {
  runJobsFromOutside,
  sealLiveSpools,
  rpcMismatch,
  SEAL_WAIT_MS,
  NODE_SILENT_MS,
  LEASE_WAIT_MS,
  type OutsideIo,
  type SealOutcome,
} from "./cli-runs";
