// Job: merge each lake partition's small Parquet parts into large ones (src/lake/compact.ts).
// A tables build lists the lake's files and then reads them, and a partition swapped meanwhile
// takes away files it listed, and the build fails: the merges run beside a build,
// and the swaps wait for the build's job lease to be free. They do not skip the pass while a build
// runs: under load the build runs back to back (~0.2 s between runs), and a pass that skipped
// then never compacted, so wallet pages read a day's every small part (1.2 s at 20,000/s).

import { compactLake } from "../lake/compact";
import type { Job } from "./run";

/** How long merged partitions wait for a tables build to end before they are given up. */
const COMPACT_SWAP_WAIT_MS = 120_000;

export const compactJob: Job = {
  name: "compact",
  run: (ctx, runtime) =>
    compactLake(ctx, { signal: runtime.signal, swapsWaitFor: { lease: "job:tables", waitMs: COMPACT_SWAP_WAIT_MS } }),
};
