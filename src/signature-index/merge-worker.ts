// The signature index's merge thread (merge.ts MergeThread): runs mergeRuns for the process's index
// upkeep, one merge at a time, off the thread that answers requests and runs the resolver.

import { mergeRuns, type MergeFields, type MergeInput } from "./merge";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ id: number; inputs: MergeInput[]; output: string; fields: MergeFields }>) => {
  const { id, inputs, output, fields } = event.data;
  try {
    const footer = await mergeRuns(inputs, output, fields, async () => {});
    self.postMessage({ id, footer });
  } catch (error) {
    self.postMessage({ id, error: String((error as Error)?.message ?? error) });
  }
};
