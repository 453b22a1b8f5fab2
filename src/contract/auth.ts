// Read-side authentication: the key from `x-api-key` (reads never take it from a query string,
// where it would land in access logs). Public routes work without one; `?scope=account` and
// /v1/programs need one, and a key only ever sees its own account's data. An ingest key
// (txr_ingest_…, public once shipped in a browser) reads nothing: 403 wherever a key is needed.

import { authenticate, type ControlDb, type Principal, scopeCanRead } from "../control";
import { TxrayError } from "../shared/errors";

export function optionalPrincipal(control: ControlDb, request: Request): Principal | null {
  const presented = request.headers.get("x-api-key");
  if (presented === null) return null;
  const principal = authenticate(control, presented);
  if (!principal) throw new TxrayError("unauthorized", "invalid or revoked API key");
  return principal;
}

export function requirePrincipal(control: ControlDb, request: Request): Principal {
  const principal = optionalPrincipal(control, request);
  if (!principal) throw new TxrayError("unauthorized", "missing API key: send it in the x-api-key header");
  return principal;
}

/** A principal that may read its account's data: an admin (txr_live_…) or read key, not an ingest key. */
export function requireReader(control: ControlDb, request: Request): Principal {
  return readerOnly(requirePrincipal(control, request));
}

function readerOnly(principal: Principal): Principal {
  if (!scopeCanRead(principal.scope))
    throw new TxrayError(
      "forbidden",
      "an ingest key (txr_ingest_…) only sends telemetry: use a read or admin key (docs/security.md)",
    );
  return principal;
}

/** `?scope=account` → the key's account id; absent → null (public aggregate). */
export function scopeAccount(control: ControlDb, request: Request, url: URL): string | null {
  return accountForScope(control, request.headers.get("x-api-key"), url.searchParams.get("scope"));
}

/**
 * The account a `scope` argument restricts an answer to, given the key presented (or null): the
 * one rule for every surface (HTTP routes, MCP tools). `account` needs a valid key.
 */
export function accountForScope(
  control: ControlDb,
  presentedKey: string | null,
  scope: string | null | undefined,
): string | null {
  if (scope === null || scope === undefined || scope === "" || scope === "public") return null;
  if (scope !== "account") throw new TxrayError("bad_request", "scope: expected `account` or `public`");
  if (presentedKey === null) throw new TxrayError("unauthorized", "missing API key: send it in the x-api-key header");
  const principal = authenticate(control, presentedKey);
  if (!principal) throw new TxrayError("unauthorized", "invalid or revoked API key");
  return readerOnly(principal).accountId;
}

/** A key from `x-api-key` or `Authorization: Bearer <key>` (MCP clients send the latter). */
export function presentedKey(request: Request): string | null {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header;
  const authorization = request.headers.get("authorization");
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match ? match[1] : null;
}
