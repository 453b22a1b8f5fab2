// The one error type of txray. Every layer (ingest, query functions, jobs) throws TxrayError with a
// stable code; each surface renders it its own way (HTTP: the shape and status of docs/api.md#errors, MCP: isError,
// chat: a message). Codes and statuses are a public contract (docs/api.md).

export const ERROR_STATUS = {
  bad_request: 400,
  schema_violation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  pending: 404,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class TxrayError extends Error {
  readonly code: ErrorCode;
  /** Seconds a client should wait before retrying (pending, rate_limited, unavailable). */
  readonly retryAfterSeconds?: number;
  constructor(code: ErrorCode, message: string, options: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = "TxrayError";
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new TxrayError("bad_request", message);
export const notFound = (message: string) => new TxrayError("not_found", message);

/** The body every HTTP error carries: `{ error: { code, message } }` (docs/api.md#errors). */
export function errorBody(code: ErrorCode, message: string) {
  return { error: { code, message } };
}

/** `envelopes[3].sentAt` from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path)
    out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  return out || "(body)";
}

/** The first few zod issues as one message naming each field path. */
/** For schema_violation messages. */
export function describeIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  limit = 3,
): string {
  const shown = issues.slice(0, limit).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (issues.length > limit) shown.push(`(+${issues.length - limit} more)`);
  return shown.join("; ");
}
