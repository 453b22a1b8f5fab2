// `bun run jobs/<name>.ts`: run one job once against the configured data directory and exit 0 on
// success, 1 on failure, printing the outcome as JSON.

import { loadConfig } from "../config";
import { createContext } from "../context";
import { runJob, type Job } from "./jobs";

export async function runStandalone(job: Job): Promise<never> {
  const ctx = await createContext(loadConfig());
  const outcome = await runJob(ctx, job);
  ctx.close();
  console.log(JSON.stringify(outcome));
  process.exit(outcome.ok ? 0 : 1);
}
