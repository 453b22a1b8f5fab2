// POST /v1/ingest (seed §4.2, DESIGN §5–6): authenticate, validate the whole batch, charge the key's
// token bucket, append to the spool and answer 202 only once the batch is durable. A batch is
// accepted whole or not at all, so a client retrying after any error never half-duplicates it.

import type { PrincipalCache } from "../../control";
import { encodeSpoolBatch } from "../../ingest/spool-line";
import { validateIngestBody } from "../../ingest/validate";
import type { Spool } from "../../ingest/spool";
import { TxrayError } from "../../shared/errors";
import { json } from "../http";
import type { TokenBuckets } from "../rate-limit";

export type IngestDeps = {
  principals: PrincipalCache;
  spool: Spool;
  buckets: TokenBuckets;
  clock: () => number;
  maxBodyBytes: number;
  maxBatch: number;
};

export async function handleIngest(request: Request, deps: IngestDeps): Promise<Response> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > deps.maxBodyBytes) throw tooLarge(deps.maxBodyBytes);
  // With a Content-Length the server has already bounded the body; without one, read with a cap.
  const text = request.headers.has("content-length") ? await request.text() : await readBodyText(request, deps.maxBodyBytes);

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new TxrayError("bad_request", "body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new TxrayError("schema_violation", "(body): expected an object with `envelopes`");
  }

  const record = body as Record<string, unknown>;
  const presented = request.headers.get("x-api-key") ?? (typeof record.apiKey === "string" ? record.apiKey : null);
  if (!presented) throw new TxrayError("unauthorized", "missing API key: send it in the x-api-key header or the body's apiKey");
  const principal = deps.principals.get(presented);
  if (!principal) throw new TxrayError("unauthorized", "invalid or revoked API key");
  if (principal.scope !== "live") throw new TxrayError("forbidden", "this key is read-only (query-scoped); ingest needs an account key");

  if (Array.isArray(record.envelopes) && record.envelopes.length > deps.maxBatch) {
    throw new TxrayError("payload_too_large", `envelopes: at most ${deps.maxBatch} envelopes per batch, got ${record.envelopes.length}`);
  }
  const envelopes = validateIngestBody(record);

  const rate = deps.buckets.take(principal.keyId, envelopes.length);
  if (!rate.allowed) {
    return json({ error: { code: "rate_limited", message: `ingest rate limit exceeded for this key; retry in ${rate.retryAfterSeconds}s` } }, 429, rate.headers);
  }
  if (envelopes.length > 0) {
    // attemptId = the batch's UUIDv7 + the envelope's index: unique, time-ordered, one UUID per batch.
    const lines = encodeSpoolBatch(principal.accountId, deps.clock(), Bun.randomUUIDv7(), envelopes);
    try {
      await deps.spool.append(lines);
    } catch {
      throw new TxrayError("unavailable", "could not persist the batch; nothing was accepted, retry later", { retryAfterSeconds: 1 });
    }
  }
  return json({ accepted: envelopes.length }, 202, rate.headers);
}

function tooLarge(limit: number) {
  return new TxrayError("payload_too_large", `body exceeds ${limit} bytes`);
}

/** Reads the body, stopping as soon as it passes the limit (a missing or lying Content-Length). */
async function readBodyText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
