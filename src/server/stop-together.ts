// Parts of a process that wait for their own work at shutdown, independently of each other: the HTTP
// server for its requests in flight, the scheduler for its running jobs to reach a safe point. Stopped
// one after the other, the second only starts waiting when the first is done, and its listener stays
// open (answering 503) all that while; together, both waits run at once within the one deadline.

import type { Component } from "../context";

/**
 * One component made of `parts`: started in order (a part that fails to start stops the ones
 * started, within `stopTimeoutMs`), drained together, stopped together. The first stop error is
 * thrown once every part has stopped.
 */
export function stoppedTogether(parts: Component[], stopTimeoutMs: number): Component {
  const started: Component[] = [];
  const stopAll = async (deadline: number) => {
    const stopping = started.splice(0);
    const results = await Promise.allSettled(stopping.map(async (part) => await part.stop(deadline)));
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  };
  return {
    name: parts.map((part) => part.name).join(" and "),
    async start() {
      for (const part of parts) {
        try {
          await part.start();
        } catch (error) {
          for (const part of started) part.drain?.();
          await stopAll(Date.now() + stopTimeoutMs).catch(() => undefined);
          throw error;
        }
        started.push(part);
      }
    },
    drain() {
      for (const part of started) part.drain?.();
    },
    stop: stopAll,
  };
}
