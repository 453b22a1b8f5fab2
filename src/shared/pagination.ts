// The one pagination helper: `?limit=` (default 50, max 500) and an opaque `?cursor=` that is
// base64url(JSON position) + an HMAC, so a client cannot forge or alter a position. A cursor that
// does not verify is a 400, never a crash.

import { createHmac, timingSafeEqual } from "node:crypto";
import { badRequest } from "./errors";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export type Page<T> = { items: T[]; nextCursor: string | null };

export function parseLimit(raw: string | null | undefined): number {
  if (raw === null || raw === undefined || raw === "") return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw)) throw badRequest(`limit: expected an integer from 1 to ${MAX_LIMIT}`);
  const limit = Number(raw);
  if (limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit: expected an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}

export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: unknown): string {
    const payload = Buffer.from(JSON.stringify(position)).toString("base64url");
    return `${payload}.${this.sign(payload)}`;
  }

  /** The position, or a 400 for anything that was not produced by encode. */
  decode<T>(cursor: string | null | undefined, isValid: (value: unknown) => value is T): T | null {
    if (cursor === null || cursor === undefined || cursor === "") return null;
    const [payload, signature, extra] = cursor.split(".");
    if (!payload || !signature || extra !== undefined || cursor.length > 2048) throw badRequest("cursor: malformed");
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      throw badRequest("cursor: not a cursor this server issued");
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      throw badRequest("cursor: malformed");
    }
    if (!isValid(value)) throw badRequest("cursor: malformed");
    return value;
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.secret).update(payload).digest("base64url").slice(0, 22);
  }
}
