// Snapshot dates and their windows. The window depends on the date alone: the WINDOW_DAYS UTC days
// ending at the end of that date, as a half-open interval [since, until) of Unix ms.

import { DAY_MS, RESOLUTION_GRACE_MS, WINDOW_DAYS } from "./params";

export type ScoreWindow = { since: number; until: number; resolvedBefore: number };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Start of a YYYY-MM-DD date (UTC) in Unix ms, or null when it is not a real calendar date. */
export function dateStart(date: string): number | null {
  if (!DATE.test(date)) return null;
  const start = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(start) || new Date(start).toISOString().slice(0, 10) !== date) return null;
  return start;
}

/** The snapshot date for a given moment: the last complete UTC day. */
export function lastCompleteDay(now: number): string {
  return new Date(Math.floor(now / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
}

/**
 * Checks a requested date: a real YYYY-MM-DD date, not after today (UTC, by `now`). Returns an
 * error message, or null when it is fine. A future date is refused because its window has not
 * happened yet and its file would become latest.json ahead of every real night.
 */
export function checkDate(date: string, now: number): string | null {
  const start = dateStart(date);
  if (start === null) return `date must be a calendar date YYYY-MM-DD, got ${JSON.stringify(date)}`;
  if (start > Math.floor(now / DAY_MS) * DAY_MS) return `date ${date} is in the future`;
  return null;
}

export function scoreWindow(date: string): ScoreWindow {
  const start = dateStart(date);
  if (start === null) throw new Error(`not a date: ${date}`);
  const until = start + DAY_MS;
  return { since: until - WINDOW_DAYS * DAY_MS, until, resolvedBefore: until + RESOLUTION_GRACE_MS };
}

/** The UTC days [from, to] as YYYY-MM-DD strings. */
export function daysBetween(from: number, to: number): string[] {
  const days: string[] = [];
  for (let t = Math.floor(from / DAY_MS) * DAY_MS; t <= to; t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
