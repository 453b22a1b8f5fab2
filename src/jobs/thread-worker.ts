// The worker side of a job on a thread of its own (thread.ts): one context for the thread's life,
// runs of the named job one at a time as the scheduler asks, an abort passed on to the running
// one, and the context closed before the thread ends.

import type { Config } from "../config";
import { createContext, type Context } from "../context";
import { describeError } from "../shared/logger";
import { Stopped } from "../shared/stop";
import { jobByName } from "./registry";

declare const self: Worker;

type Message = { id: number; kind: "run"; job: string; config: Config } | { id: number; kind: "close" } | { kind: "abort" };

let context: Promise<Context> | null = null;
let running: AbortController | null = null;

self.onmessage = async (event: MessageEvent<Message>) => {
  const message = event.data;
  if (message.kind === "abort") {
    running?.abort(new Stopped());
    return;
  }
  if (message.kind === "close") {
    if (context !== null) (await context).close();
    context = null;
    postMessage({ id: message.id });
    return;
  }
  const controller = (running = new AbortController());
  try {
    const job = jobByName(message.job);
    if (!job) throw new Error(`no job named ${message.job}`);
    context ??= createContext(message.config);
    const details = await job.run(await context, { signal: controller.signal });
    postMessage({ id: message.id, details });
  } catch (error) {
    postMessage({ id: message.id, error: describeError(error), stopped: error instanceof Stopped });
  } finally {
    if (running === controller) running = null;
  }
};
