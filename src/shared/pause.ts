// Long synchronous work on the server's main thread (a resolve run's intake, decoding and
// classification; the tables job's wallet segments) pauses for a macrotask now and then, so ingest
// and reads keep being answered.

/** Lets timers, I/O and pending requests run before continuing. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A pause at most every `everyMs` of work: call `maybe()` in a loop (cheap when no pause is due). */
export function pauser(everyMs = 20): { maybe(): Promise<void> | null } {
  let since = performance.now();
  return {
    maybe() {
      if (performance.now() - since < everyMs) return null;
      return yieldToEventLoop().then(() => {
        since = performance.now();
      });
    },
  };
}
