// Job: merge each lake partition's small Parquet parts into large ones (src/lake/compact.ts).

import type { Job } from "../src/scheduler/jobs";
import { compactLake } from "../src/lake/compact";
import { runStandalone } from "../src/scheduler/standalone";

export const compactJob: Job = {
  name: "compact",
  run: (ctx, runtime) => compactLake(ctx, { signal: runtime.signal }),
};

if (import.meta.main) await runStandalone(compactJob);
