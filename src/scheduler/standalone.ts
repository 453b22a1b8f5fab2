// `bun run jobs/<name>.ts`: run one job once against the configured data directory and exit 0 on
// success, 1 on failure, printing the outcome as JSON. Like `txray jobs run`, live ingest servers seal
// first and a tables run flushes first (src/scheduler/outside.ts).

import { loadConfig } from "../config";
import { createContext } from "../context";
import type { Job } from "./jobs";
import { runJobsFromOutside } from "./outside";

export async function runStandalone(job: Job): Promise<never> {
  const ctx = await createContext(loadConfig());
  const ok = await runJobsFromOutside(ctx, [job], {
    outcome: (outcome) => console.log(JSON.stringify(outcome)),
    warn: (text) => console.error(`txray: warning: ${text}`),
  });
  ctx.close();
  process.exit(ok ? 0 : 1);
}
