// Job: build the serving tables from the lake and switch readers to them atomically
// (src/analytics/tables/build.ts). `txray jobs run tables --full` ignores the previous build. A
// refresh takes in at most what its memory ceiling holds and reports the rest as `backlog` (the
// scheduler runs it again at once); run from outside (`untilCaughtUp`), it refreshes until none is left.

import { type BuildResult, buildServingTables } from "../analytics/tables/build";
import type { Job } from "./run";

/**
 * The tables job; `full`: rebuild every unit instead of reusing the previous build's; `maxRows`: per refresh (tests
 * lower it).
 */
export function tablesJobFor(options: { full?: boolean; maxRows?: number } = {}): Job {
  return {
    name: "tables",
    needs: ["fresh-lake"],
    run: async (ctx, runtime) => {
      let result: BuildResult = await buildServingTables(ctx, {
        full: options.full === true,
        maxRows: options.maxRows,
        signal: runtime.signal,
      });
      let { attempts, resolutions, partsRead, repaired } = result;
      let refreshes = 1;
      while (runtime.untilCaughtUp && result.backlog) {
        result = await buildServingTables(ctx, { maxRows: options.maxRows, signal: runtime.signal });
        attempts += result.attempts;
        resolutions += result.resolutions;
        partsRead += result.partsRead;
        repaired = [...repaired, ...result.repaired];
        refreshes++;
      }
      return refreshes === 1 ? result : { ...result, attempts, resolutions, partsRead, repaired, refreshes };
    },
  };
}

export const tablesJob: Job = tablesJobFor();
