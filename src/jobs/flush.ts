// Job: flush sealed spool segments into the Parquet lake (src/lake/flush-spool.ts). In the server it first
// seals the active segment so everything acknowledged so far becomes flushable.

import { flushSpool } from "../lake/flush-spool";
import type { Job } from "./run";

export const flushJob: Job = {
  name: "flush",
  needs: ["sealed-spool"],
  async run(ctx, runtime) {
    await runtime.spool?.seal();
    return await flushSpool({ ...ctx, flushWriter: ctx.flushWriter, signal: runtime.signal });
  },
};
