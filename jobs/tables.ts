// Job: rebuild the serving tables from the lake and switch readers to them atomically
// (src/analytics/tables/build.ts). `bun run jobs/tables.ts --full` ignores the previous build.

import type { Job } from "../src/scheduler/jobs";
import { buildServingTables } from "../src/analytics/tables/build";
import { runStandalone } from "../src/scheduler/standalone";

export const tablesJob: Job = {
  name: "tables",
  run: async (ctx, runtime) => await buildServingTables(ctx, { full: process.argv.includes("--full") && import.meta.main, signal: runtime.signal }),
};

if (import.meta.main) await runStandalone(tablesJob);
