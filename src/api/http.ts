// HTTP rendering of txray errors and JSON answers: one place decides the error shape (docs/api.md#errors) and
// the status of each code. Internal errors are logged and answered without details.

import { answerJson } from "../analytics/serving/answer-json";
import { errorBody, TxrayError } from "../shared/errors";
import type { Logger } from "../shared/logger";
import { describeError } from "../shared/logger";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  // Shared (cached or precomputed) answers are serialized once, not per request.
  return new Response(answerJson(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export function errorResponse(error: unknown, logger: Logger, headers: Record<string, string> = {}): Response {
  if (error instanceof TxrayError) {
    const extra: Record<string, string> = { ...headers };
    if (error.retryAfterSeconds !== undefined) extra["retry-after"] = String(error.retryAfterSeconds);
    return json(errorBody(error.code, error.message), error.status, extra);
  }
  logger.error("internal error", { error: describeError(error) });
  return json(errorBody("internal", "internal error"), 500, headers);
}

/** The request body, at most `limit` bytes: a larger one (declared or actual) is a 413. */
export async function readBoundedBody(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new TxrayError("payload_too_large", `body exceeds ${limit} bytes`);
  if (Number(request.headers.get("content-length") ?? "0") > limit) throw tooLarge();
  // With a Content-Length the server has already bounded the body; without one, read with a cap.
  if (request.headers.has("content-length")) return new Uint8Array(await request.arrayBuffer());
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
