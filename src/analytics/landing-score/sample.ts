// The deterministic hash sample. An attempt is sampled when the first 16 hex digits of
// md5(attempt_id), read as an unsigned 64-bit number, are below sampleRate × 2^64. attempt_id is
// assigned by the server, so a reporter cannot choose which of its attempts are sampled, and anyone
// holding the lake can recompute the sample with any tool that has md5.

/**
 * The sample rate of a program with `sends` send attempts in the window: all of them up to `cap`,
 * above it cap/sends with four significant digits (the rate that is disclosed is exactly the rate used).
 */
export function sampleRateFor(sends: number, cap: number): number {
  if (sends <= cap) return 1;
  return Number((cap / sends).toPrecision(4));
}

/**
 * The rate as the 16-hex-digit threshold that md5 text is compared with (as text: same length,
 * lower-case, so text order is number order); null for rate 1 (every attempt).
 */
export function sampleThreshold(rate: number): string | null {
  if (!(rate > 0 && rate <= 1)) throw new Error(`sample rate must be in (0, 1], got ${rate}`);
  if (rate === 1) return null;
  // rate × 2^64 is exact in binary floating point; floor of it is an exact integer below 2^64.
  return BigInt(Math.floor(rate * 2 ** 64))
    .toString(16)
    .padStart(16, "0");
}
