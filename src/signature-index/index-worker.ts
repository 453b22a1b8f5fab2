// The signature index's worker thread (index-thread.ts): writes and merges runs, one job at a time.

import type { IndexJob } from "./index-thread";
import { mergeRuns } from "./merge";
import { writeRunLines } from "./run-file";

declare const self: Worker;
const decoder = new TextDecoder();

self.onmessage = async (event: MessageEvent<{ id: number; job: IndexJob }>) => {
  const { id, job } = event.data;
  try {
    const footer =
      job.kind === "write"
        ? writeRunLines(job.path, decoder.decode(job.text).split("\n"), job.fields)
        : await mergeRuns(job.inputs, job.output, job.fields, async () => {});
    self.postMessage({ id, footer });
  } catch (error) {
    self.postMessage({ id, error: String((error as Error)?.message ?? error) });
  }
};
