// HTTP rendering of txray errors and JSON answers: one place decides the error shape (docs/api.md#errors) and
// the status of each code. Internal errors are logged and answered without details.

import { answerJson } from "../analytics/serving/shared-answer-text";
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
