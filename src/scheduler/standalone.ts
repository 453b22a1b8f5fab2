// `bun run jobs/<name>.ts`: run one job once against the configured data directory and exit 0 on
// success, 1 on failure, printing the outcome as JSON. SIGTERM (or SIGINT) stops the job at its next
// safe point (src/shared/stop.ts) and exits 1.

import { loadConfig } from "../config";
import { createContext } from "../context";
import { runJob, type Job } from "./jobs";
import { Stopped } from "../shared/stop";

export async function runStandalone(job: Job): Promise<never> {
  const ctx = await createContext(loadConfig());
  const controller = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => controller.abort(new Stopped()));
  const outcome = await runJob(ctx, job, { signal: controller.signal });
  ctx.close();
  console.log(JSON.stringify(outcome));
  process.exit(outcome.ok ? 0 : 1);
}
