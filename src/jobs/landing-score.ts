// Job: publish the Landing Score snapshot (src/analytics/landing-score) for the last complete UTC
// day, or for `--date YYYY-MM-DD`: `txray jobs run landing-score [--date YYYY-MM-DD]`, and nightly
// from the scheduler.

import { runLandingScore } from "../analytics/landing-score";
import type { Job } from "./run";

export const LANDING_SCORE_JOB = "landing-score";

/** The job for one date (undefined: the last complete UTC day at the time it runs). */
export function landingScoreJobFor(date?: string): Job {
  return { name: LANDING_SCORE_JOB, run: async (ctx) => await runLandingScore(ctx, { date }) };
}

export const landingScoreJob: Job = landingScoreJobFor();
