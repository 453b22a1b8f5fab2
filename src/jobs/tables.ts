// Job: build the serving tables from the lake and switch readers to them atomically
// (src/analytics/tables/build.ts). `txray jobs run tables --full` ignores the previous build.

import type { Job } from "./run";
import { buildServingTables } from "../analytics/tables/build";

/** The tables job; `full`: rebuild every unit instead of reusing the previous build's. */
export function tablesJobFor(options: { full?: boolean } = {}): Job {
  return {
    name: "tables",
    needs: ["fresh-lake"],
    run: async (ctx, runtime) => await buildServingTables(ctx, { full: options.full === true, signal: runtime.signal }),
  };
}

export const tablesJob: Job = tablesJobFor();
