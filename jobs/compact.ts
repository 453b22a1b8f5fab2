// Job: merge each lake partition's small Parquet parts into large ones (src/lake/compact.ts).
// Not while a tables build runs: the build lists the lake's files and then reads them, and a
// partition swapped meanwhile took away files it listed (the soak found the build failing so).
// The build's job lease decides; compaction simply waits for its next run.

import type { Job } from "../src/scheduler/jobs";
import { ifLeaseFree } from "../src/control";
import { compactLake } from "../src/lake/compact";
import { runStandalone } from "../src/scheduler/standalone";

export const compactJob: Job = {
  name: "compact",
  run: async (ctx, runtime) => {
    const attempt = await ifLeaseFree(ctx.control, "job:tables", () => compactLake(ctx, { signal: runtime.signal }));
    return attempt.ran ? attempt.value : { skipped: "a tables build is reading the lake; compaction waits for its next run" };
  },
};

if (import.meta.main) await runStandalone(compactJob);
