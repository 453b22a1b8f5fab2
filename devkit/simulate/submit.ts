// Client side of POST {endpoint}/v1/ingest (docs/api.md#post-v1ingest): envelopes go in batches with the key in the
// body (`{ apiKey, envelopes }`, as the official SDK does); 202 `{accepted}` counts them; 429 (and
// 503) are retried after Retry-After (seconds or an HTTP date), else with exponential backoff;
// any other status is an error carrying the server's `{error:{code,message}}`.
// Batches stay within the service limits: ≤ 1000 envelopes and well under the 1 MiB body cap.

import type { Envelope } from "../../src/shared/envelope.ts";
import { retryAfterMs } from "../../src/shared/retry-after.ts";

export { retryAfterMs };

export interface SubmitOptions {
  /** Envelopes per request (default 500, max 1000). */
  batchSize?: number;
  /** Largest request body in bytes (default 900 KiB). */
  maxBodyBytes?: number;
  /** Retries of one batch after 429/503 or a network error (default 5). */
  maxRetries?: number;
  /** Longest single wait in ms, whatever Retry-After says (default 60 s). */
  maxWaitMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

export interface SubmitResult {
  accepted: number;
  batches: number;
  retries: number;
}

export class SubmitError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "SubmitError";
  }
}

const RETRYABLE = new Set([429, 503]);

/** Splits envelopes into batches by count and serialized size. */
export function batchEnvelopes(envelopes: Envelope[], batchSize: number, maxBodyBytes: number): Envelope[][] {
  const batches: Envelope[][] = [];
  let current: Envelope[] = [];
  let bytes = 0;
  for (const envelope of envelopes) {
    const size = JSON.stringify(envelope).length + 1;
    if (current.length > 0 && (current.length >= batchSize || bytes + size > maxBodyBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(envelope);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export async function submitEnvelopes(
  endpoint: string,
  apiKey: string,
  envelopes: Envelope[],
  options: SubmitOptions = {},
): Promise<SubmitResult> {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms));
  const maxRetries = options.maxRetries ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const batchSize = Math.min(Math.max(1, options.batchSize ?? 500), 1000);
  const url = `${endpoint.replace(/\/+$/, "")}/v1/ingest`;
  const result: SubmitResult = { accepted: 0, batches: 0, retries: 0 };

  for (const batch of batchEnvelopes(envelopes, batchSize, options.maxBodyBytes ?? 900 * 1024)) {
    const body = JSON.stringify({ apiKey, envelopes: batch });
    for (let attempt = 0; ; attempt++) {
      let response: Response | null = null;
      let failure: string;
      try {
        response = await doFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
        failure = `HTTP ${response.status}`;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      if (response?.status === 202) {
        const answer = (await response.json().catch(() => ({}))) as { accepted?: unknown };
        result.accepted += typeof answer.accepted === "number" ? answer.accepted : batch.length;
        result.batches++;
        break;
      }
      if (response && !RETRYABLE.has(response.status)) {
        const answer = (await response.json().catch(() => null)) as {
          error?: { code?: string; message?: string };
        } | null;
        const code = answer?.error?.code ?? null;
        throw new SubmitError(
          `ingest answered ${response.status}${code ? ` ${code}` : ""}: ${answer?.error?.message ?? response.statusText}`,
          response.status,
          code,
        );
      }
      if (attempt >= maxRetries)
        throw new SubmitError(
          `ingest still failing after ${maxRetries} retries: ${failure}`,
          response?.status ?? null,
          null,
        );
      const wait = retryAfterMs(response?.headers.get("retry-after") ?? null) ?? 500 * 2 ** attempt;
      result.retries++;
      await sleep(Math.min(wait, maxWaitMs));
    }
  }
  return result;
}
