// A job on a thread of its own (RESOLVE_THREAD; docs/operations.md, "How resolving works"). The
// scheduler runs it like any other job: its lease, its recorded runs, `after`, `backlog` and
// `nextRunInMs` all stay on this thread, in runJob. Only the work moves: each run is handed to a
// worker thread that keeps its own context (control database connection, DuckDB instance, signature
// index writer) and the job's memory between runs (the resolver's open attempts). Why: at 20,000
// envelopes/s the resolver needs most of a core of JavaScript; on the thread that also takes ingest
// batches and answers reads, each waited for the other (a soak's ingest p99 1.7–2.4 s there,
// 50–190 ms beside it).
//
// The thread starts at the job's first run and stays until close(). A thread that dies, with an
// error or without one (it exited), fails the run it had (the scheduler retries; the resolver
// rebuilds from its checkpoint) and is replaced at the next run. A graceful shutdown's abort is
// passed on, so the run still ends at a safe point. A context whose clock or logger a test
// injected cannot be shared with a thread: the job then runs on this thread, as with
// RESOLVE_THREAD=off.

import type { Context } from "../context";
import { Stopped } from "../shared/stop";
import type { Job, JobRuntime } from "./run";

type Reply = { id: number; details?: Record<string, unknown>; error?: string; stopped?: boolean };

export type ThreadedJob = Job & {
  /** Ends the thread (after its run, if one is going); the next run would start another. */
  close(): Promise<void>;
};

/** `worker`: the thread's module (tests give one that misbehaves); by default thread-worker.ts. */
export function onThread(job: Job, { worker: workerModule = new URL("./thread-worker.ts", import.meta.url) }: { worker?: URL } = {}): ThreadedJob {
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { thread: Worker; resolve: (details: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  // Only that thread's runs: its close event may come after a new thread took the next run.
  const failAll = (thread: Worker, message: string) => {
    for (const [id, run] of pending) {
      if (run.thread !== thread) continue;
      pending.delete(id);
      run.reject(new Error(message));
    }
  };
  const spawn = (): Worker => {
    const thread = new Worker(workerModule.href);
    thread.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (!waiting) return;
      if (reply.error === undefined) waiting.resolve(reply.details ?? {});
      else waiting.reject(reply.stopped ? new Stopped() : new Error(reply.error));
    };
    thread.onerror = (event) => {
      if (worker === thread) worker = null;
      thread.terminate();
      failAll(thread, `the ${job.name} thread failed: ${event.message}`);
    };
    // A thread that ended without an error (it exited, or was terminated) answers nothing more:
    // its runs fail rather than wait forever. After close() nothing is pending.
    thread.addEventListener("close", () => {
      if (worker === thread) worker = null;
      failAll(thread, `the ${job.name} thread ended`);
    });
    return thread;
  };
  const request = (message: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const thread = (worker ??= spawn());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { thread, resolve, reject });
      thread.postMessage({ ...message, id });
    });
  };
  return {
    name: job.name,
    needs: job.needs,
    async run(ctx: Context, runtime: JobRuntime) {
      if (!ctx.ownEffects) return await job.run(ctx, runtime);
      const signal = runtime.signal;
      if (signal?.aborted) throw new Stopped();
      const run = request({ kind: "run", job: job.name, config: ctx.config });
      const abort = () => worker?.postMessage({ kind: "abort" });
      signal?.addEventListener("abort", abort, { once: true });
      try {
        return await run;
      } finally {
        signal?.removeEventListener("abort", abort);
      }
    },
    async close() {
      if (worker === null) return;
      const thread = worker;
      try {
        await request({ kind: "close" });
      } catch {}
      if (worker === thread) worker = null;
      thread.terminate();
    },
  };
}
