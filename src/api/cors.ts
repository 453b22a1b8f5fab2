// CORS for POST /v1/ingest: the browser SDK posts from the dapp's origin, so ingest answers any
// origin (the key travels in the body, never in cookies, so `*` grants nothing extra) and exposes
// Retry-After and the RateLimit headers, which the SDK's backoff reads. The SDK sends text/plain,
// a "simple" request without a preflight; the OPTIONS answer serves clients that send JSON or the
// x-api-key header. Read routes are unchanged.

const INGEST_CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type, x-api-key",
  "access-control-expose-headers": "retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset",
  "access-control-max-age": "86400",
};

export function withIngestCors(response: Response): Response {
  for (const [name, value] of Object.entries(INGEST_CORS)) response.headers.set(name, value);
  return response;
}

export function ingestPreflight(): Response {
  return new Response(null, { status: 204, headers: INGEST_CORS });
}
