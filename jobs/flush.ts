// Job: flush sealed spool segments into the Parquet lake (src/lake/flush.ts). In the server it first
// seals the active segment so everything acknowledged so far becomes flushable.

import type { Job } from "../src/scheduler/jobs";
import { flushSpool } from "../src/lake/flush";
import { runStandalone } from "../src/scheduler/standalone";

export const flushJob: Job = {
  name: "flush",
  async run(ctx, runtime) {
    await runtime.spool?.seal();
    return await flushSpool({ ...ctx, flushWriter: ctx.flushWriter, signal: runtime.signal });
  },
};

if (import.meta.main) await runStandalone(flushJob);
