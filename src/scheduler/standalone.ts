// `bun run jobs/<name>.ts`: run one job once against the configured data directory and exit 0 on
// success, 1 on failure, printing the outcome as JSON. Like `txray jobs run`, live ingest servers seal
// first and a tables run flushes first (src/scheduler/outside.ts). SIGTERM (or SIGINT) stops the job
// at its next safe point (src/shared/stop.ts) and exits 1.

import { loadConfig } from "../config";
import { createContext } from "../context";
import type { Job } from "./jobs";
import { runJobsFromOutside } from "./outside";
import { Stopped } from "../shared/stop";

export async function runStandalone(job: Job): Promise<never> {
  const ctx = await createContext(loadConfig());
  const controller = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => controller.abort(new Stopped()));
  const ok = await runJobsFromOutside(ctx, [job], {
    outcome: (outcome) => console.log(JSON.stringify(outcome)),
    warn: (text) => console.error(`txray: warning: ${text}`),
  }, { signal: controller.signal });
  ctx.close();
  process.exit(ok ? 0 : 1);
}
