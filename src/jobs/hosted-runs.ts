// A job's hosted runs: its runs happen on a thread of its own (thread.ts) or in a child process
// (process.ts). The scheduler runs it like any other job: its lease, its recorded runs, `after`,
// `backlog` and `nextRunInMs` all stay here, in runJob. Only the work moves: each run is handed to
// a host (job-host.ts) that keeps its own context (control database connection, DuckDB instance,
// signature index) and the job's memory between runs.
//
// The host starts at the job's first run and stays until close(). A host that dies, with an error
// or without one (it exited), fails the run it had (the scheduler retries; each job goes on from
// its own checkpoint) and is replaced at the next run. A graceful shutdown's abort is passed on,
// so the run still ends at a safe point. The host makes its context from the caller's config: a
// clock or logger a test injected stays here (src/jobs/registry.ts `schedule` then keeps every job
// in-process unless asked for hosted runs).

import type { Config } from "../config";
import type { Context } from "../context";
import { Stopped } from "../shared/stop";
import type { Job, JobRuntime } from "./run";

/** What the caller asks of a host, and answers to (`id`); an abort needs no answer. */
type HostRequest = { kind: "run"; job: string; config: Config } | { kind: "close" };
/** The messages a host receives and the replies it sends (job-host.ts answers them). */
export type HostMessage = (HostRequest & { id: number }) | { kind: "abort" };
export type HostReply = { id: number; details?: Record<string, unknown>; error?: string; stopped?: boolean };

export type HostedJob = Job & {
  /** Ends the host (after its run, if one is going); the next run would start another. */
  close(): Promise<void>;
};

/** One host, as its transport sees it: messages in, replies and its end out. */
export type Host = { send(message: HostMessage): void; end(): void };
export type HostEvents = { reply(reply: HostReply): void; ended(reason: string): void };
/** Starts a host; `kind` names it in errors ("the tables process ended"). */
export type HostTransport = { kind: string; start(events: HostEvents): Host };

export function withHostedRuns(job: Job, transport: HostTransport): HostedJob {
  let host: Host | null = null;
  let nextId = 0;
  const pending = new Map<
    number,
    { host: Host; resolve: (details: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  // Only that host's runs: its end may come after a new host took the next run.
  const failAll = (ended: Host, message: string) => {
    for (const [id, run] of pending) {
      if (run.host !== ended) continue;
      pending.delete(id);
      run.reject(new Error(message));
    }
  };
  const start = (): Host => {
    const started: Host = transport.start({
      reply(reply) {
        const waiting = pending.get(reply.id);
        pending.delete(reply.id);
        if (!waiting) return;
        if (reply.error === undefined) waiting.resolve(reply.details ?? {});
        else waiting.reject(reply.stopped ? new Stopped() : new Error(reply.error));
      },
      // A host that ended (it failed, exited, or was ended) answers nothing more: its runs fail
      // rather than wait forever. After close() nothing is pending.
      ended(reason) {
        if (host === started) host = null;
        failAll(started, `the ${job.name} ${transport.kind} ${reason}`);
      },
    });
    return started;
  };
  const request = (message: HostRequest): Promise<Record<string, unknown>> => {
    const target = (host ??= start());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { host: target, resolve, reject });
      target.send({ ...message, id });
    });
  };
  return {
    name: job.name,
    needs: job.needs,
    async run(ctx: Context, runtime: JobRuntime) {
      const signal = runtime.signal;
      if (signal?.aborted) throw new Stopped();
      const run = request({ kind: "run", job: job.name, config: ctx.config });
      const abort = () => host?.send({ kind: "abort" });
      signal?.addEventListener("abort", abort, { once: true });
      try {
        return await run;
      } finally {
        signal?.removeEventListener("abort", abort);
      }
    },
    async close() {
      if (host === null) return;
      const closing = host;
      try {
        await request({ kind: "close" });
      } catch {}
      if (host === closing) host = null;
      closing.end();
    },
  };
}
