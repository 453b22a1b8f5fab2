// Long synchronous work on the server's main thread (a resolve run's intake, decoding and
// classification) pauses for a macrotask now and then, so ingest and reads keep being answered.

/** Lets timers, I/O and pending requests run before continuing. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
