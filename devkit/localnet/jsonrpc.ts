// JSON-RPC 2.0 framing as agave's RPC (jsonrpc-core) does it: single and batch requests,
// notifications get no answer, standard error codes and messages, and a serializer that writes
// bigint as a plain JSON number (u64 values such as rentEpoch = 18446744073709551615 must stay
// exact for @solana/kit, which parses numbers as bigint). Method logic lives elsewhere.

import { z } from "zod";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export const invalidParams = (detail: string) => new RpcError(INVALID_PARAMS, `Invalid params: ${detail}`);

/** Validates `params` with a zod schema; a mismatch is a -32602 naming the offending position. */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const result = schema.safeParse(params ?? []);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.length ? `params[${issue.path.join("].[")}]: ` : "";
  throw invalidParams(`${path}${issue.message}`);
}

export type Dispatch = (method: string, params: unknown) => Promise<unknown>;

type Id = string | number | null;
const requestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: z.unknown().optional(),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
});

function errorObject(id: Id, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id };
}

async function handleOne(raw: unknown, dispatch: Dispatch): Promise<object | null> {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw === "object" && raw !== null && "id" in raw ? ((raw as { id: Id }).id ?? null) : null;
    return errorObject(id, INVALID_REQUEST, "Invalid request");
  }
  const { method, params, id } = parsed.data;
  const isNotification = id === undefined;
  try {
    const result = await dispatch(method, params);
    return isNotification ? null : { jsonrpc: "2.0", result: result === undefined ? null : result, id };
  } catch (error) {
    if (isNotification) return null;
    if (error instanceof RpcError) return errorObject(id, error.code, error.message, error.data);
    return errorObject(
      id,
      INTERNAL_ERROR,
      error instanceof Error ? `Internal error: ${error.message}` : "Internal error",
    );
  }
}

/** Handles one HTTP body; returns the response text, or null when nothing must be sent back. */
export async function handleJsonRpc(body: string, dispatch: Dispatch): Promise<string | null> {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return toJson(errorObject(null, PARSE_ERROR, "Parse error"));
  }
  if (Array.isArray(raw)) {
    if (raw.length === 0) return toJson(errorObject(null, INVALID_REQUEST, "Invalid request"));
    const responses: object[] = [];
    // Sequential on purpose: a batch runs against one chain in order, like a single client would.
    for (const item of raw) {
      const response = await handleOne(item, dispatch);
      if (response) responses.push(response);
    }
    return responses.length ? toJson(responses) : null;
  }
  const response = await handleOne(raw, dispatch);
  return response ? toJson(response) : null;
}

/** JSON.stringify that writes bigint as a raw number and drops undefined object fields. */
export function toJson(value: unknown): string {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return "null";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
      if (value instanceof Uint8Array) return toJson(Array.from(value));
      const parts: string[] = [];
      for (const [key, field] of Object.entries(value)) {
        if (field === undefined) continue;
        parts.push(`${JSON.stringify(key)}:${toJson(field)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return "null";
  }
}
