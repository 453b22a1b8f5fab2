#!/usr/bin/env bun
// `bun jobs/landing-score.ts [--date YYYY-MM-DD]`: publish the Landing Score for a UTC day (default: the last complete
// one).
import { runOnce } from "./run-once";

await runOnce("landing-score");
