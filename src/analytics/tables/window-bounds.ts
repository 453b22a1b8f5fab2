// Where each window starts for one refresh, and where it started at the previous one: attempts
// received in between left the window (issues.ts subtracts them from the issues' payer counts).
// Windows end at the refresh's clock, which never moves back (a clock set back would bring attempts
// back into windows they already left).

import { WINDOW_NAMES, WINDOWS, type WindowName } from "../windows";

export type WindowBounds = {
  clock: number;
  since: Record<WindowName, number>;
  /** The previous refresh's starts; equal to `since` on a full rebuild (nothing leaves). */
  previousSince: Record<WindowName, number>;
};

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export function windowBounds(clock: number, previousClock: number | null): WindowBounds {
  const since = Object.fromEntries(WINDOW_NAMES.map((w) => [w, clock - WINDOWS[w]])) as Record<WindowName, number>;
  const previousSince =
    previousClock === null
      ? since
      : (Object.fromEntries(WINDOW_NAMES.map((w) => [w, previousClock - WINDOWS[w]])) as Record<WindowName, number>);
  return { clock, since, previousSince };
}
