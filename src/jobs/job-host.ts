// The host side of a job's hosted runs (hosted-runs.ts), whatever carries the messages (a worker
// thread: thread-worker.ts; a child process: process-worker.ts): one context for the host's life,
// runs of the named job one at a time as the scheduler asks, an abort passed on to the running
// one, and the context closed before the host ends.

import { type Context, createContext } from "../context";
import { describeError } from "../shared/logger";
import { Stopped } from "../shared/stop";
import type { HostMessage, HostReply } from "./hosted-runs";
import { jobByName } from "./registry";

/** The message handler of one host; `reply` sends a reply back. */
export function jobHost(reply: (message: HostReply) => void): { receive(message: HostMessage): Promise<void> } {
  let context: Promise<Context> | null = null;
  let running: AbortController | null = null;
  const close = async () => {
    const closing = context;
    context = null;
    if (closing !== null) (await closing).close();
  };
  return {
    async receive(message) {
      if (message.kind === "abort") {
        running?.abort(new Stopped());
        return;
      }
      if (message.kind === "close") {
        await close();
        reply({ id: message.id });
        return;
      }
      const controller = (running = new AbortController());
      try {
        const job = jobByName(message.job);
        if (!job) throw new Error(`no job named ${message.job}`);
        context ??= createContext(message.config);
        const ctx = await context;
        const details = await job.run(ctx, { signal: controller.signal });
        // The host's own JavaScript heap and DuckDB instance (a thread's or a child's), which the server's /metrics
        // cannot see.
        reply({ id: message.id, details: { ...details, ...(await hostMemory(ctx)) } });
      } catch (error) {
        reply({ id: message.id, error: describeError(error), stopped: error instanceof Stopped });
      } finally {
        if (running === controller) running = null;
      }
    },
  };
}

async function hostMemory(ctx: Context): Promise<{ hostHeapUsedBytes: number; hostDuckdbBytes: number | null }> {
  const duckdb = await ctx.duck
    .all<{ bytes: bigint | number | null }>("SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()")
    .then((rows) => (rows[0]?.bytes === null || rows[0]?.bytes === undefined ? null : Number(rows[0].bytes)))
    .catch(() => null);
  return { hostHeapUsedBytes: process.memoryUsage().heapUsed, hostDuckdbBytes: duckdb };
}
