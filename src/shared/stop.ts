// Stopping long work at a safe point: a graceful shutdown (SIGTERM) aborts the running jobs' signal
// with a Stopped reason, and each job checks it only between steps that leave nothing half done
// (between flush passes, before a resolve run reads the chain, between table-build statements),
// so the run ends early without needing any recovery.

export class Stopped extends Error {
  constructor() {
    super("stopped by shutdown at a safe point; the next run continues");
    this.name = "Stopped";
  }
}

/** Throws the abort reason when the signal was aborted (a safe point). */
export function checkStop(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Stopped();
}

/** A sleep that ends early (rejecting) when the signal is aborted. */
export function stoppableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return Bun.sleep(ms);
  checkStop(signal);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Stopped());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
