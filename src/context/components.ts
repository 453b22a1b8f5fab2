// The running parts of a process (the serving reader, ingest, the HTTP server, the scheduler) as one
// ordered list: each part owns what it runs, startComponents starts them in order, and stop() stops
// them in reverse, so a part never outlives one it depends on. The composition roots (src/server,
// src/bin, src/cli) build the list; tests start and stop the same list through startServer.

import type { Logger } from "../shared/logger";

/**
 * One running part. `drain` (optional) stops taking new work at once, before any part stops: the
 * HTTP server answers 503, the scheduler starts no run and aborts the running ones. `stop` then
 * finishes and releases, within `deadline` (a Date.now() time; what is cut short is safe, as after
 * a kill -9).
 */
export type Component = {
  name: string;
  start(): Promise<void> | void;
  drain?(): void;
  stop(deadline: number): Promise<void> | void;
};

export type RunningComponents = {
  /**
   * Drains every part, then stops them in reverse order, all within `timeoutMs`; throws the first stop's error after
   * stopping the rest.
   */
  stop(timeoutMs: number): Promise<void>;
};

/**
 * Starts `components` in order; when one fails to start, the ones started are stopped (in reverse) and the error is
 * thrown.
 */
export async function startComponents(
  components: readonly Component[],
  { logger, stopTimeoutMs }: { logger: Logger; stopTimeoutMs: number },
): Promise<RunningComponents> {
  const started: Component[] = [];
  const stop = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    const stopping = started.splice(0).reverse();
    for (const component of stopping) component.drain?.();
    let failure: unknown = null;
    for (const component of stopping) {
      try {
        await component.stop(deadline);
      } catch (error) {
        logger.error("shutdown: a part failed to stop", { component: component.name, error: String(error) });
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  };
  for (const component of components) {
    try {
      await component.start();
    } catch (error) {
      await stop(stopTimeoutMs).catch(() => undefined);
      throw error;
    }
    started.push(component);
  }
  return { stop };
}

/** Whether the promise settled before the deadline (it keeps running either way). */
export async function settlesBy(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>(
    (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))),
  );
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
