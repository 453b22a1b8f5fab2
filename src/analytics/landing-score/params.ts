// The Landing Score's fixed methodology parameters. They are part of the published methodology (the
// snapshot states them), so a change here is a change of method: bump SCHEMA_VERSION when it changes
// the meaning of a field.

/** Version of the snapshot file format (docs/landing-score.schema.json). */
export const SCHEMA_VERSION = 1;
/** Days in the window, ending at the end of the snapshot's date (UTC). */
export const WINDOW_DAYS = 7;
/** A program's sample rate is chosen so that about this many of its sends are sampled. */
export const MAX_SAMPLED_SENDS = 100_000;
/** Fewest sampled resolved sends a program needs to be listed. */
export const MINIMUM_SENDS = 100;
/**
 * Outcomes decided up to this long after the window's end count. An attempt sent just before
 * midnight needs a minute or two to be declared dropped; a fixed cut-off keeps the snapshot a pure
 * function of the date and the lake, whenever it is (re)computed.
 */
export const RESOLUTION_GRACE_MS = 15 * 60_000;
/** The nightly run: this long after 00:00 UTC (after the grace period), for the day that just ended. */
export const NIGHTLY_AT_MS = 20 * 60_000;
export const DAY_MS = 86_400_000;
