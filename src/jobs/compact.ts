// Job: merge each lake partition's small Parquet parts into large ones (src/lake/compact.ts).
// Not while a tables build runs: the build lists the lake's files and then reads them, and a
// partition swapped meanwhile took away files it listed (the soak found the build failing so).
// The build's job lease decides; compaction simply waits for its next run.

import type { Job } from "./run";
import { ifLeaseFree } from "../control";
import { compactLake } from "../lake/compact";

export const compactJob: Job = {
  name: "compact",
  run: async (ctx, runtime) => {
    const attempt = await ifLeaseFree(ctx.control, "job:tables", () => compactLake(ctx, { signal: runtime.signal }));
    return attempt.ran ? attempt.value : { skipped: "a tables build is reading the lake; compaction waits for its next run" };
  },
};
