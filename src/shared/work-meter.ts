// The work a request did that its price could not know beforehand. A wallet page read from the
// store costs tens of microseconds for most wallets and tens of milliseconds for a bot's (the
// store scans the payer's rows on the program), so the public limit charges the page's measured
// time after it is done (docs/api.md#limits). One meter per request, carried by AsyncLocalStorage:
// the query functions every surface shares take no extra parameter, and work done outside a
// metered request (a job, a test) is recorded nowhere.

import { AsyncLocalStorage } from "node:async_hooks";

export type WorkMeter = { ms: number };

const meters = new AsyncLocalStorage<WorkMeter>();

/** Runs `run` with `meter` receiving the work recorded under it (across its awaits). */
export function metered<T>(meter: WorkMeter, run: () => T): T {
  return meters.run(meter, run);
}

/** Adds milliseconds of work to the current request's meter, if there is one. */
export function recordWork(ms: number): void {
  const meter = meters.getStore();
  if (meter) meter.ms += ms;
}
