// One reading of a Retry-After header for every client txray has (the SDK's transport, the traffic
// simulator's submitter, the JSON-RPC client): RFC 9110 allows delta-seconds or an HTTP date.

/** Milliseconds to wait per Retry-After (delta-seconds or an HTTP date), or null when absent or invalid. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
