// Public surface of the jobs: each job a module (flush, resolve, deploys, tables, compact, retention,
// landing-score, alerts), the registry that lists them, runJob (leases, run records), the scheduler (which
// receives its schedule and knows no job by name) and the runner for jobs started outside the server.

export {
  LEASE_WAIT_MS,
  NODE_SILENT_MS,
  type OutsideIo,
  rpcMismatch,
  runJobsFromOutside,
  SEAL_WAIT_MS,
  type SealOutcome,
  sealLiveSpools,
} from "./cli-runs";
export {
  JOBS,
  type JobSchedule,
  jobByName,
  jobFor,
  PUBLISHING_JOBS,
  planOutsideRun,
  type RunsIn,
  runsIn,
  SCHEDULES,
  schedule,
} from "./registry";
export { type Job, type JobNeed, type JobOutcome, type JobRuntime, runJob, unrecordedFailures } from "./run";
export { nextDailyRun, retryDelayMs, type ScheduledJob, schedulerComponent, startScheduler } from "./scheduler";
