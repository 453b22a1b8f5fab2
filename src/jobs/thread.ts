// A job on a thread of its own (RESOLVE_THREAD; docs/operations.md, "How resolving works"): runs
// handed to a worker thread (hosted-runs.ts) that keeps the job's memory between runs (the resolver's
// open attempts). Why: at 20,000 envelopes/s the resolver needs most of a core of JavaScript; on
// the thread that also takes ingest batches and answers reads, each waited for the other (a soak's
// ingest p99 1.7–2.4 s there, 50–190 ms beside it).

import { type HostedJob, type HostReply, withHostedRuns } from "./hosted-runs";
import type { Job } from "./run";

/** `worker`: the thread's module (tests give one that misbehaves); by default thread-worker.ts. */
export function onThread(
  job: Job,
  { worker: workerModule = new URL("./thread-worker.ts", import.meta.url) }: { worker?: URL } = {},
): HostedJob {
  return withHostedRuns(job, {
    kind: "thread",
    start(events) {
      const thread = new Worker(workerModule.href);
      thread.onmessage = (event: MessageEvent<HostReply>) => events.reply(event.data);
      thread.onerror = (event) => {
        thread.terminate();
        events.ended(`failed: ${event.message}`);
      };
      // A thread that ended without an error (it exited, or was terminated).
      thread.addEventListener("close", () => events.ended("ended"));
      return { send: (message) => thread.postMessage(message), end: () => thread.terminate() };
    },
  });
}
